import Foundation
import LoopCutting
import LoopModel
import LoopTestSupport
import Testing

@testable import LoopRecording

/// The recording's state machine, driven with levels and keys alone: no audio, no clock, no files.
struct TakeRecordingTests {
    /// A draft of the fixture's five phrases at 16 kHz.
    func draft() -> RecordingDraft {
        RecordingDraft(
            loopId: "l", phraseIds: [1, 2, 3, 4, 5], phraseTexts: Fixture.truth.map(\.text), language: "fr",
            sampleRate: 16_000, channelCount: 1)
    }

    /// Feeds the fixture's envelope, a 10 ms hop per block; returns every action.
    func feed(_ recording: inout TakeRecording, hops: ArraySlice<Float>) -> [TakeRecording.Action] {
        hops.flatMap { recording.captured(frames: 160, levels: [$0], peak: 0.5, overruns: 0) }
    }

    @Test func eachPhraseThatEndsMovesTheHighlightAndTheEndOfInputFinishes() throws {
        let levels = try EnergyEnvelope.measure(path: Fixture.path("clean.flac")).levels
        var recording = TakeRecording(draft: draft())
        let actions = feed(&recording, hops: levels[...]) + recording.inputEnded()
        let ends = actions.compactMap {
            if case .phraseEnded(let index, let frame) = $0 { (index, frame) } else { nil }
        }
        #expect(ends.map(\.0) == [0, 1, 2, 3, 4])
        for ((_, frame), truth) in zip(ends, Fixture.truth) {
            #expect(abs(Double(frame) / 16_000 - truth.end) < 0.2, "\(frame) for \(truth.end)")
        }
        #expect(actions.last == .stop(.finish))
        #expect(recording.status.phrase == 5 && recording.status.finished)
    }

    @Test func perPhraseThePhraseThatEndsPausesTheRecordingUntilResumed() throws {
        let levels = try EnergyEnvelope.measure(path: Fixture.path("clean.flac")).levels
        var recording = TakeRecording(draft: draft(), perPhrase: true)
        // Up to the end of phrase 1 and the pause that ends it.
        var fed = 0
        while recording.phrase == 0, fed < levels.count {
            _ = recording.captured(frames: 160, levels: [levels[fed]], peak: 0.5, overruns: 0)
            fed += 1
        }
        #expect(
            recording.phrase == 1 && recording.paused && recording.status.paused,
            "paused after phrase 1, for the next key")
        recording.togglePause()
        #expect(!recording.paused)
    }

    @Test func readingAPhraseAgainThrowsAwayWhatWasSaidOfItAndBackThrowsAwayThePhraseBefore() throws {
        let levels = try EnergyEnvelope.measure(path: Fixture.path("clean.flac")).levels
        var recording = TakeRecording(draft: draft())
        // Phrase 1 read, phrase 2 begun.
        let phraseTwoBegun = Int((Fixture.truth[1].start + 0.5) * 100)
        _ = feed(&recording, hops: levels[0..<phraseTwoBegun])
        #expect(recording.phrase == 1)
        guard case .saveDraft(let afterRerecord)? = recording.rerecord() else {
            Issue.record("r keeps the draft up to date")
            return
        }
        let discarded = try #require(afterRerecord.discarded.first)
        #expect(
            abs(Double(discarded.lowerBound) / 16_000 - Fixture.truth[1].start) < 0.2
                && discarded.upperBound == phraseTwoBegun * 160,
            "what was said of phrase 2 so far: \(discarded)")
        guard case .saveDraft(let afterBack)? = recording.back() else {
            Issue.record("b keeps the draft up to date")
            return
        }
        #expect(
            recording.phrase == 0 && afterBack.discarded.count == 2 && afterBack.discarded[1].lowerBound == 0,
            "back to phrase 1, all of it thrown away")
        #expect(recording.back() == nil, "nothing before phrase 1")
    }

    @Test func keysStopTheRecordingAsAsked() {
        var recording = TakeRecording(draft: draft())
        #expect(recording.quit() == .stop(.quit) && recording.stopping == .quit)
        var interrupted = TakeRecording(draft: draft())
        #expect(interrupted.interrupt() == .stop(.interrupt))
        var finished = TakeRecording(draft: draft())
        #expect(finished.finish() == .stop(.finish) && finished.status.finished)
    }
}
