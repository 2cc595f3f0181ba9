import Foundation
import GRDB
import LoopFoundation
import LoopModel
import LoopStudy
import LoopTestSupport
import LoopText
import Testing

@testable import LoopStore

struct LibraryStoreTests {
    @Test func aNewLoopKeepsItsTextGroupsPhrasesAndClips() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let take = CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges)
        let loop = try library.createLoop(source: try Fixture.source, tags: ["Gare"], take: take)
        #expect(loop.summary.title == "Fixture")
        #expect(loop.summary.language == "fr")
        #expect(loop.summary.tags == ["Gare"])
        #expect(
            loop.groups.map { $0.map(\.text) } == [
                ["Bonjour, madame.", "Un café, s'il vous plaît.", "Merci."],
                ["Où est la gare, s'il vous plaît ?", "À droite, puis tout droit."],
            ])
        #expect(loop.phrases.map(\.audio?.startFrame) == cleanTakeRanges.map(\.lowerBound))
        let audio = try #require(loop.phrases[0].audio)
        #expect(audio.sampleRate == 16_000)
        #expect(FileManager.default.fileExists(atPath: audio.path))
        #expect(audio.path.contains("/audio/\(audio.sha256.prefix(2))/\(audio.sha256.dropFirst(2))"))
        #expect(
            try AudioStore.sha256(ofFileAt: audio.path) == AudioStore.sha256(ofFileAt: Fixture.path("clean.flac")),
            "the take is kept as it was")
    }

    /// Merging a page's progress asks, for each session, whether the library has it (its loop
    /// and start): SQLite answers from an index, not by reading all of the loop's study, so a
    /// file of 75,000 sessions merges in linear time.
    @Test func aStudySessionIsFoundByItsLoopAndStartThroughAnIndex() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let plan = try library.database.read { db in
            try Row.fetchAll(
                db,
                sql: "EXPLAIN QUERY PLAN SELECT EXISTS (SELECT 1 FROM studyEvent WHERE loopId = ? AND startedAt = ?)",
                arguments: ["x", Date()]
            ).map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("studyEvent_loop_started") }, "\(plan)")
    }

    @Test func identicalAudioIsStoredOnce() throws {
        let root = temporaryLibraryFolder()
        let library = try LibraryStore(at: root)
        let take = CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges)
        let first = try library.createLoop(source: try Fixture.source, title: "One", take: take)
        let second = try library.createLoop(source: try Fixture.source, title: "Two", take: take)
        #expect(first.phrases[0].audio?.path == second.phrases[0].audio?.path)
        #expect(AudioStore(layout: LibraryLayout(root: root)).inventory().files.count == 1)
    }

    @Test func listsFilterByLanguageAndTagWithoutRegardToCaseOrAccents() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        _ = try library.createLoop(source: try Fixture.source, title: "Zèbre", tags: ["Café", "voyage"])
        _ = try library.createLoop(source: try LoopSource(parsing: "# language: ES\nHola."), title: "ábaco")
        #expect(try library.loops().map(\.title) == ["ábaco", "Zèbre"], "sorted by title, accents aside")
        #expect(try library.loops(language: "es").map(\.title) == ["ábaco"])
        #expect(try library.loops(tag: "cafe").map(\.title) == ["Zèbre"])
        #expect(try library.loops(tag: "CAFÉ").map(\.title) == ["Zèbre"])
        #expect(try library.loops(tag: "none").isEmpty)
        let updated = try library.loops(sort: .updated)
        #expect(updated.first?.title == "ábaco", "newest first")
    }

    @Test func aLoopIsNamedByAUniqueStartOfItsTitleInAnyScript() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let ubung = try library.createLoop(source: try Fixture.source, title: "Übung macht")
        let eki = try library.createLoop(source: try Fixture.source, title: "駅で")
        for name in ["übung", "Ubung", "übung m", "ÜBUNG MACHT", " ubung "] {
            #expect(try library.resolve(name) == ubung.summary.id, "\(name)")
        }
        #expect(try library.resolve("駅") == eki.summary.id)
        #expect { try library.resolve("übung x") } throws: { error in
            (error as? LibraryError)?.kind == .loopNotFound && "\(error)".contains("title word starting 'übung x'")
        }
        let zwei = try library.createLoop(source: try Fixture.source, title: "Übung zwei")
        #expect { try library.resolve("ubung") } throws: { error in
            (error as? LibraryError)?.kind == .ambiguousLoop && "\(error)".contains("names 2 loops")
                && "\(error)".contains("Übung macht (\(ubung.summary.id.prefix(8)))")
                && "\(error)".contains("Übung zwei (\(zwei.summary.id.prefix(8)))")
        }
        #expect(try library.resolve("übung z") == zwei.summary.id)
        // A whole title wins over the longer titles it starts.
        let short = try library.createLoop(source: try Fixture.source, title: "Übung")
        #expect(try library.resolve("ubung") == short.summary.id)
    }

    @Test func aLoopIsNamedByAUniqueIdPrefixOrItsTitle() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let loop = try library.createLoop(source: try Fixture.source, title: "Au Café")
        #expect(try library.resolve(String(loop.summary.id.prefix(6))) == loop.summary.id)
        #expect(try library.resolve("au cafe") == loop.summary.id)
        #expect(throws: LibraryError.self) { try library.resolve("nothing") }
        // Three characters of an id are too few to be taken as one (a title could start so), and
        // the error says so rather than that no loop has such an id.
        let short = String(loop.summary.id.prefix(3))
        #expect {
            try library.resolve(short)
        } throws: {
            ($0 as? LibraryError)?.message
                == "'\(short)' is too short a start of an id: give 4 characters or more (such as \(loop.summary.id.prefix(8)))"
        }
        let namesake = try library.createLoop(source: try Fixture.source, title: "Au Café")
        // Two loops of one title: the error says the ids tell them apart, and shows both.
        let ids = [loop.summary.id, namesake.summary.id].sorted().map { String($0.prefix(8)) }
        #expect {
            try library.resolve("Au Café")
        } throws: { error in
            guard let error = error as? LibraryError, error.kind == .ambiguousLoop else { return false }
            return error.message.hasPrefix(
                "'Au Café' names 2 loops of the same title, 'Au Café': give the id of the one you mean, \(ids[0]) (5 phrases, added "
            )
                && error.message.contains(", \(ids[1]) (5 phrases, added ")
                && !error.message.contains("more of the title")
        }
    }

    @Test func searchIgnoresCaseAndAccentsTakesPrefixesAndRanks() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let fixture = try library.createLoop(source: try Fixture.source)
        _ = try library.createLoop(
            source: try LoopSource(parsing: "Un CAFÉ noir. | A black coffee.\nLe thé. | Tea."), title: "Boissons")
        #expect(Set(try library.search("cafe").map(\.text)) == ["Un café, s'il vous plaît.", "Un CAFÉ noir."])
        #expect(try library.search("caf noir").map(\.text) == ["Un CAFÉ noir."], "every word, as a prefix")
        #expect(try library.search("coffee").map(\.loopTitle) == ["Boissons"], "translations are searched")
        let hit = try #require(try library.search("gare").first)
        #expect(hit.group == 2 && hit.number == 4 && hit.loopId == fixture.summary.id)
        #expect(try library.search("plait", inLoop: fixture.summary.id).count == 2)
        #expect(throws: LibraryError.self) { try library.search("  ,; ") }
    }

    @Test func searchReadsEveryWordAsAWordEvenOnesTheIndexReadsAsSyntax() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        _ = try library.createLoop(
            source: try LoopSource(
                parsing: "OR, le roi est là. | Now, the king is here.\nNOT NEAR the station. | Pas près de la gare."),
            title: "Mots")
        #expect(try library.search("OR").map(\.text) == ["OR, le roi est là."], "a word, not the operator")
        #expect(try library.search("NOT near").map(\.text) == ["NOT NEAR the station."])
        #expect(
            try library.search("\"roi\" (la^)").map(\.text) == ["OR, le roi est là."],
            "quotes, brackets and carets are no syntax")
        #expect(
            try library.search("pre\u{300}s").map(\.text) == ["NOT NEAR the station."],
            "an accent typed as a combining mark")
    }

    @Test func searchPutsTheBestMatchesFirstAndKeepsToTheLimit() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let lines =
            ["Le pain est frais ce matin, et le café de la gare est chaud."]
            + (1...30).map { "Phrase \($0) sans le mot." }
            + ["Café, café !"]
        _ = try library.createLoop(source: try LoopSource(parsing: lines.joined(separator: "\n")), title: "Matin")
        let hits = try library.search("cafe")
        #expect(
            hits.map(\.text) == ["Café, café !", lines[0]],
            "the phrase that is mostly the word comes first, though added last")
        #expect(try library.search("phrase", limit: 10).count == 10)
    }

    @Test func searchRanksAsSQLitesBM25() throws {
        // loop_rank leaves out the weight bm25 gives a lone word (the same for every row); with
        // several words it weighs them as bm25. Either way the order must be bm25's.
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let lines = (1...40).map { line in
            (Array(repeating: "de", count: line % 3 + 1) + Array(repeating: "mot", count: line % 7)
                + (line % 2 == 0 ? ["la", "gare"] : []) + (line % 5 == 0 ? ["gare", "du", "nord"] : [])).joined(
                    separator: " ")
                + " | " + (line % 4 == 0 ? "the station" : "a word")
        }
        _ = try library.createLoop(source: try LoopSource(parsing: lines.joined(separator: "\n")), title: "Rangs")
        for query in ["de", "gar", "de la", "gare nord", "station", "mot de"] {
            let pattern = try #require(LibraryStore.prefixPattern(query))
            let (ranked, byBM25) = try library.database.read { db in
                func order(_ rank: String) throws -> [Int64] {
                    try Int64.fetchAll(
                        db,
                        sql:
                            "SELECT rowid FROM phraseSearch WHERE phraseSearch MATCH ? ORDER BY \(rank)(phraseSearch), rowid",
                        arguments: [pattern])
                }
                return (try order("loop_rank"), try order("bm25"))
            }
            #expect(ranked.count >= 4 && ranked == byBM25, "'\(query)'")
        }
    }

    @Test func searchFindsWordsInsideChineseJapaneseAndThaiText() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let text = "我想喝咖啡。 | I'd like a coffee.\n咖啡馆在哪里？\n東京タワーはどこですか。\nกาแฟร้อนหนึ่งแก้ว\n학교에 갑니다.\nTokyo駅"
        _ = try library.createLoop(source: try LoopSource(parsing: text), title: "Unspaced")
        #expect(Set(try library.search("咖啡").map(\.text)) == ["我想喝咖啡。", "咖啡馆在哪里？"])
        #expect(try library.search("哪里").map(\.text) == ["咖啡馆在哪里？"], "a word in the middle of a run")
        #expect(try library.search("喝 咖").map(\.text) == ["我想喝咖啡。"], "every word, the last as a prefix")
        #expect(try library.search("啡咖").isEmpty, "the characters side by side, in order")
        #expect(try library.search("タワー").map(\.text) == ["東京タワーはどこですか。"])
        #expect(try library.search("กาแฟ").map(\.text) == ["กาแฟร้อนหนึ่งแก้ว"])
        #expect(try library.search("학교").map(\.text) == ["학교에 갑니다."], "a Korean word inside a longer one")
        #expect(
            try library.search("tokyo").map(\.text) == ["Tokyo駅"] && (try library.search("駅").map(\.text)) == ["Tokyo駅"]
        )
        #expect(try library.search("coffee").map(\.text) == ["我想喝咖啡。"], "translations as before")
    }

    @Test func unspacedScriptsAreCutIntoCharactersAndTheRestStaysWhole() {
        #expect(PhraseSearchTokenizer.pieces(of: "tokyo東京") == ["tokyo", "東", "京"])
        #expect(PhraseSearchTokenizer.pieces(of: "café") == ["café"])
        #expect(PhraseSearchTokenizer.pieces(of: "タワーab") == ["タ", "ワ", "ー", "ab"])
    }

    @Test func editingTheTextKeepsTheAudioOfUnchangedPhrasesAndTheirHistory() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let take = CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges)
        let loop = try library.createLoop(source: try Fixture.source, take: take)
        let gare = loop.phrases[3]
        try library.database.write { db in
            try db.execute(
                sql:
                    "INSERT INTO studyEvent (loopId, phraseId, startedAt, seconds, repetitions) VALUES (?, ?, ?, 12.5, 3)",
                arguments: [loop.summary.id, gare.id, Date()])
        }
        let text =
            "# title: Fixture\n\nBonjour, madame.\nMerci beaucoup.\n\nNouveau.\nOù est la gare, s'il vous plaît ?\n"
        let outcome = try library.replaceSource(
            ofLoop: loop.summary.id, with: try LoopSource(parsing: text), text: text)
        #expect(outcome.kept == 2)
        #expect(outcome.removed == 3)
        #expect(outcome.needingAudio.map(\.text) == ["Merci beaucoup.", "Nouveau."])
        let phrases = outcome.loop.phrases
        #expect(
            phrases.map(\.text) == [
                "Bonjour, madame.", "Merci beaucoup.", "Nouveau.", "Où est la gare, s'il vous plaît ?",
            ])
        #expect(phrases[3].id == gare.id && phrases[3].audio == gare.audio && phrases[3].group == 2)
        #expect(phrases[0].audio == loop.phrases[0].audio)
        #expect(outcome.loop.summary.revision == 2)
        #expect(outcome.loop.sourceText == text)
        let history = try library.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM studyEvent WHERE phraseId = ?", arguments: [gare.id])
        }
        #expect(history == 1)
    }

    @Test func theCountsAListingShowsFollowEveryChange() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let loop = try library.createLoop(
            source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges))
        _ = try library.createLoop(source: try LoopSource(parsing: "# title: Other\n\nUn.\n\nDeux.\n"))
        func listed() throws -> LoopSummary { try #require(try library.loops().first { $0.id == loop.summary.id }) }
        func counted() throws -> (Int, Int, Int) {
            let detail = try library.loop(id: loop.summary.id)
            return (detail.groups.count, detail.phrases.count, detail.phrases.filter { $0.audio == nil }.count)
        }
        #expect(try (listed().groupCount, listed().phraseCount, listed().phrasesNeedingAudio) == (2, 5, 0))
        let text =
            "# title: Fixture\n\nBonjour, madame.\nMerci beaucoup.\n\nNouveau.\n\nOù est la gare, s'il vous plaît ?\n"
        _ = try library.replaceSource(ofLoop: loop.summary.id, with: try LoopSource(parsing: text), text: text)
        #expect(try (listed().groupCount, listed().phraseCount, listed().phrasesNeedingAudio) == counted())
        #expect(try listed().phrasesNeedingAudio == 2 && listed().groupCount == 3)
        let waiting = try library.loop(id: loop.summary.id).phrases.filter { $0.audio == nil }.map(\.id)
        _ = try library.attach(
            loop: loop.summary.id, phraseIds: waiting,
            take: CutTake(path: Fixture.path("clean.flac"), ranges: Array(cleanTakeRanges.prefix(2))))
        #expect(try (listed().groupCount, listed().phraseCount, listed().phrasesNeedingAudio) == counted())
        #expect(try listed().phrasesNeedingAudio == 0)
        #expect(try library.check().isHealthy)
        // The loop summary of the other loop never moved.
        let other = try #require(try library.loops().first { $0.title == "Other" })
        #expect(other.groupCount == 2 && other.phraseCount == 2)
    }

    /// A group rated before any of its phrases was heard (the key pressed as the review began)
    /// keeps its rating: the review used to be dropped with the empty session.
    @Test func aRatingGivenBeforeAnyPhraseWasHeardIsKept() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let loop = try library.createLoop(
            source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges))
        try library.recordStudy(
            loop: loop.summary.id, startedAt: Date(), phrases: [],
            reviews: [GroupRating(group: 0, rating: .again, date: Date())], replay: ReviewSettings.replay)
        #expect(try library.reviewCards(ofLoop: loop.summary.id)[0] != nil)
    }

    @Test func aTypoFixKeepsTheClipMarkedAsRecordedForTheEarlierText() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let loop = try library.createLoop(
            source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges))
        let bonjour = loop.phrases[0]
        try library.recordStudy(
            loop: loop.summary.id, startedAt: Date(),
            phrases: [PhraseStudyRecord(phraseId: bonjour.id, seconds: 9, repetitions: 2)],
            replay: ReviewSettings.replay)
        func edit(_ text: String, dropChangedAudio: Bool = false) throws -> EditOutcome {
            try library.replaceSource(
                ofLoop: loop.summary.id, with: try LoopSource(parsing: text), text: text,
                dropChangedAudio: dropChangedAudio)
        }

        let typo = loop.sourceText.replacingOccurrences(of: "Bonjour, madame.", with: "Bonsoir, madame.")
        let fixed = try edit(typo)
        #expect(fixed.needingAudio.isEmpty && fixed.loop.summary.phrasesNeedingAudio == 0)
        #expect(fixed.recordedForEarlierText.map(\.text) == ["Bonsoir, madame."])
        let first = fixed.loop.phrases[0]
        #expect(first.id == bonjour.id && first.audio == bonjour.audio, "the row and its clip stay")
        #expect(first.recordedText == "Bonjour, madame." && first.clipIsForEarlierText)
        #expect(fixed.loop.phrases.dropFirst().allSatisfy { !$0.clipIsForEarlierText })
        #expect(
            try library.studyStats(loop: loop.summary.id).first?.phrases.first { $0.number == 1 }?.repetitions == 2,
            "and its study history")
        #expect(try library.check().clipsForEarlierText.map(\.recordedText) == ["Bonjour, madame."], "doctor lists it")

        // A second change: the clip still reads the first text. Back to that text: the mark goes.
        let again = try edit(typo.replacingOccurrences(of: "Bonsoir, madame.", with: "Bonsoir, madame !"))
        #expect(again.loop.phrases[0].recordedText == "Bonjour, madame.")
        let back = try edit(loop.sourceText)
        #expect(back.loop.phrases[0].recordedText == nil && back.loop.phrases[0].audio == bonjour.audio)

        // Split, merged and rewritten phrases need audio of their own.
        let split = try edit(
            loop.sourceText.replacingOccurrences(of: "À droite, puis tout droit.", with: "À droite,\npuis tout droit."))
        #expect(
            split.needingAudio.map(\.text) == ["À droite,", "puis tout droit."] && split.recordedForEarlierText.isEmpty)
        let merged = try edit(
            loop.sourceText.replacingOccurrences(
                of: "Un café, s'il vous plaît.\nMerci.", with: "Un café, s'il vous plaît. Merci."))
        #expect(
            merged.needingAudio.map(\.text) == ["Un café, s'il vous plaît. Merci.", "À droite, puis tout droit."],
            "(the split phrases had no clip)")
        #expect(merged.recordedForEarlierText.isEmpty)
        let rewritten = try edit(
            merged.loop.sourceText.replacingOccurrences(of: "Bonjour, madame.", with: "Il pleut aujourd'hui."))
        #expect(rewritten.needingAudio.map(\.text) == ["Il pleut aujourd'hui."])

        // Asked to, a changed phrase loses its clip as before.
        let dropped = try edit(
            rewritten.loop.sourceText.replacingOccurrences(of: "vous plaît ?", with: "te plaît ?"),
            dropChangedAudio: true)
        #expect(
            dropped.needingAudio.map(\.text).contains("Où est la gare, s'il te plaît ?")
                && dropped.recordedForEarlierText.isEmpty)
    }

    @Test func aNewClipClearsTheEarlierTextMark() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let loop = try library.createLoop(
            source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges))
        let text = loop.sourceText.replacingOccurrences(of: "Merci.", with: "Merci !")
        let edited = try library.replaceSource(ofLoop: loop.summary.id, with: try LoopSource(parsing: text), text: text)
        let merci = edited.loop.phrases[2]
        #expect(merci.clipIsForEarlierText)
        let attached = try library.attach(
            loop: loop.summary.id, phraseIds: [merci.id],
            take: CutTake(path: Fixture.path("clean.flac"), ranges: [cleanTakeRanges[2]]))
        #expect(attached.phrases[2].recordedText == nil && !attached.phrases[2].clipIsForEarlierText)
        #expect(try library.check().clipsForEarlierText.isEmpty)
    }

    @Test func likenessTellsATypoFromAnotherPhrase() {
        #expect(ChangedPhrases.likeness("Bonjour, madame.", "Bonsoir, madame.") > 0.8)
        #expect(ChangedPhrases.likeness("Café", "cafe") == 1, "case and accents aside")
        #expect(ChangedPhrases.likeness("Merci.", "Nouveau.") < ChangedPhrases.minimumLikeness)
        #expect(ChangedPhrases.likeness("", "x") == 0)
        // Pairs only where as many phrases went as came, between unchanged ones.
        #expect(
            ChangedPhrases.pairs(
                old: ["a", "Bonjour.", "c"], new: ["a", "Bonsoir.", "c"], unchanged: [(0, 0), (2, 2)]
            ).map { [$0.0, $0.1] } == [[1, 1]])
        #expect(
            ChangedPhrases.pairs(
                old: ["À droite, puis tout droit."], new: ["À droite,", "puis tout droit."], unchanged: []
            ).isEmpty)
    }

    @Test func aRevisionThatCannotGrowIsAnErrorNotAnOverflow() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let loop = try library.createLoop(source: try Fixture.source)
        try library.database.write { db in
            try db.execute(sql: "UPDATE loop SET revision = ? WHERE id = ?", arguments: [Int.max, loop.summary.id])
        }
        #expect { try library.updateMetadata(ofLoop: loop.summary.id, title: "Next") } throws: {
            ($0 as? LibraryError)?.kind == .revisionLimit
        }
        #expect(try library.loop(id: loop.summary.id).summary.title == "Fixture", "unchanged")
        // At the last revision a bundle may carry (a signed bundle's can be), an edit stops too:
        // no loop may go where its own bundles would be refused.
        try library.database.write { db in
            try db.execute(
                sql: "UPDATE loop SET revision = ? WHERE id = ?", arguments: [LoopRevision.last, loop.summary.id])
        }
        #expect { try library.updateMetadata(ofLoop: loop.summary.id, title: "Next") } throws: { error in
            (error as? LibraryError)?.kind == .revisionLimit
                && "\(error)".contains("is at revision 1000000000, the last there is")
        }
        #expect(try library.loop(id: loop.summary.id).summary.revision == LoopRevision.last)
        #expect { try library.updateMetadata(ofLoop: loop.summary.id, title: "bad\u{1B}[2J") } throws: { error in
            (error as? LibraryError)?.kind == .invalidText
                && "\(error)".contains("the title holds the control character U+001B (ESC)")
        }
    }

    @Test func listingReadsLoopsThroughTheirIndexesNeverByScanningAndSorting() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        _ = try library.createLoop(source: try Fixture.source, tags: ["voyage"])
        func plan(_ query: (String, StatementArguments)) throws -> String {
            try library.database.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query.0, arguments: query.1).map {
                    $0["detail"] as String
                }.joined(separator: "; ")
            }
        }
        // Straight from a covering index, in its order, stopping at the limit: never a sort of
        // them all, never the loop rows themselves.
        let byTitle = try plan(LibraryStore.listQuery(language: nil, tag: nil, sort: .title, limit: 40))
        #expect(
            byTitle.contains("SCAN loop USING COVERING INDEX loop_summary_by_title")
                && !byTitle.contains("TEMP B-TREE"), "\(byTitle)")
        let byUpdate = try plan(LibraryStore.listQuery(language: nil, tag: nil, sort: .updated, limit: 40))
        #expect(
            byUpdate.contains("SCAN loop USING COVERING INDEX loop_summary_by_update")
                && !byUpdate.contains("TEMP B-TREE"), "\(byUpdate)")
        let byLanguage = try plan(LibraryStore.listQuery(language: "fr", tag: nil, sort: .title, limit: nil))
        #expect(byLanguage.contains("USING INDEX"), "\(byLanguage)")
        let byTag = try plan(LibraryStore.listQuery(language: nil, tag: "voyage", sort: .title, limit: nil))
        #expect(byTag.contains("loopTag USING") && byTag.contains("INDEX"), "\(byTag)")
    }

    @Test func metadataChangesFollowIntoTheStoredText() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let loop = try library.createLoop(
            source: try Fixture.source, sourceText: "# title: Fixture\n# language: fr\n\nBonjour.\n")
        let updated = try library.updateMetadata(
            ofLoop: loop.summary.id, title: "Gare", language: "ES", addTags: ["Train", "voyage"], removeTags: [])
        #expect(
            updated.summary.title == "Gare" && updated.summary.language == "es"
                && updated.summary.tags == ["Train", "voyage"])
        #expect(updated.sourceText == "# tags: Train, voyage\n# title: Gare\n# language: es\n\nBonjour.\n")
        let untagged = try library.updateMetadata(ofLoop: loop.summary.id, removeTags: ["TRAIN"])
        #expect(untagged.summary.tags == ["voyage"])
    }

    @Test func adjustMovesAClipWithinItsTakeOnly() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        let loop = try library.createLoop(
            source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges))
        let moved = try library.adjust(loop: loop.summary.id, phrase: 2, to: 35_000..<60_500)
        #expect(moved.audio?.startFrame == 35_000 && moved.audio?.endFrame == 60_500)
        let frames = try #require(moved.audio?.takeFrameCount)
        #expect { try library.adjust(loop: loop.summary.id, phrase: 2, to: 0..<(frames + 1)) } throws: {
            ($0 as? LibraryError)?.kind == .invalidRange
        }
        #expect { try library.adjust(loop: loop.summary.id, phrase: 9, to: 0..<10) } throws: {
            ($0 as? LibraryError)?.kind == .phraseNotFound
        }
        #expect(try library.loop(id: loop.summary.id).phrases[1].audio?.startFrame == 35_000)
    }

    @Test func removingALoopKeepsItsAudioUntilGarbageCollection() throws {
        let root = temporaryLibraryFolder()
        let library = try LibraryStore(at: root)
        let kept = try library.createLoop(
            source: try Fixture.source, title: "Kept",
            take: CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges))
        let doomed = try library.createLoop(
            source: try Fixture.source, title: "Doomed",
            take: CutTake(path: Fixture.path("quiet-30db.flac"), ranges: cleanTakeRanges))
        try library.remove(loop: doomed.summary.id)
        #expect(AudioStore(layout: LibraryLayout(root: root)).inventory().files.count == 2)
        let report = try library.collectGarbage()
        #expect(report.removedFiles.count == 1 && report.freedBytes > 0)
        #expect(
            AudioStore(layout: LibraryLayout(root: root)).inventory().files == [
                try #require(kept.phrases[0].audio?.path).replacingOccurrences(of: root + "/", with: "")
            ])
        #expect(try library.check().isHealthy)
    }

    @Test func doctorFindsMissingAndDamagedAudioAndListsOrphans() throws {
        let root = temporaryLibraryFolder()
        let library = try LibraryStore(at: root)
        let one = try library.createLoop(
            source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: cleanTakeRanges))
        let two = try library.createLoop(
            source: try Fixture.source, take: CutTake(path: Fixture.path("clicks.flac"), ranges: cleanTakeRanges))
        #expect(try library.check().isHealthy)
        try "stray".write(toFile: root + "/audio/.incoming/crashed-import", atomically: false, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: root + "/audio/00", withIntermediateDirectories: true)
        try "orphan".write(toFile: root + "/audio/00/orphan", atomically: false, encoding: .utf8)
        var report = try library.check()
        #expect(report.isHealthy, "orphans and leftovers are harmless")
        #expect(report.orphans == ["audio/00/orphan"] && report.leftovers == ["audio/.incoming/crashed-import"])

        try FileManager.default.removeItem(atPath: try #require(one.phrases[0].audio?.path))
        let damaged = try #require(two.phrases[0].audio?.path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))
        report = try library.check()
        #expect(!report.isHealthy)
        #expect(report.problems.count == 2)
        #expect(
            report.problems.contains {
                $0.kind == .audioMissing && $0.message.contains("missing")
                    && $0.remedy.contains("record the phrases again")
            })
        #expect(report.problems.contains { $0.message.contains("damaged") })
    }
}

