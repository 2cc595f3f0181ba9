import Foundation
import LoopTestSupport
import Testing

/// `loop review`: what is due today, studied and rated; reviews kept per group by its text.
struct ReviewCommandTests {
    /// The fixture's groups as `loop stats LOOP --json` says they stand: 1-based group → object.
    static func groups(_ library: TestLibrary) throws -> [Int: [String: Any]] {
        let stats = try #require(try library.json(["stats", "fixture"]) as? [String: Any])
        let groups = (stats["groups"] as? [[String: Any]]) ?? []
        return Dictionary(uniqueKeysWithValues: groups.map { ($0["group"] as! Int, $0) })
    }

    static func queue(_ library: TestLibrary, _ extra: [String] = []) throws -> [[String: Any]] {
        let queue = try #require(try library.json(["review", "--json"] + extra) as? [String: Any])
        return (queue["items"] as? [[String: Any]]) ?? []
    }

    static func date(_ value: Any?) -> Date? {
        (value as? String).flatMap { try? Date($0, strategy: .iso8601) }
    }

    /// An editor that replaces the text with `text`.
    static func editor(writing text: String) throws -> String {
        let replacement = Scratch.path("text", extension: "txt")
        try text.write(toFile: replacement, atomically: true, encoding: .utf8)
        let editor = Scratch.path("editor", extension: "sh")
        try "#!/bin/sh\ncat '\(replacement)' > \"$1\"\n".write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        return editor
    }

    static let fixtureText = """
        # title: Fixture
        # language: fr

        Bonjour, madame.
        Un café, s'il vous plaît.
        Merci.

        Où est la gare, s'il vous plaît ?
        À droite, puis tout droit.

        """

