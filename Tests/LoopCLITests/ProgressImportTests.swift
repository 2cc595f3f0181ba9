import Foundation
import LoopTestSupport
import Testing

/// `loop stats --import FILE`: the progress a loop's page kept in a browser, merged into the
/// library's study history once, phrases matched by number and text; a file from outside that
/// is not one is refused on one line and changes nothing.
struct ProgressImportTests {
    func progressFile(loop id: String, sessions: [(String, [(Int, String, Int, Double)])]) throws -> String {
        let file: [String: Any] = [
            "format": "looplearn-progress", "version": 1,
            "loops": [
                [
                    "id": id,
                    "sessions": sessions.map { start, phrases in
                        [
                            "startedAt": start,
                            "phrases": phrases.map {
                                ["number": $0.0, "text": $0.1, "repetitions": $0.2, "seconds": $0.3]
                            },
                        ] as [String: Any]
                    },
                ] as [String: Any]
            ],
        ]
        let path = Scratch.path("progress", extension: "json")
        try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aPagesProgressIsMergedOnceAndEditedPhrasesAreLeftOut() throws {
        let library = try libraryWithFixtureLoop()
        let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let id = try #require(shown["id"] as? String)
        let texts = ((shown["groups"] as? [[String: Any]]) ?? []).flatMap { ($0["phrases"] as? [[String: Any]]) ?? [] }
            .compactMap { $0["text"] as? String }
        let file = try progressFile(
            loop: id,
            sessions: [
                ("2026-11-24T10:00:00.125Z", [(1, texts[0], 2, 3.5), (2, texts[1], 1, 2.25)]),
                ("2026-11-25T08:30:00.500Z", [(1, texts[0], 1, 1.75), (3, "A text edited since", 4, 6)]),
            ])
        let merged = try library.run(["stats", "--import", file])
        #expect(merged.status == 0, "\(merged.error)")
        #expect(
            merged.output.hasPrefix(
                "merged 2 study sessions of 'Fixture' (3 phrase records); 1 phrase record of phrases edited or gone since left out"
            ),
            "\(merged.output)")
        let stats = try #require(
            ((try library.json(["stats", "fixture"]) as? [String: Any])?["loops"] as? [[String: Any]])?.first)
        #expect(stats["sessions"] as? Int == 2 && stats["repetitions"] as? Int == 4, "\(stats)")
        #expect(abs((stats["seconds"] as? Double ?? 0) - 7.5) < 0.01, "\(stats)")
        let phrases = try #require(stats["phrases"] as? [[String: Any]])
        #expect(phrases.first { $0["number"] as? Int == 1 }?["repetitions"] as? Int == 3)
        #expect(!phrases.contains { $0["number"] as? Int == 3 }, "the edited phrase got nothing")

