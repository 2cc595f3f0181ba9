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

    private func rendered(secondProcess: Bool, atOnce: Bool = true) throws -> ContentAligner.Rendering {
        var aligner = ContentAligner()
        aligner.parameters.leastSecondProcessBytes = secondProcess ? 0 : .max
        aligner.parameters.halvesAtOnce = atOnce
        let rate = try SpeechSynthesizer.shared.outputRate()
        return try aligner.render(
            text, in: SpeechLanguage(code: "en", voice: "en", origin: .loop),
            upperFrequency: CepstrumMeter.upperFrequency(sampleRates: [16_000, rate]), synthesizer: .shared)
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

    /// A text is rendered the same every time, whatever was rendered before it, and whether its
    /// halves are rendered at once (two cores) or one after the other (one): a cut does not
    /// depend on what the process did before, nor on the machine's cores.
    @Test func aTextIsRenderedTheSameWhateverWasRenderedBeforeAndOnAnyCores() throws {
        let first = try rendered(secondProcess: true)
        _ = try SpeechSynthesizer.shared.render(
            ["Something else entirely, with a question?", "And an answer!"], voice: "en")
        let again = try rendered(secondProcess: true)
        let oneAfterTheOther = try rendered(secondProcess: true, atOnce: false)
        for other in [again, oneAfterTheOther] {
            #expect(other.phrases == first.phrases)
            #expect(other.frames.count == first.frames.count)
            #expect(other.frames.features == first.frames.features)
        }
    }

    /// The synthesizer gives the same samples for the same phrase each time, with other
    /// phrases rendered between (espeak-ng's own state carries from one text to the next), in
    /// other voices and at other speeds, again and again (a setting made without rendering waits
    /// in espeak-ng's command queue, which overflows after a hundred or so: a benchmark's hour
    /// rendered a sentence at a time came out garbled after its first 150 sentences).
    @Test func aPhraseIsRenderedToTheSameSamplesEachTime() throws {
        let phrase = "The quick brown fox jumps over the lazy dog, and then it sleeps."
        let first = try SpeechSynthesizer.shared.render([phrase], voice: "en")[0].samples
        var firstOfEach: [String: [Float]] = [:]
        var differing: [Int] = []
        for round in 0..<200 {
            let voice = round.isMultiple(of: 2) ? "fr" : "en-us+m3"
            let speed = 150 + round % 3 * 20
            let samples = try SpeechSynthesizer.shared.render(["Oui."], voice: voice, wordsPerMinute: speed)[0].samples
            let key = "\(voice) \(speed)"
            if let earlier = firstOfEach[key], earlier != samples { differing.append(round) }
            firstOfEach[key] = firstOfEach[key] ?? samples
        }
        let again = try SpeechSynthesizer.shared.render([phrase], voice: "en")[0].samples
        #expect(!first.isEmpty)
        #expect(again == first)
        #expect(differing.isEmpty, "rendered otherwise in rounds \(differing)")
    }

    /// A rendering stopped while the second process renders ends it and says so.
    @Test func aStoppedRenderingStopsItsSecondProcess() throws {
        var aligner = ContentAligner()
        aligner.parameters.leastSecondProcessBytes = 0
        let rate = try SpeechSynthesizer.shared.outputRate()
        #expect(throws: RenderingStopped.self) {
            try aligner.render(
                text, in: SpeechLanguage(code: "en", voice: "en", origin: .loop),
                upperFrequency: CepstrumMeter.upperFrequency(sampleRates: [16_000, rate]), synthesizer: .shared,
                stopped: { true })
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
