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

    /// A chapter's audio and its whole book: the loop holds the chapter (the paragraphs of the
    /// lines found), titled by the book and the heading above them, and says where it was found.
    @Test func aTakeOfAChapterMakesALoopOfThatChapterTitledByItsHeading() async throws {
        let chapters = [
            [
                ["The train left the city early in the morning."],
                ["My grandmother waited for me on the platform.", "She wore a green coat and a red hat."],
                ["We walked to her house along the river.", "The water was high after the spring rain."],
            ],
            [
                ["In the kitchen, she made tea and toast."],
                ["Then she showed me the garden behind the house.", "Tomatoes grew beside the fence."],
                ["At night, the owls called from the old oak tree.", "I slept with the window open."],
            ],
            [
                ["On Sunday we took the bus to the market."],
                ["She bought cheese, apples and a loaf of dark bread.", "I carried the basket home."],
                ["Before I left, she gave me a letter for my mother.", "I read it on the train."],
            ],
            [
                ["Autumn came, and school began again."],
                ["Every week I wrote to her about my lessons.", "Her answers were short and funny."],
                ["In December, a parcel arrived with a wool scarf.", "It smelled of her kitchen."],
            ],
        ]
        let headings = ["Chapter One", "Chapter Two", "Chapter Three", "Chapter Four"]
        var text = "# title: A Summer\n# language: en\n"
        for (heading, chapter) in zip(headings, chapters) {
            text += "\n\(heading)\n\n" + chapter.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
        }
        let source = try LoopSource(parsing: text)
        let secondChapter = chapters[1].flatMap { $0 }
        let take = try SpokenTake.continuous(secondChapter)
        let library = try LibraryStore(at: scratch())
        let authored = try await Library(store: library).author(source: source, sourceText: text, takePath: take.path)

        #expect(authored.loop.summary.title == "A Summer: Chapter Two")
        #expect(authored.loop.phrases.map(\.text) == secondChapter, "the loop holds the chapter's lines alone")
        #expect(authored.loop.groups.count == 3)
        #expect(authored.loop.phrases.allSatisfy { $0.audio != nil })
        let first = try #require(source.phrases.firstIndex { $0.text == secondChapter[0] }) + 1
        #expect(
            authored.foundInText
                == FoundInText(
                    first: first, last: first + secondChapter.count - 1, lineCount: source.phrases.count,
                    kept: first...(first + secondChapter.count - 1), heading: "Chapter Two"))
        #expect(try library.check().isHealthy)

        // A take that ends on the next chapter's heading: a heading is read before its chapter,
        // so it is not the loop's last line, and no clip holds it.
        let readOn = try SpokenTake.continuous(secondChapter + ["Chapter Three."])
        let readOnLoop = try await Library(store: library).author(
            source: source, sourceText: text, takePath: readOn.path, request: titled("Read on"))
        #expect(readOnLoop.loop.phrases.map(\.text) == secondChapter)
        let lastClip = try #require(readOnLoop.loop.phrases.last?.audio)
        let heading = try #require(readOn.phrases.last)
        #expect(lastClip.endSeconds <= heading.lowerBound + 0.1, "the last clip ends before the heading")
    }

    private func titled(_ title: String) -> NewLoopRequest {
        var request = NewLoopRequest()
        request.title = title
        return request
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