struct TakeValidationTests {
    @Test func aClipPastTheEndOfItsTakeIsRefusedAndNothingIsAdded() throws {
        let library = try LibraryStore(at: temporaryLibraryFolder())
        var ranges = cleanTakeRanges
        ranges[4] = 123_400..<400_000
        #expect {
            try library.createLoop(
                source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: ranges))
        } throws: { error in
            (error as? LibraryError)?.kind == .invalidRange && "\(error)".contains("lies outside the take")
        }
        #expect(try library.loops().isEmpty)
    }
}

struct StoredDateTests {
    @Test func storedDatesReadAsGRDBWroteThem() throws {
        let queue = try DatabaseQueue()
        for date in [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_795_392_166.509),
            Date(timeIntervalSince1970: 951_782_400.25),
            Date(timeIntervalSince1970: -86_400 * 365.25 * 40 + 0.999),
        ] {
            let stored = try queue.read { db in try String.fetchOne(db, sql: "SELECT ?", arguments: [date]) }
            let text = try #require(stored)
            let parsed = try #require(StoredDate.parse(text), "\(text)")
            #expect(abs(parsed.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.001, "\(text)")
        }
        #expect(
            StoredDate.parse("2026-13-01 00:00:00") == nil && StoredDate.parse("yesterday") == nil
                && StoredDate.parse("2026-11-22T10:00:00Z") == nil)
    }
}
