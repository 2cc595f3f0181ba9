import Foundation
import LoopSpeech
import Testing

@testable import LoopCutting

/// The text rendered for alignment.
@Suite struct ContentAlignerTests {
    private let text = [
        "We ordered soup, bread and a large salad for the table.",
        "The flight was delayed, so we missed our connection in Madrid.",
        "Yes, please.",
        "For breakfast, I usually have toast with butter and jam.",
        "If the shop is closed, we can buy milk at the petrol station on the corner.",
        "Thank you.",
        "The museum opens at ten and closes early on Mondays.",
        "Could you tell me where the nearest pharmacy is, please?",
    ]

    private func rendered(secondProcess: Bool) throws -> ContentAligner.Rendering {
        var aligner = ContentAligner()
        aligner.parameters.leastSecondProcessBytes = secondProcess ? 0 : .max
        let rate = try SpeechSynthesizer.shared.outputRate()
        return try aligner.render(
            text, in: SpeechLanguage(code: "en", voice: "en", origin: .loop),
            upperFrequency: CepstrumMeter.upperFrequency(sampleRates: [16_000, rate]))
    }

    /// A long text's second half is rendered by a second process at the same time: every
    /// phrase comes back once, in order, as long as one process renders it, with a join
    /// between each two.
    @Test func aTextRenderedInTwoProcessesHasEveryPhraseInOrder() throws {
        let one = try rendered(secondProcess: false)
        let two = try rendered(secondProcess: true)
        #expect(one.phrases.count == text.count)
        try #require(two.phrases.count == text.count)
        let joinFrames = ContentAligner.Parameters().joinFrames
        #expect(two.phrases[0].lowerBound == joinFrames)
        for (index, (alone, beside)) in zip(one.phrases, two.phrases).enumerated() {
            #expect(
                abs(alone.count - beside.count) <= max(3, alone.count / 20),
                "phrase \(index + 1): \(beside.count) frames, \(alone.count) in one process")
            if index > 0 { #expect(beside.lowerBound == two.phrases[index - 1].upperBound + joinFrames) }
        }
        #expect(two.frames.count == two.phrases[text.count - 1].upperBound + joinFrames)
        #expect(abs(one.frames.count - two.frames.count) <= 3 * text.count)
    }

    /// A rendering stopped while the second process renders ends it and says so.
    @Test func aStoppedRenderingStopsItsSecondProcess() throws {
        var aligner = ContentAligner()
        aligner.parameters.leastSecondProcessBytes = 0
        let rate = try SpeechSynthesizer.shared.outputRate()
        #expect(throws: RenderingStopped.self) {
            try aligner.render(
                text, in: SpeechLanguage(code: "en", voice: "en", origin: .loop),
                upperFrequency: CepstrumMeter.upperFrequency(sampleRates: [16_000, rate]), stopped: { true })
        }
    }

    /// The text is parted by its characters, never before its first phrase nor after its last.
    @Test func aLongTextIsPartedInTheMiddleOfItsCharacters() {
        #expect(ContentAligner.secondHalf(of: ["aaaa", "bb", "cc", "dddd"], least: 0) == 2)
        #expect(ContentAligner.secondHalf(of: ["a long first line", "b"], least: 0) == 1)
        #expect(ContentAligner.secondHalf(of: ["a", "b", "a long last line"], least: 0) == 2)
        #expect(ContentAligner.secondHalf(of: ["short", "text"], least: 2_000) == 2)
        #expect(ContentAligner.secondHalf(of: ["one line"], least: 0) == 1)
    }
}
