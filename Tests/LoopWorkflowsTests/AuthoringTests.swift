import Foundation
import LoopCutting
import LoopFoundation
import LoopModel
import LoopStore
import LoopTestSupport
import LoopText
import Testing

@testable import LoopWorkflows

struct AuthoringTests {
    @Test func authoringCopiesTheTakeWhileCuttingAndKeepsNothingWhenTheCutFails() async throws {
        let library = try LibraryStore(at: scratch())
        let authoring = Library(store: library)
        let authored = try await authoring.author(
            source: try Fixture.source, sourceText: nil, takePath: Fixture.path("clean.flac"))
        #expect(authored.loop.phrases.allSatisfy { $0.audio != nil })
        #expect(try library.check().isHealthy)

        await #expect(throws: (any Error).self) {
            try await authoring.author(
                source: try Fixture.source, sourceText: nil, takePath: Fixture.path("silence.flac"))
        }
        let health = try library.check()
        #expect(
            health.isHealthy && health.orphans.isEmpty && health.leftovers.isEmpty,
            "a take that cannot be cut leaves no copy behind")
        #expect(health.audioFileCount == 1)
        #expect(try library.loops().count == 1)
    }

    @Test func attachCutsANewTakeOntoThePhrasesWaitingAndNamesDoubtfulCutsByTheirPhrases() async throws {
        let library = try LibraryStore(at: scratch())
        let loop = try library.createLoop(source: try Fixture.source)
        let attached = try await Library(store: library).attach(
            loop: loop.summary.id, takePath: Fixture.path("clean.flac"))
        #expect(attached.loop.phrases.allSatisfy { $0.audio != nil })
        #expect(attached.doubtfulCuts.allSatisfy { $0.after == $0.before + 1 && (1...5).contains($0.before) })
        await #expect {
            try await Library(store: library).attach(loop: loop.summary.id, takePath: Fixture.path("clean.flac"))
        } throws: { error in
            (error as? LibraryError)?.kind == .nothingToDo
        }
    }

    @Test func aTakeAtAnotherRateIsCutOntoThePhrasesThatNeedAudio() async throws {
        let library = try LibraryStore(at: scratch())
        let loop = try library.createLoop(source: try Fixture.source)
        #expect(loop.summary.phrasesNeedingAudio == 5)
        let attached = try await Library(store: library).attach(
            loop: loop.summary.id, takePath: Fixture.path("rate-8k.flac"))
        #expect(attached.loop.summary.phrasesNeedingAudio == 0)
        #expect(attached.loop.phrases.allSatisfy { $0.audio?.sampleRate == 8_000 })
    }

    @Test func whenOnlyPhrasesRecordedForAnEarlierTextAreLeftAttachSaysSo() async throws {
        let library = try LibraryStore(at: scratch())
        let loop = try library.createLoop(
            source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: Fixture.ranges))
        let text = loop.sourceText.replacingOccurrences(of: "Merci.", with: "Merci !")
        _ = try library.replaceSource(ofLoop: loop.summary.id, with: try LoopSource(parsing: text), text: text)
        await #expect {
            try await Library(store: library).attach(loop: loop.summary.id, takePath: Fixture.path("clean.flac"))
        } throws: { error in
            (error as? LibraryError)?.kind == .onlyClipsForEarlierText
                && "\(error)".contains("1 of them read an earlier text")
        }
        // With the changed phrases included, "Merci !" is found in the take of all five phrases
        // (the take holds more than the text: the others' speech is left out), and its clip
        // holds that word alone, where the fixture says it is (4.03-4.49 s).
        let attached = try await Library(store: library).attach(
            loop: loop.summary.id, takePath: Fixture.path("clean.flac"), includingChanged: true)
        let merci = try #require(attached.loop.phrases.first { $0.text == "Merci !" }?.audio)
        #expect(merci.startSeconds > 3.75 && merci.startSeconds < 4.05, "\(merci.startSeconds)")
        #expect(merci.endSeconds > 4.45 && merci.endSeconds < 4.75, "\(merci.endSeconds)")
    }
}
