import Foundation
import LoopAudio
import LoopAuthoring
@testable import LoopRecording
import LoopTestSupport
import Testing

struct RecordingFinisherTests {
    @Test func discardedRangesAreCutOutOfEachChunk() {
        #expect(RecordingFinisher.kept(0..<100, discarding: []) == [0..<100])
        #expect(RecordingFinisher.kept(0..<100, discarding: [20..<30, 25..<40, 90..<200]) == [0..<20, 40..<90])
        #expect(RecordingFinisher.kept(100..<200, discarding: [0..<150]) == [150..<200])
        #expect(RecordingFinisher.kept(100..<200, discarding: [0..<100, 200..<300]) == [100..<200])
        #expect(RecordingFinisher.kept(100..<200, discarding: [50..<250]).isEmpty)
    }

    @Test func aReReadAttemptIsLeftOutOfTheSavedTake() throws {
        // The author read phrase 1, pressed r, and read the whole text: the take saved is the
        // clean take alone, cut where the clean take is cut.
        var take: [Float] = []
        var reader = try AudioFileReader(path: Fixture.path("clean.flac"))
        try reader.forEachMonoBlock { take.append(contentsOf: $0) }
        let attempt = Array(take[0..<30_000])
        let folder = Scratch.path("finisher")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let raw = folder + "/take.raw"
        try (attempt + take).withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: raw)) }
        var draft = RecordingDraft(loopId: "l", phraseIds: [1, 2, 3, 4, 5], phraseTexts: Fixture.truth.map(\.text), language: "fr", sampleRate: 16_000, channelCount: 1)
        draft.discarded = [0..<attempt.count]

        let result = try #require(try RecordingFinisher().finish(rawPath: raw, draft: draft, phrasesRead: 5, into: folder))
        var saved: [Float] = []
        var savedReader = try AudioFileReader(path: result.takePath)
        try savedReader.forEachMonoBlock { saved.append(contentsOf: $0) }
        #expect(saved.count == take.count)
        #expect(zip(saved, take).allSatisfy { abs($0 - $1) < 1e-4 }, "the kept audio is the take, sample for sample (16-bit FLAC)")
        let direct = try SilenceSegmenter().segment(path: Fixture.path("clean.flac"), hint: .text(Fixture.truth.map(\.text), language: "fr"))
        #expect(result.ranges == direct.segments.map { $0.startFrame..<$0.endFrame })
    }

    /// The fixture take as a raw recording in a scratch folder: its path and the folder.
    private func rawFixtureTake() throws -> (raw: String, folder: String) {
        var take: [Float] = []
        var reader = try AudioFileReader(path: Fixture.path("clean.flac"))
        try reader.forEachMonoBlock { take.append(contentsOf: $0) }
        let folder = Scratch.path("finisher")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let raw = folder + "/take.raw"
        try take.withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: raw)) }
        return (raw, folder)
    }

    @Test func aLastPhraseTheLiveViewRanIntoThePreviousOneGetsItsClip() throws {
        // The pause before the last phrase was shorter than the live view expected there, so it
        // counted four phrases: the take still holds all five, and each gets its own clip.
        let (raw, folder) = try rawFixtureTake()
        let draft = RecordingDraft(loopId: "l", phraseIds: [1, 2, 3, 4, 5], phraseTexts: Fixture.truth.map(\.text), language: "fr", sampleRate: 16_000, channelCount: 1)
        let result = try #require(try RecordingFinisher().finish(rawPath: raw, draft: draft, phrasesRead: 4, into: folder))
        let direct = try SilenceSegmenter().segment(path: Fixture.path("clean.flac"), hint: .text(Fixture.truth.map(\.text), language: "fr"))
        #expect(result.phraseIds == [1, 2, 3, 4, 5])
        #expect(result.ranges == direct.segments.map { $0.startFrame..<$0.endFrame })
    }

    @Test func twoPausesTheLiveViewMissedEarlierOnStillGiveEachPhraseItsClip() throws {
        // The view ran phrases together twice, counting three: the take holds all five, and with
        // three texts each after the first merge was a phrase early.
        let (raw, folder) = try rawFixtureTake()
        let draft = RecordingDraft(loopId: "l", phraseIds: [1, 2, 3, 4, 5], phraseTexts: Fixture.truth.map(\.text), language: "fr", sampleRate: 16_000, channelCount: 1)
        let result = try #require(try RecordingFinisher().finish(rawPath: raw, draft: draft, phrasesRead: 3, into: folder))
        let direct = try SilenceSegmenter().segment(path: Fixture.path("clean.flac"), hint: .text(Fixture.truth.map(\.text), language: "fr"))
        #expect(result.phraseIds == [1, 2, 3, 4, 5])
        #expect(result.ranges == direct.segments.map { $0.startFrame..<$0.endFrame })
    }

    @Test func twoPhrasesNotReadThatTheLiveViewCountedAtCommasGetNoClip() throws {
        let (raw, folder) = try rawFixtureTake()
        let draft = RecordingDraft(
            loopId: "l", phraseIds: [1, 2, 3, 4, 5, 6, 7],
            phraseTexts: Fixture.truth.map(\.text) + ["Au revoir, monsieur, et à demain.", "Bonne soirée."],
            language: "fr", sampleRate: 16_000, channelCount: 1)
        let result = try #require(try RecordingFinisher().finish(rawPath: raw, draft: draft, phrasesRead: 7, into: folder))
        let direct = try SilenceSegmenter().segment(path: Fixture.path("clean.flac"), hint: .text(Fixture.truth.map(\.text), language: "fr"))
        #expect(result.phraseIds == [1, 2, 3, 4, 5])
        #expect(result.ranges == direct.segments.map { $0.startFrame..<$0.endFrame })
    }

    @Test func aPhraseNotReadGetsNoClip() throws {
        // All five read, and the text has a sixth the author stopped before: it stays without audio.
        let (raw, folder) = try rawFixtureTake()
        let draft = RecordingDraft(
            loopId: "l", phraseIds: [1, 2, 3, 4, 5, 6], phraseTexts: Fixture.truth.map(\.text) + ["Au revoir, monsieur, et à demain."],
            language: "fr", sampleRate: 16_000, channelCount: 1)
        let result = try #require(try RecordingFinisher().finish(rawPath: raw, draft: draft, phrasesRead: 5, into: folder))
        #expect(result.phraseIds == [1, 2, 3, 4, 5])
    }

    @Test func aPhraseNotReadThatTheLiveViewCountedAtACommaGetsNoClip() throws {
        // All five read, and the view ended the last at its comma ("À droite, | puis tout
        // droit."), counting the sixth, which was never read: the fifth keeps all of its audio.
        let (raw, folder) = try rawFixtureTake()
        let draft = RecordingDraft(
            loopId: "l", phraseIds: [1, 2, 3, 4, 5, 6], phraseTexts: Fixture.truth.map(\.text) + ["Au revoir, monsieur, et à demain."],
            language: "fr", sampleRate: 16_000, channelCount: 1)
        let result = try #require(try RecordingFinisher().finish(rawPath: raw, draft: draft, phrasesRead: 6, into: folder))
        let direct = try SilenceSegmenter().segment(path: Fixture.path("clean.flac"), hint: .text(Fixture.truth.map(\.text), language: "fr"))
        #expect(result.phraseIds == [1, 2, 3, 4, 5])
        #expect(result.ranges == direct.segments.map { $0.startFrame..<$0.endFrame })
    }
}
