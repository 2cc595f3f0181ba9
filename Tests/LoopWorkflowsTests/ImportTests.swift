import Foundation
import GRDB
import LoopFoundation
import LoopModel
import LoopShare
import LoopStore
import LoopStudy
import LoopTestSupport
import LoopText
import Testing

@testable import LoopWorkflows

struct ImportTests {
    @Test func aNewLoopArrivesWithItsIdAudioAndAuthor() async throws {
        let (author, loop, identity, learner) = try authorAndLearner()
        let results = try await Library(store: learner).importBundles(
            at: [try publish(author, identity, loop.summary.id)], options: ImportOptions())
        #expect(results[0].loops.map(\.outcome) == [.added(id: loop.summary.id)])
        #expect(results[0].signer == "key " + identity.fingerprint, "no name set: the key's fingerprint")
        let imported = try learner.loop(id: loop.summary.id)
        #expect(imported.phrases.map(\.text) == loop.phrases.map(\.text))
        #expect(imported.phrases.map(\.audio?.startFrame) == loop.phrases.map(\.audio?.startFrame))
        #expect(try learner.check().isHealthy)
        #expect(try learner.ownerKey(ofLoop: loop.summary.id) == identity.publicKey.base64EncodedString())
    }

    @Test func theAuthorsNewerRevisionUpdatesInPlaceAndStudyHistoryStays() async throws {
        let (author, loop, identity, learner) = try authorAndLearner()
        _ = try await Library(store: learner).importBundles(
            at: [try publish(author, identity, loop.summary.id)], options: ImportOptions())
        let studied = try learner.loop(id: loop.summary.id).phrases[3]
        try learner.recordStudy(
            loop: loop.summary.id, startedAt: Date(),
            phrases: [PhraseStudyRecord(phraseId: studied.id, seconds: 30, repetitions: 4)],
            replay: ReviewSettings.replay)

        // The author edits: one phrase changes, the rest stay.
        let text = loop.sourceText.replacingOccurrences(of: "Merci.", with: "Merci beaucoup.")
        _ = try author.replaceSource(ofLoop: loop.summary.id, with: try LoopSource(parsing: text), text: text)
        let update = try publish(author, identity, loop.summary.id)
        let results = try await Library(store: learner).importBundles(at: [update], options: ImportOptions())
        #expect(results[0].loops.map(\.outcome) == [.updated(id: loop.summary.id, from: 1, to: 2)])
        let updated = try learner.loop(id: loop.summary.id)
        #expect(updated.phrases[2].text == "Merci beaucoup." && updated.summary.revision == 2)
        #expect(updated.phrases[3].id == studied.id, "an unchanged phrase keeps its row")
        let stats = try learner.studyStats(loop: loop.summary.id)
        #expect(stats.first?.phrases.first { $0.number == 4 }?.repetitions == 4, "and its study history")
        // The same revision again changes nothing.
        #expect(
            try await Library(store: learner).importBundles(at: [update], options: ImportOptions())[0].loops.map(
                \.outcome) == [.unchanged(id: loop.summary.id, revision: 2)])
    }

    @Test func aClipRecordedForAnEarlierTextKeepsItsMarkThroughABundle() async throws {
        let (author, loop, identity, learner) = try authorAndLearner()
        let plain = try BundleReader().read(try publish(author, identity, loop.summary.id), extractingTo: scratch())
        #expect(plain.manifest.version == 1, "a bundle with no mark stays readable by older versions")
        _ = try await Library(store: learner).importBundles(
            at: [try publish(author, identity, loop.summary.id)], options: ImportOptions())
        let studied = try learner.loop(id: loop.summary.id).phrases[0]
        try learner.recordStudy(
            loop: loop.summary.id, startedAt: Date(),
            phrases: [PhraseStudyRecord(phraseId: studied.id, seconds: 5, repetitions: 3)],
            replay: ReviewSettings.replay)

        // The author fixes a typo: the clip stays, marked; the learner's update keeps both.
        let text = loop.sourceText.replacingOccurrences(of: "Bonjour, madame.", with: "Bonsoir, madame.")
        _ = try author.replaceSource(ofLoop: loop.summary.id, with: try LoopSource(parsing: text), text: text)
        let update = try publish(author, identity, loop.summary.id)
        #expect(try BundleReader().read(update, extractingTo: scratch()).manifest.version == 2)
        _ = try await Library(store: learner).importBundles(at: [update], options: ImportOptions())
        let fixed = try learner.loop(id: loop.summary.id).phrases[0]
        #expect(
            fixed.text == "Bonsoir, madame." && fixed.recordedText == "Bonjour, madame."
                && fixed.audio?.startFrame == studied.audio?.startFrame)
        #expect(fixed.id == studied.id, "the learner's row, and so their history, stays")
        #expect(try learner.studyStats(loop: loop.summary.id).first?.phrases.first { $0.number == 1 }?.repetitions == 3)

        // Re-recorded by the author, the mark goes for the learner too.
        let phrase = try author.loop(id: loop.summary.id).phrases[0]
        let audio = try #require(phrase.audio)
        _ = try author.attach(
            loop: loop.summary.id, phraseIds: [phrase.id],
            take: CutTake(path: audio.path, ranges: [audio.startFrame..<audio.endFrame]))
        _ = try await Library(store: learner).importBundles(
            at: [try publish(author, identity, loop.summary.id)], options: ImportOptions())
        #expect(try learner.loop(id: loop.summary.id).phrases[0].recordedText == nil)
    }

    @Test func anotherAuthorsBundleForTheSameLoopIsRefusedUnlessAsACopy() async throws {
        let (author, loop, _, learner) = try authorAndLearner()
        let mallory = try AuthorIdentity.loadOrCreate(at: scratch() + "/key")
        let original = try #require(try AuthorIdentity.load(from: author.layout.identityKey))
        _ = try await Library(store: learner).importBundles(
            at: [try publish(author, original, loop.summary.id)], options: ImportOptions())
        _ = try author.updateMetadata(ofLoop: loop.summary.id, title: "Hijacked")
        let forged = try publish(author, mallory, loop.summary.id)
        await #expect {
            try await Library(store: learner).importBundles(at: [forged], options: ImportOptions())
        } throws: { error in
            (error as? LibraryError)?.kind == .notTheAuthor && "\(error)".contains("signed by another key")
                && !"\(error)".contains("--")
        }
        #expect(try learner.loop(id: loop.summary.id).summary.title == "Fixture", "unchanged")
        let copy = try await Library(store: learner).importBundles(
            at: [forged], options: ImportOptions(asCopy: true))
        guard case .added(let newId) = copy[0].loops[0].outcome else {
            Issue.record("not added")
            return
        }
        #expect(newId != loop.summary.id)
        #expect(try learner.loop(id: newId).summary.title == "Hijacked")
    }

    @Test func localEditsAreNotSilentlyOverwritten() async throws {
        let (author, loop, identity, learner) = try authorAndLearner()
        _ = try await Library(store: learner).importBundles(
            at: [try publish(author, identity, loop.summary.id)], options: ImportOptions())
        _ = try learner.updateMetadata(ofLoop: loop.summary.id, title: "My notes")
        _ = try author.updateMetadata(ofLoop: loop.summary.id, addTags: ["v2"])
        let update = try publish(author, identity, loop.summary.id)
        await #expect {
            try await Library(store: learner).importBundles(at: [update], options: ImportOptions())
        } throws: { error in
            (error as? LibraryError)?.kind == .editedHere && "\(error)".contains("edited here")
                && !"\(error)".contains("--")
        }
        #expect(try learner.loop(id: loop.summary.id).summary.title == "My notes")
        let forced = try await Library(store: learner).importBundles(
            at: [update], options: ImportOptions(force: true))
        #expect(forced[0].loops[0].outcome == .updated(id: loop.summary.id, from: 1, to: 2))
        #expect(try learner.loop(id: loop.summary.id).summary.tags == ["v2"])
    }

    @Test func aDryRunChangesNothing() async throws {
        let (author, loop, identity, learner) = try authorAndLearner()
        let plan = try await Library(store: learner).importBundles(
            at: [try publish(author, identity, loop.summary.id)], options: ImportOptions(dryRun: true))
        #expect(plan[0].loops.map(\.outcome) == [.added(id: loop.summary.id)])
        #expect(try learner.loops().isEmpty)
        #expect(AudioStoreProbe.files(learner.root).isEmpty, "no audio stored either")
    }

    @Test func aFailingBundleLeavesTheLibraryExactlyAsBefore() async throws {
        let (author, loop, identity, learner) = try authorAndLearner()
        let good = try publish(author, identity, loop.summary.id)
        let bad = scratch() + ".loop"
        try Data("not a bundle".utf8).write(to: URL(fileURLWithPath: bad))
        await #expect(throws: ShareError.self) {
            try await Library(store: learner).importBundles(at: [good, bad], options: ImportOptions())
        }
        #expect(try learner.loops().isEmpty, "verified in full before anything changes")
        #expect(AudioStoreProbe.files(learner.root).isEmpty)
    }

    @Test func onlyTheAuthorPublishesAndAFolderImportsNewestFirst() async throws {
        let (author, loop, _, learner) = try authorAndLearner()
        let shared = scratch()
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let first = try await Library(store: author).publish(loop: loop.summary.id, toFolder: shared)
        let older = shared + "/older.loop"
        try FileManager.default.copyItem(atPath: first, toPath: older)
        _ = try author.updateMetadata(ofLoop: loop.summary.id, addTags: ["v2"])
        let second = try await Library(store: author).publish(loop: loop.summary.id, toFolder: shared)
        #expect(first == second, "the newest revision replaces the previous one")

        let results = try await Library(store: learner).importBundles(at: [shared], options: ImportOptions())
        #expect(
            results.map { $0.loops[0].outcome } == [
                .added(id: loop.summary.id), .older(id: loop.summary.id, have: 2, offered: 1),
            ])
        #expect(try learner.loop(id: loop.summary.id).summary.tags == ["v2"])

        // The learner may not publish the author's loop.
        _ = try Library.identity(of: learner)
        await #expect {
            try await Library(store: learner).publish(loop: loop.summary.id, toFolder: shared)
        } throws: { error in
            "\(error)".contains("only its author can publish")
        }
    }

    @Test func aRefusedBundleLeavesTheLibraryUntouched() async throws {
        let learner = try LibraryStore(at: scratch())
        let (_, identity, _, bundle) = try exportedBundle()
        let evil = try resigned(bundle, by: identity) { manifest in
            var loops = manifest["loops"] as? [[String: Any]] ?? []
            loops[0]["id"] = "x/../../pwn"
            manifest["loops"] = loops
        }
        await #expect(throws: ShareError.self) {
            try await Library(store: learner).importBundles(at: [evil], options: ImportOptions())
        }
        #expect(try learner.loops().isEmpty)
        #expect(try learner.check().isHealthy)
        #expect(!FileManager.default.fileExists(atPath: learner.root + "/../pwn"))
    }
}

enum AudioStoreProbe {
    static func files(_ root: String) -> [String] {
        let audio = root + "/audio"
        return ((try? FileManager.default.contentsOfDirectory(atPath: audio)) ?? []).filter { $0 != ".incoming" }
    }
}