    @Test func newGroupsAreDueThenEachRatingGivesTheNextDateFSRSGives() throws {
        let library = try libraryWithFixtureLoop()
        let before = try Self.queue(library)
        #expect(before.map { $0["kind"] as? String } == ["new", "new"])
        #expect(before.map { $0["group"] as? Int } == [1, 2])
        #expect(try library.run(["review", "--list"]).output.contains("Today: 0 overdue, 0 due, 2 new"))

        // Without a terminal: each group played once, rated as --rate says.
        let reviewed = try library.run(["review", "--output", "null", "--rate", "good", "--new", "1"])
        #expect(reviewed.status == 0, "\(reviewed.error)")
        #expect(reviewed.output.contains("Fixture · group 1: good, next review in 2 days"), "\(reviewed.output)")
        let groups = try Self.groups(library)
        let first = try #require(groups[1])
        // FSRS 6, a new group rated good: stability w2 = 2.3065 days, so due in 2 days.
        #expect(abs((first["stability"] as? Double ?? 0) - 2.3065) < 1e-6)
        let interval = try #require(Self.date(first["due"])).timeIntervalSince(
            try #require(Self.date(first["lastReview"])))
        #expect(abs(interval - 2 * 86_400) < 1)
        #expect(groups[2] == nil, "group 2 not studied")
        // Group 1 is not due again today; group 2 is still new.
        #expect(try Self.queue(library).map { $0["group"] as? Int } == [2])
        // The day's allowance: with one new group a day, the one begun today fills it.
        #expect(try library.run(["review", "--new-per-day", "1"]).output.contains("1 new groups a day"))
        #expect(try Self.queue(library).isEmpty)
        #expect(try library.run(["review", "--list"]).output.contains("Nothing to review today"))

        // Hard on a new group: its learning step again in 15 minutes, so due again today.
        let hard = try library.run(["review", "--output", "null", "--rate", "hard", "--new", "1"])
        #expect(hard.output.contains("Fixture · group 2: hard, next review today"), "\(hard.output)")
        let second = try #require(try Self.groups(library)[2])
        #expect(second["state"] as? String == "learning")
        #expect(
            abs(
                try #require(Self.date(second["due"])).timeIntervalSince(try #require(Self.date(second["lastReview"])))
                    - 900) < 1)
        #expect(try Self.queue(library).map { $0["kind"] as? String } == ["due"])
        let stats = try #require(try library.json(["stats"]) as? [String: Any])
        let reviews = try #require(stats["reviews"] as? [String: Any])
        #expect(reviews["reviewsTotal"] as? Int == 2 && reviews["streak"] as? Int == 1)
        #expect(reviews["dueToday"] as? Int == 1 && reviews["dueThisWeek"] as? Int == 2)
    }

    /// Round 5: a review made while the clock read 9999-12-31 kept a due date of 10000-01-08,
    /// and every later `review`, `review --list` and `stats` died reading it; changing the
    /// scheduler gave it again and `doctor` passed it.
    @Test func aClockPastWhatALibraryKeepsIsRefusedAndWhatItLeftIsRepaired() throws {
        let library = try libraryWithFixtureLoop()
        let future = ["/usr/bin/faketime", "-f", "@9999-12-31 23:00:00"]
        let refusal =
            "error: the clock reads 9999-12-31T23:00:00Z, not a time a review can be made at (1970 to 9900-01-23): set the clock right, then study again (nothing was kept)\n"
        let review = try library.run(["review", "--output", "null", "--rate", "easy"], launcher: future)
        #expect(review.status != 0 && review.error == refusal, "\(review.error)")
        let study = try library.run(["study", "fixture", "--once", "--output", "null"], launcher: future)
        #expect(study.status != 0 && study.error == refusal, "\(study.error)")
        #expect(try Self.groups(library).isEmpty, "nothing was kept")

        // What an earlier version kept from such a clock, beside a review made today.
        #expect(try library.run(["review", "--output", "null", "--rate", "good", "--new", "1"]).status == 0)
        let database = library.path + "/library.sqlite"
        let key = try sqlite3(database, "SELECT groupKey FROM groupReviewState")
        _ = try sqlite3(
            database,
            """
            INSERT INTO groupReview (loopId, groupKey, rating, reviewedAt) SELECT loopId, groupKey, 4, '9999-12-31 23:00:00.073' FROM groupReviewState;
            UPDATE groupReviewState SET due = '10000-01-08 23:00:00.073', lastReview = '9999-12-31 23:00:00.073';
            """)
        #expect(key.count == 32)
        let list = try library.run(["review", "--list"])
        #expect(list.status == 0 && list.output.contains("overdue Fixture · group 1"), "\(list.output)\(list.error)")
        #expect(try library.run(["stats", "fixture"]).status == 0)
        let doctor = try library.run(["doctor"])
        #expect(doctor.status != 0)
        #expect(
            doctor.output.contains(
                "problem: 1 review of 1 group dated after today, or in no year a library keeps (the latest 9999-12-31 23:00:00.073)"
            ), "\(doctor.output)")
        #expect(doctor.output.contains("`loop doctor --repair`"))

        // Changing the scheduler schedules from the review made today alone.
        #expect(try library.run(["review", "--scheduler", "ladder"]).status == 0)
        let rescheduled = try #require(Self.date(try Self.groups(library)[1]?["due"]))
        #expect(rescheduled > Date() && rescheduled < Date().addingTimeInterval(86_400), "\(rescheduled)")

        let repaired = try library.run(["doctor", "--repair"])
        #expect(repaired.status == 0, "\(repaired.output)\(repaired.error)")
        #expect(repaired.output.hasPrefix("Removed 1 review dated after today; 1 group scheduled again\n"))
        #expect(try sqlite3(database, "SELECT COUNT(*) FROM groupReview") == "1", "today's review is kept")
        #expect(try library.run(["doctor"]).status == 0)
    }

    @Test func studyingAGroupThroughCountsAsAReviewRatedGood() throws {
        let library = try libraryWithFixtureLoop()
        #expect(try library.run(["study", "fixture", "--groups", "2", "--once", "--output", "null"]).status == 0)
        let groups = try Self.groups(library)
        #expect(groups.keys.sorted() == [2], "only the group studied")
        // Good on a new group: stability w2 = 2.3065, due in 2 days.
        #expect(abs((groups[2]?["stability"] as? Double ?? 0) - 2.3065) < 1e-6)
        #expect(try Self.queue(library).map { $0["group"] as? Int } == [1])
    }

    @Test func reviewsFollowEachGroupByItsTextThroughAnEdit() throws {
        let library = try libraryWithFixtureLoop()
        #expect(try library.run(["review", "--output", "null", "--rate", "easy"]).status == 0)
        let before = try Self.groups(library)
        #expect(before.keys.sorted() == [1, 2])

        // A new group goes in front: the others keep their reviews at their new places. Group
        // 1's last phrase changes (its clip is kept, marked as recorded for the earlier text):
        // its reviews start anew.
        let edited =
            Self.fixtureText.replacingOccurrences(of: "Merci.\n", with: "Merci beaucoup.\n")
            .replacingOccurrences(of: "# language: fr\n\n", with: "# language: fr\n\nSalut !\n\n")
        let result = try library.run(
            ["edit", "fixture"], environment: ["EDITOR": try Self.editor(writing: edited), "VISUAL": ""])
        #expect(result.status == 0, "\(result.error)")
        #expect(
            result.output.contains("1 group you were reviewing changed its text and starts its reviews anew"),
            "\(result.output)")
        let after = try Self.groups(library)
        #expect(after.keys.sorted() == [3], "the old group 2, now third, keeps its reviews; the changed one has none")
        #expect(after[3]?["due"] as? String == before[2]?["due"] as? String)
        #expect(try Self.queue(library).map { $0["group"] as? Int } == [2], "the changed group is new again")
        #expect(try library.run(["doctor"]).status == 0)
    }

    @Test func aNewerRevisionImportedKeepsTheReviewsOfGroupsWhoseTextDidNotChange() throws {
        let author = try libraryWithFixtureLoop()
        let bundle = Scratch.path("fixture", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let learner = TestLibrary()
        #expect(try learner.run(["import", bundle]).status == 0)
        #expect(try learner.run(["review", "--output", "null"]).status == 0)
        let before = try Self.groups(learner)
        #expect(before.keys.sorted() == [1, 2])

        // The author changes group 2's second phrase: revision 2.
        let changed = Self.fixtureText.replacingOccurrences(of: "puis tout droit", with: "puis à gauche")
        #expect(
            try author.run(
                ["edit", "fixture"], environment: ["EDITOR": try Self.editor(writing: changed), "VISUAL": ""]
            )
            .status == 0)
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let updated = try learner.run(["import", bundle])
        #expect(
            updated.status == 0
                && updated.output.contains("; 1 group you were reviewing changed its text and starts its reviews anew"),
            "\(updated.output) \(updated.error)")
        let after = try Self.groups(learner)
        #expect(after.keys.sorted() == [1] && after[1]?["due"] as? String == before[1]?["due"] as? String)

        // Reviews are the learner's: a bundle exported from the learner's library holds none.
        let again = Scratch.path("again", extension: "loop")
        #expect(try learner.run(["export", "fixture", "-o", again]).status == 0)
        let third = TestLibrary()
        #expect(try third.run(["import", again]).status == 0)
        #expect(try Self.groups(third).isEmpty)
    }

    @Test func aGroupCutAgainOrAClipNudgedKeepsEveryGroupsReviews() throws {
        let library = try libraryWithFixtureLoop()
        #expect(try library.run(["review", "--output", "null"]).status == 0)
        let before = try Self.groups(library)
        #expect(before.keys.sorted() == [1, 2])
        let take = try groupTwoTake()
        let cut = try library.run(["attach", "fixture", "--audio", take.path, "--group", "2"])
        #expect(cut.status == 0, "\(cut.error)")
        #expect(try library.run(["adjust", "fixture", "1", "--shift", "0.05"]).status == 0)
        let after = try Self.groups(library)
        #expect(after.mapValues { $0["due"] as? String } == before.mapValues { $0["due"] as? String })
    }

    @Test func theLadderSchedulerReschedulesEveryGroupFromItsReviews() throws {
        let library = try libraryWithFixtureLoop()
        #expect(try library.run(["review", "--output", "null", "--new", "1"]).status == 0)
        let fsrs = try #require(try Self.groups(library)[1])
        let changed = try library.run(["review", "--scheduler", "ladder"])
        #expect(changed.output.contains("a fixed ladder") && changed.output.contains("1 group rescheduled"))
        let ladder = try #require(try Self.groups(library)[1])
        let interval = try #require(Self.date(ladder["due"])).timeIntervalSince(
            try #require(Self.date(ladder["lastReview"])))
        #expect(abs(interval - 6 * 3600) < 1, "good on a new group: the ladder's first rung, 6 hours")
        #expect(fsrs["due"] as? String != ladder["due"] as? String)
        let refused = try library.run(["review", "--retention", "0.5"])
        #expect(refused.status != 0 && refused.error.contains("--retention takes 0.7 to 0.99"))
    }

    @Test(.enabled(if: TerminalDriver.isAvailable))
    func inTheStudyViewKeysOneToFourRate() throws {
        let library = try libraryWithFixtureLoop()
        let environment = alsaEnvironment(output: Scratch.path("alsa", extension: "raw")).merging([
            "LOOP_LIBRARY": library.path, "TERM": "xterm-256color",
        ]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-review", columns: 100, rows: 30)
        try terminal.type("\(exports); '\(LoopProcess.executable.path)' review --new 1; echo \"exit=$?\"")
        try terminal.waitFor("review 1 of 1")
        try terminal.waitFor("Rate it to go on")
        try terminal.press("1")
        var screen = try terminal.waitFor("exit=0", seconds: 20)
        #expect(screen.contains("Fixture · group 1: again, next review today"), "\(screen)")

        // `loop study`: a group studied through is rated when the session ends.
        try terminal.type(
            "\(exports); '\(LoopProcess.executable.path)' study fixture --groups 2 --gap-factor 0; echo \"exit=$?\"")
        try terminal.waitFor("Group 2")
        try terminal.waitFor("round 2", seconds: 30)
        try terminal.press("q")
        try terminal.waitFor("How well did you know group 2?")
        try terminal.press("4")
        screen = try terminal.waitFor("exit=0", seconds: 20)
        let groups = try Self.groups(library)
        #expect(groups[1]?["state"] as? String == "learning", "again: back in 10 minutes")
        // Easy on a new group: stability w3 = 8.2956, due in 8 days.
        #expect(abs((groups[2]?["stability"] as? Double ?? 0) - 8.2956) < 1e-6, "\(groups)")
    }
}
