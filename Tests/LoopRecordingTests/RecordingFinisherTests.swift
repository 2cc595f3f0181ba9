import Foundation
import LoopAudioFiles
import LoopCutting
import LoopSpeech
import LoopTestSupport
import Testing

@testable import LoopRecording

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
        var draft = RecordingDraft(
            loopId: "l", phraseIds: [1, 2, 3, 4, 5], phraseTexts: Fixture.truth.map(\.text), language: "fr",
            sampleRate: 16_000, channelCount: 1)
        draft.discarded = [0..<attempt.count]

        let result = try #require(
            try RecordingFinisher(synthesizer: .shared).finish(rawPath: raw, draft: draft, phrasesRead: 5, into: folder)
        )
        var saved: [Float] = []
        var savedReader = try AudioFileReader(path: result.takePath)
        try savedReader.forEachMonoBlock { saved.append(contentsOf: $0) }
        #expect(saved.count == take.count)
        #expect(
            zip(saved, take).allSatisfy { abs($0 - $1) < 1e-4 },
            "the kept audio is the take, sample for sample (16-bit FLAC)")
        try expectTheFivePhrasesReadCutAsTheirText(result)
    }

    /// The fixture take (its five phrases read) finished as `loop record` would: the text holds
    /// those five and `unread` more, and the live view counted `phrasesRead`.
    private func finishFixtureTake(unread: [String] = [], phrasesRead: Int) throws -> RecordingFinisher.Result {
        var take: [Float] = []
        var reader = try AudioFileReader(path: Fixture.path("clean.flac"))
        try reader.forEachMonoBlock { take.append(contentsOf: $0) }
        let folder = Scratch.path("finisher")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let raw = folder + "/take.raw"
        try take.withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: raw)) }
        let texts = Fixture.truth.map(\.text) + unread
        let draft = RecordingDraft(
            loopId: "l", phraseIds: texts.indices.map { Int64($0 + 1) }, phraseTexts: texts, language: "fr",
            sampleRate: 16_000, channelCount: 1)
        return try #require(
            try RecordingFinisher(synthesizer: .shared).finish(
                rawPath: raw, draft: draft, phrasesRead: phrasesRead, into: folder))
    }

    /// The five phrases read, each with its clip where `loop segment --text` cuts the take.
    private func expectTheFivePhrasesReadCutAsTheirText(
        _ result: RecordingFinisher.Result, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let direct = try SilenceSegmenter().segment(
            path: Fixture.path("clean.flac"), hint: .text(Fixture.truth.map(\.text), language: "fr"))
        #expect(result.phraseIds == [1, 2, 3, 4, 5], sourceLocation: sourceLocation)
        #expect(result.ranges == direct.segments.map { $0.startFrame..<$0.endFrame }, sourceLocation: sourceLocation)
    }

    @Test func aLastPhraseTheLiveViewRanIntoThePreviousOneGetsItsClip() throws {
        // The pause before the last phrase was shorter than the live view expected there, so it
        // counted four phrases: the take still holds all five, and each gets its own clip.
        try expectTheFivePhrasesReadCutAsTheirText(try finishFixtureTake(phrasesRead: 4))
    }

    @Test func twoPausesTheLiveViewMissedEarlierOnStillGiveEachPhraseItsClip() throws {
        // The view ran phrases together twice, counting three: the take holds all five, and with
        // three texts each after the first merge was a phrase early.
        try expectTheFivePhrasesReadCutAsTheirText(try finishFixtureTake(phrasesRead: 3))
    }

    @Test func aPhraseNotReadGetsNoClip() throws {
        // All five read, and the text has a sixth the author stopped before: it stays without audio.
        let result = try finishFixtureTake(unread: ["Au revoir, monsieur, et à demain."], phrasesRead: 5)
        #expect(result.phraseIds == [1, 2, 3, 4, 5])
    }

    @Test func aPhraseNotReadThatTheLiveViewCountedAtACommaGetsNoClip() throws {
        // All five read, and the view ended one at its comma ("Où est la gare, | s'il vous
        // plaît ?"), so that each text after it came a phrase late and the sixth, never read, was
        // counted: the phrases read keep their own audio.
        try expectTheFivePhrasesReadCutAsTheirText(
            try finishFixtureTake(unread: ["Au revoir, monsieur, et à demain."], phrasesRead: 6))
    }

    @Test func twoPhrasesNotReadThatTheLiveViewCountedAtCommasGetNoClip() throws {
        // The same at two commas: the sixth and seventh, never read, were counted.
        try expectTheFivePhrasesReadCutAsTheirText(
            try finishFixtureTake(unread: ["Au revoir, monsieur, et à demain.", "Bonne soirée."], phrasesRead: 7))
    }
}