        // The same file again: nothing added.
        let again = try library.run(["stats", "--import", file, "--json"])
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(again.output.utf8)) as? [String: Any])
        #expect(outcome["sessionsAdded"] as? Int == 0 && outcome["sessionsAlreadyHere"] as? Int == 2, "\(outcome)")
        #expect(
            (((try library.json(["stats", "fixture"]) as? [String: Any])?["loops"] as? [[String: Any]])?.first?[
                "repetitions"] as? Int) == 4)

        // A loop not in this library is named, not an error.
        let other = try progressFile(
            loop: "3f2a0000-0000-4000-8000-000000000001", sessions: [("2026-11-25T08:30:00Z", [(1, "x", 1, 1)])])
        let elsewhere = try library.run(["stats", "--import", other])
        #expect(
            elsewhere.status == 0 && elsewhere.error.contains("1 loop is not in this library")
                && elsewhere.error.contains("3f2a0000"), "\(elsewhere.error)")
    }

    @Test func aFileThatIsNoProgressFileIsRefusedOnOneLine() throws {
        let library = try libraryWithFixtureLoop()
        let id = try #require((try library.json(["show", "fixture"]) as? [String: Any])?["id"] as? String)
        var cases: [(String, String)] = []
        func file(_ text: String) throws -> String {
            let path = Scratch.path("bad", extension: "json")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        cases.append((try file("not json"), "does not have its shape"))
        cases.append((try file(#"{"format":"something","version":1,"loops":[]}"#), "not a progress file"))
        cases.append((try file(#"{"format":"looplearn-progress","version":7,"loops":[]}"#), "version 7, newer"))
        cases.append(
            (
                try file(#"{"format":"looplearn-progress","version":1,"loops":[{"id":"../../etc","sessions":[]}]}"#),
                "a loop id that is not one"
            ))
        cases.append((try progressFile(loop: id, sessions: [("yesterday", [(1, "x", 1, 1)])]), "is not a time"))
        cases.append(
            (try progressFile(loop: id, sessions: [("2026-11-25T08:30:00Z", [(1, "x", -3, 1)])]), "out of range"))
        cases.append(
            (try progressFile(loop: id, sessions: [("2026-11-25T08:30:00Z", [(1, "x", 1, 1e300)])]), "out of range"))
        cases.append(
            (
                try progressFile(loop: id, sessions: [("2026-11-25T08:30:00Z", [(1, "a\u{1B}[31mred", 1, 1)])]),
                "control character"
            ))
        // Impossible or absurd times: rolled over, before any page, in the far future.
        for start in [
            "2026-02-30T08:00:00Z", "2026-11-25T25:61:61Z", "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z", "2026-13-01T00:00:00Z",
        ] {
            cases.append(
                (try progressFile(loop: id, sessions: [(start, [(1, "x", 1, 1)])]), "is not a time a page studied at"))
        }
        // A folder, and a FIFO (whose open would wait for a writer forever).
        let folder = Scratch.path("progress-folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        cases.append((folder, "is a folder"))
        let fifo = Scratch.path("progress-fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        cases.append((fifo, "FIFO"))
        let big = Scratch.path("big", extension: "json")
        try Data(repeating: 0x20, count: (8 << 20) + 10).write(to: URL(fileURLWithPath: big))
        cases.append((big, "larger than 8 MiB"))
        for (path, message) in cases {
            let result = try library.run(["stats", "--import", path])
            #expect(
                result.status != 0 && result.error.hasPrefix("error: \(path): ") && result.error.contains(message)
                    && result.error.split(separator: "\n").count == 1, "\(message): \(result.error)")
        }
        #expect(
            ((try library.json(["stats"]) as? [String: Any])?["loops"] as? [[String: Any]])?.isEmpty == true,
            "nothing was merged")
    }

    @Test func theRatingsAPageGaveAreMergedAndGiveTheScheduleTheTerminalGives() throws {
        let library = try libraryWithFixtureLoop()
        let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let id = try #require(shown["id"] as? String)
        let groups = ((shown["groups"] as? [[String: Any]]) ?? []).map {
            (($0["phrases"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }
        }
        func file(_ reviews: [[String: Any]], later: [[String: Any]] = []) throws -> String {
            func session(_ start: String, _ reviews: [[String: Any]]) -> [String: Any] {
                [
                    "startedAt": start,
                    "phrases": [["number": 1, "text": groups[0][0], "repetitions": 1, "seconds": 2.0]],
                    "reviews": reviews,
                ]
            }
            let sessions =
                [session("2026-11-20T10:00:00.000Z", reviews)]
                + (later.isEmpty ? [] : [session("2026-11-22T11:00:00.000Z", later)])
            let body: [String: Any] = [
                "format": "looplearn-progress", "version": 1, "loops": [["id": id, "sessions": sessions]],
            ]
            let path = Scratch.path("progress", extension: "json")
            try JSONSerialization.data(withJSONObject: body).write(to: URL(fileURLWithPath: path))
            return path
        }
        // Group 1 rated easy; group 2 studied and not rated (good); a group whose text changed since.
        let merged = try library.run([
            "stats", "--import",
            try file([
                ["group": 1, "texts": groups[0], "at": "2026-11-20T10:01:00.000Z", "rating": 4],
                ["group": 2, "texts": groups[1], "at": "2026-11-20T10:02:00.000Z", "rating": NSNull()],
                ["group": 2, "texts": ["Another text"], "at": "2026-11-20T10:03:00.000Z", "rating": 1],
                // The same group at the same time again: the first kept, and said.
                ["group": 1, "texts": groups[0], "at": "2026-11-20T10:01:00.000Z", "rating": 1],
            ]),
        ])
        #expect(merged.status == 0, "\(merged.error)")
        #expect(
            merged.output.contains(
                "; 2 group reviews; 1 review of groups edited or gone since left out; 1 review of a group at a time it was reviewed already left out"
            ),
            "\(merged.output)")
        let stats = try #require(try library.json(["stats", "fixture"]) as? [String: Any])
        let cards = Dictionary(
            uniqueKeysWithValues: ((stats["groups"] as? [[String: Any]]) ?? []).map { ($0["group"] as! Int, $0) })
        // Easy on a new group: w3 = 8.2956, due 8 days after; good: w2 = 2.3065, 2 days.
        #expect(cards[1]?["due"] as? String == "2026-11-28T10:01:00Z", "\(cards)")
        #expect(cards[2]?["due"] as? String == "2026-11-22T10:02:00Z", "\(cards)")
        #expect(abs((cards[1]?["stability"] as? Double ?? 0) - 8.2956) < 1e-6)

        let refused = try library.run([
            "stats", "--import",
            try file([["group": 1, "texts": groups[0], "at": "2026-11-20T10:01:00Z", "rating": 5]]),
        ])
        #expect(
            refused.status != 0 && refused.error.contains("group 1: a review rated 5, not 1 (again) to 4 (easy)")
                && refused.error.split(separator: "\n").count == 1, "\(refused.error)")
        let tooManyTexts = try library.run([
            "stats", "--import",
            try file([["group": 1, "texts": Array(repeating: "a", count: 20_001), "at": "2026-11-20T10:01:00Z"]]),
        ])
        #expect(
            tooManyTexts.status != 0
                && tooManyTexts.error.contains("group 1: a review of 20001 texts, more than the 20000 phrases"),
            "\(tooManyTexts.error)")
    }

    /// Sessions of one file that review the same group each count: the group's schedule is the
    /// replay of all of them (computed once, after the last), as one import a session gives.
    @Test func reviewsOfOneGroupInSeveralSessionsOfAFileAreAllReplayed() throws {
        let library = try libraryWithFixtureLoop()
        let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let id = try #require(shown["id"] as? String)
        let texts = try #require(
            ((shown["groups"] as? [[String: Any]])?.first?["phrases"] as? [[String: Any]])?.compactMap {
                $0["text"] as? String
            })
        func session(_ start: String, rating: Int) -> [String: Any] {
            [
                "startedAt": start, "phrases": [["number": 1, "text": texts[0], "repetitions": 1, "seconds": 2.0]],
                "reviews": [["group": 1, "texts": texts, "at": start, "rating": rating]],
            ]
        }
        func write(_ sessions: [[String: Any]]) throws -> String {
            let path = Scratch.path("progress", extension: "json")
            try JSONSerialization.data(withJSONObject: [
                "format": "looplearn-progress", "version": 1, "loops": [["id": id, "sessions": sessions]],
            ]).write(to: URL(fileURLWithPath: path))
            return path
        }
        let first = session("2026-11-20T10:00:00.000Z", rating: 3)
        let second = session("2026-11-22T11:00:00.000Z", rating: 3)
        // The same library twice (the same loop id): one takes the sessions a file each, the
        // other both in one file.
        let together = TestLibrary()
        try FileManager.default.copyItem(atPath: library.path, toPath: together.path)
        #expect(try library.run(["stats", "--import", try write([first])]).status == 0)
        #expect(try library.run(["stats", "--import", try write([second])]).status == 0)
        #expect(try together.run(["stats", "--import", try write([first, second])]).status == 0)
        func card(_ library: TestLibrary) throws -> [String: Any]? {
            ((try library.json(["stats", "fixture"]) as? [String: Any])?["groups"] as? [[String: Any]])?.first {
                $0["group"] as? Int == 1
            }
        }
        let oneByOne = try #require(try card(library))
        let inOneFile = try #require(try card(together))
        #expect(inOneFile["lastReview"] as? String == "2026-11-22T11:00:00Z", "\(inOneFile)")
        #expect(inOneFile["due"] as? String == oneByOne["due"] as? String)
        #expect(inOneFile["stability"] as? Double == oneByOne["stability"] as? Double)
        #expect((inOneFile["due"] as? String ?? "") > "2026-11-23", "the second review moved it on: \(inOneFile)")
    }
}
