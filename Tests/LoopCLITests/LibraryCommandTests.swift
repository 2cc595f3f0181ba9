import Foundation
import LoopAudioFiles
import LoopTestSupport
import Testing

/// A library folder of its own for each test, named through LOOP_LIBRARY.
struct TestLibrary {
    var path = Scratch.path("cli-library")

    @discardableResult
    func run(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil, launcher: [String] = []
    ) throws -> LoopProcess {
        try LoopProcess.run(
            arguments, environment: ["LOOP_LIBRARY": path].merging(environment) { $1 }, input: input,
            launcher: launcher)
    }

    func json(_ arguments: [String]) throws -> Any {
        let result = try run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.error)")
        return try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    }
}

/// A take of the fixture's group 2 alone: the fixture from half a second before "Où est la
/// gare"; and that offset, in seconds, to place its clips in the fixture.
func groupTwoTake() throws -> (path: String, offset: Double) {
    let offset = Fixture.truth[3].start - 0.5
    var samples: [Float] = []
    var reader = try AudioFileReader(path: Fixture.path("clean.flac"))
    try reader.forEachMonoBlock { samples.append(contentsOf: $0) }
    let path = Scratch.path("group-2", extension: "wav")
    var writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 16_000, channelCount: 1)
    try writer.write(Array(samples[Int(offset * 16_000)...]))
    try writer.commit()
    return (path, offset)
}

struct LibraryCommandTests {
    @Test func newListShowHaveTheDocumentedShapes() throws {
        let library = TestLibrary()
        let created = try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac", "--tag", "Gare"])
        #expect(created.status == 0, "\(created.error)")
        #expect(created.output.contains("Added 'Fixture'"))

        let loops = try #require(try library.json(["list"]) as? [[String: Any]])
        #expect(loops.count == 1)
        let id = try #require(loops[0]["id"] as? String)
        #expect(loops[0]["title"] as? String == "Fixture" && loops[0]["language"] as? String == "fr")

        let shown = try #require(try library.json(["show", String(id.prefix(6))]) as? [String: Any])
        #expect(shown["id"] as? String == id)
        let groups = try #require(shown["groups"] as? [[String: Any]])
        let phrases = try #require(groups[1]["phrases"] as? [[String: Any]])
        #expect(phrases[0]["text"] as? String == "Où est la gare, s'il vous plaît ?")
        let start = try #require(phrases[0]["start"] as? Double)
        let end = try #require(phrases[0]["end"] as? Double)
        #expect(start < 5.6 && end > 7.24 && end < 7.75, "within the take, around the phrase: \(start)-\(end)")
        #expect(phrases[0].keys.contains("translation"))
    }

    @Test func listPagesWithALineSayingHowManyMoreAndJSONStreamsTheArray() throws {
        let library = TestLibrary()
        for title in ["Alpha", "Beta", "Gamma"] { try library.run(["new", "--text", "phrases.txt", "--title", title]) }
        let all = try library.run(["list"])
        #expect(all.output.split(separator: "\n").count == 3, "into a pipe: every loop")
        let two = try library.run(["list", "--limit", "2"])
        let lines = two.output.split(separator: "\n")
        #expect(
            lines.count == 3 && lines[0].contains("Alpha") && lines[1].contains("Beta")
                && lines[2] == "… 1 more (--all shows every one, --limit N that many)", "\(two.output)")
        let streamed = try library.run(["list", "--json", "--limit", "2"])
        #expect(streamed.output.hasPrefix("[\n{") && streamed.output.hasSuffix("}\n]\n"), "an object a line")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(streamed.output.utf8)) as? [[String: Any]])
        #expect(array.map { $0["title"] as? String } == ["Alpha", "Beta"])
        #expect((try library.json(["list", "--all"]) as? [Any])?.count == 3)
        #expect(try library.run(["list", "--limit", "2", "--all"]).error.contains("give --limit or --all, not both"))
    }

    @Test(.enabled(if: TerminalDriver.isAvailable))
    func onATerminalListShowsAScreenful() throws {
        let library = TestLibrary()
        for index in 1...12 {
            try library.run(["new", "--text", "-", "--title", "Loop \(index)"], input: "Bonjour.\n")
        }
        let terminal = try TerminalDriver(name: "loop-list", columns: 100, rows: 10)
        try terminal.type("clear; LOOP_LIBRARY='\(library.path)' '\(LoopProcess.executable.path)' list")
        let screen = try terminal.waitFor("more (--all")
        let listed = screen.split(separator: "\n").filter { $0.contains("  Loop ") }
        #expect(
            listed.count == 7 && screen.contains("… 5 more (--all shows every one"),
            "10 rows: 7 loops, the line of more, and the prompts\n\(screen)")
    }

    @Test func pastedTextComesFromStandardInput() throws {
        let library = TestLibrary()
        let pasted = try library.run(
            ["new", "--text", "-"], input: "# title: 咖啡\n\n我想喝咖啡。 | I would like a coffee.\n咖啡馆在哪里？\n")
        #expect(pasted.status == 0, "\(pasted.error)")
        #expect(pasted.output.contains("Added '咖啡'") && pasted.output.contains("2 phrases"))
        // The next step names this loop, not a placeholder: its id is known.
        let id = try #require((try library.json(["list"]) as? [[String: Any]])?.first?["id"] as? String)
        #expect(pasted.output.contains("no audio yet (`loop attach \(id.prefix(8)) --audio TAKE` adds a take)"))
        let hits = try #require(try library.json(["search", "哪里"]) as? [[String: Any]])
        #expect(hits.map { $0["text"] as? String } == ["咖啡馆在哪里？"])
        let folder = try library.run(["new", "--text", LoopProcess.fixtures])
        #expect(folder.status != 0 && folder.error == "error: \(LoopProcess.fixtures): is a folder, not a text file\n")
        #expect((try library.json(["list"]) as? [[String: Any]])?.count == 1, "nothing else was added")
    }

    @Test func aPhraseWithoutAudioShowsNullTimes() throws {
        let library = TestLibrary()
        try library.run(["new", "--text", "phrases.txt", "--title", "Silent"])
        let shown = try #require(try library.json(["show", "silent"]) as? [String: Any])
        let first = try #require(((shown["groups"] as? [[String: Any]])?[0]["phrases"] as? [[String: Any]])?[0])
        #expect(first["start"] is NSNull && first["end"] is NSNull)
    }

    @Test func searchFindsAcrossLoopsWithoutAccents() throws {
        let library = TestLibrary()
        try library.run(["new", "--text", "phrases.txt"])
        try library.run(["new", "--text", "../../loops/au-cafe/text.txt"])
        let hits = try #require(try library.json(["search", "CAFE"]) as? [[String: Any]])
        #expect(Set(hits.compactMap { $0["title"] as? String }) == ["Fixture", "Au café"])
        let only = try #require(try library.json(["search", "toilet", "--loop", "au cafe"]) as? [[String: Any]])
        #expect(only.count == 1 && only[0]["group"] as? Int == 3 && only[0]["phrase"] as? Int == 8)
    }

    /// An editor that runs `sed` with this script on the draft.
    func sedEditor(_ script: String) throws -> String {
        let editor = Scratch.path("editor", extension: "sh")
        try "#!/bin/sh\nsed -i '\(script)' \"$1\"\n".write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        return editor
    }

    func phrases(_ library: TestLibrary, _ loop: String) throws -> [[String: Any]] {
        let shown = try #require(try library.json(["show", loop]) as? [String: Any])
        return (shown["groups"] as? [[String: Any]] ?? []).flatMap { $0["phrases"] as? [[String: Any]] ?? [] }
    }

    @Test func aTypoFixKeepsTheClipWithItsMarkThroughShowDoctorExportAndImport() throws {
        let library = TestLibrary()
        try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"])
        let before = try phrases(library, "fixture")
        let edited = try library.run(
            ["edit", "fixture"],
            environment: ["EDITOR": try sedEditor("s/^Bonjour, madame\\.$/Bonsoir, madame./"), "VISUAL": ""])
        #expect(edited.status == 0, "\(edited.error)")
        #expect(
            edited.output.contains("1 changed phrase keeps its clip")
                && edited.output.contains("1  Bonsoir, madame.  (recorded as “Bonjour, madame.”)"), "\(edited.output)")
        #expect(!edited.output.contains("need audio"))

        let after = try phrases(library, "fixture")
        #expect(
            after[0]["text"] as? String == "Bonsoir, madame."
                && after[0]["recordedText"] as? String == "Bonjour, madame.")
        #expect(
            after[0]["start"] as? Double == before[0]["start"] as? Double
                && after[0]["end"] as? Double == before[0]["end"] as? Double)
        #expect(after.dropFirst().allSatisfy { $0["recordedText"] is NSNull })
        #expect(
            try library.run(["show", "fixture"]).output.contains("Bonsoir, madame.  (recorded as “Bonjour, madame.”)"))

        let doctor = try library.run(["doctor"])
        #expect(
            doctor.status == 0 && doctor.output.contains("Fixture (")
                && doctor.output.contains("phrase 1: Bonsoir, madame.  (recorded as “Bonjour, madame.”)"),
            "\(doctor.output)")
        let report = try #require(try library.json(["doctor"]) as? [String: Any])
        #expect(
            (report["clipsForEarlierText"] as? [[String: Any]])?.first?["recordedText"] as? String == "Bonjour, madame."
        )

        let bundle = Scratch.path("typo", extension: "loop")
        #expect(try library.run(["export", "fixture", "-o", bundle]).status == 0)
        let learner = TestLibrary()
        #expect(try learner.run(["import", bundle]).status == 0)
        #expect(try phrases(learner, "fixture")[0]["recordedText"] as? String == "Bonjour, madame.")

        // Recorded again: `attach` says how, `--changed` does it, and the marks go.
        let refused = try library.run(["attach", "fixture", "--audio", "clean.flac"])
        #expect(refused.status != 0 && refused.error.contains("--changed"), "\(refused.error)")
        let everyLine = try library.run(
            ["edit", "fixture"], environment: ["EDITOR": try sedEditor("/^[^#]/s/$/ !/"), "VISUAL": ""])
        #expect(everyLine.output.contains("5 changed phrases keep their clips"), "\(everyLine.output)")
        let attached = try library.run(["attach", "fixture", "--changed", "--audio", "clean.flac"])
        #expect(attached.status == 0, "\(attached.error)")
        #expect(try phrases(library, "fixture").allSatisfy { $0["recordedText"] is NSNull && $0["start"] is Double })
    }

    @Test func aLoopIsNamedByTheStartOfItsTitleWhateverTheCaseAccentsOrScript() throws {
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", "phrases.txt", "--title", "Übung macht"]).status == 0)
        #expect(try library.run(["new", "--text", "-", "--title", "駅で"], input: "駅はどこですか。\n").status == 0)
        for name in ["übung", "Ubung", "übung m"] {
            let shown = try library.run(["show", name])
            #expect(shown.status == 0 && shown.output.hasPrefix("Übung macht"), "\(name): \(shown.error)")
        }
        #expect(try library.run(["show", "駅"]).output.hasPrefix("駅で"))
        #expect(
            try library.run(["study", "駅", "--once", "--output", "null"]).error.contains("'駅で' has no audio yet"),
            "every command takes the same names")
        #expect(try library.run(["new", "--text", "phrases.txt", "--title", "Übung zwei"]).status == 0)
        let ambiguous = try library.run(["show", "ubung"])
        #expect(
            ambiguous.status != 0 && ambiguous.error.contains("'ubung' names 2 loops: Übung macht (")
                && ambiguous.error.contains("Übung zwei ("), "\(ambiguous.error)")
        let missing = try library.run(["show", "nothing"])
        #expect(
            missing.error
                == "error: no loop has an id, a title, or a title or title word starting 'nothing' (case and accents aside); `loop list` shows them\n",
            "\(missing.error)")
    }

    @Test func editKeepsUnchangedPhrasesAudioAndListsTheRest() throws {
        let library = TestLibrary()
        try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"])
        let editor = Scratch.path("editor", extension: "sh")
        try "#!/bin/sh\nsed -i 's/^Merci\\.$/Merci bien./' \"$1\"\n".write(
            toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let edited = try library.run(
            ["edit", "fixture", "--drop-changed-audio"], environment: ["EDITOR": editor, "VISUAL": ""])
        #expect(edited.status == 0, "\(edited.error)")
        #expect(edited.output.contains("1 phrase need audio") && edited.output.contains("3  Merci bien."))
        let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let first = try #require(((shown["groups"] as? [[String: Any]])?[0]["phrases"] as? [[String: Any]]))
        #expect(first[0]["start"] is Double && first[2]["start"] is NSNull)
    }

    /// A loop is named by a start of its id, its title, a start of its title or of any word
    /// of it; a second loop with a title already there is added with a warning that says how
    /// to tell them apart.
    @Test func loopsAreNamedByAnyWordOfTheirTitleAndASameTitleIsWarnedOf() throws {
        let library = TestLibrary()
        let text = Scratch.path("cafe", extension: "txt")
        try "# title: Au Café de la Gare\n\nUn café, s'il vous plaît.\n".write(
            toFile: text, atomically: true, encoding: .utf8)
        let other = Scratch.path("market", extension: "txt")
        try "# title: Le marché\n\nUn kilo de pommes.\n".write(toFile: other, atomically: true, encoding: .utf8)
        #expect(try library.run(["new", "--text", text]).status == 0)
        #expect(try library.run(["new", "--text", other]).status == 0)
        for name in ["cafe", "GARE", "au caf", "marche", "Le"] {
            let shown = try library.run(["show", name, "--json"])
            #expect(shown.status == 0, "'\(name)': \(shown.error)")
        }
        #expect((try library.json(["show", "gare"]) as? [String: Any])?["title"] as? String == "Au Café de la Gare")
        #expect(try library.run(["show", "pommes"]).status != 0, "a phrase's word is not a title's")

        let again = try library.run(["new", "--text", text])
        #expect(again.status == 0, "\(again.error)")
        #expect(
            again.error.contains("warning: a loop titled 'Au Café de la Gare' is already in the library")
                && again.error.contains("--title 'Au Café de la Gare 2'"),
            "\(again.error)")
        let ambiguous = try library.run(["show", "cafe"])
        #expect(ambiguous.status != 0 && ambiguous.error.contains("names 2 loops"), "\(ambiguous.error)")
        // The suggested command makes the title its own.
        let suggested = try #require(
            again.error.components(separatedBy: "loop edit ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let id = String(suggested.prefix { $0 != " " })
        #expect(try library.run(["edit", id, "--title", "Au Café de la Gare 2"]).status == 0)
        #expect(
            try library.run(["show", "Au Café de la Gare", "--json"]).status == 0, "the first is its title's again")
    }

    /// `attach --group G` on a group whose phrases all have audio replaces the group's audio
    /// with the new take; the other groups keep theirs.
    @Test func attachToAGroupWithAudioReplacesItsAudio() throws {
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"]).status == 0)
        let before = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let (groupTake, offset) = try groupTwoTake()

        let attached = try library.run(["attach", "fixture", "--audio", groupTake, "--group", "2"])
        #expect(attached.status == 0, "\(attached.error)")
        let id = try #require((before["id"] as? String)?.prefix(8))
        #expect(
            attached.output == "Cut the take onto 2 phrases of 'Fixture' (\(id)); every phrase has audio now\n",
            "attach says what it did: \(attached.output)")
        let after = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        func starts(_ shown: [String: Any], group: Int) -> [Double?] {
            (((shown["groups"] as? [[String: Any]])?[group]["phrases"] as? [[String: Any]]) ?? []).map {
                $0["start"] as? Double
            }
        }
        #expect(starts(before, group: 0) == starts(after, group: 0), "group 1 keeps its audio")
        let replaced = starts(after, group: 1)
        #expect(
            replaced.count == 2 && replaced != starts(before, group: 1),
            "group 2's clips come from the new take: \(replaced)")
        for (start, truth) in zip(replaced, Fixture.truth.suffix(2)) {
            #expect(
                abs((start ?? -9) + offset - truth.start) < 0.15,
                "\(String(describing: start)) + \(offset) for \(truth)")
        }
        #expect(try library.run(["doctor"]).status == 0)
    }

    @Test func aBrokenEditChangesNothingAndKeepsTheText() throws {
        let library = TestLibrary()
        try library.run(["new", "--text", "phrases.txt"])
        let editor = Scratch.path("editor", extension: "sh")
        try "#!/bin/sh\nprintf '| only a translation\\n' > \"$1\"\n".write(
            toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let edited = try library.run(["edit", "fixture"], environment: ["EDITOR": editor, "VISUAL": ""])
        #expect(edited.status != 0)
        #expect(edited.error.contains(":1: a phrase needs text") && edited.error.contains("your text is kept"))
        #expect(((try library.json(["list"]) as? [[String: Any]])?.first?["phrases"] as? Int) == 5)
    }

    @Test func adjustMovesAClipAndRefusesToLeaveTheTake() throws {
        let library = TestLibrary()
        try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"])
        #expect(try library.run(["adjust", "fixture", "2", "--start", "2.1", "--end", "3.9"]).status == 0)
        let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let second = try #require(((shown["groups"] as? [[String: Any]])?[0]["phrases"] as? [[String: Any]])?[1])
        #expect(second["start"] as? Double == 2.1 && second["end"] as? Double == 3.9)
        let shifted = try library.run(["adjust", "fixture", "2", "--shift", "-250"])
        #expect(shifted.status == 0)
        // Both boundaries moved 250 ms earlier, and what plays is the take's samples there.
        let moved = try #require(try library.json(["show", "fixture", "--json"]) as? [String: Any])
        let secondMoved = try #require(((moved["groups"] as? [[String: Any]])?[0]["phrases"] as? [[String: Any]])?[1])
        #expect(secondMoved["start"] as? Double == 1.85 && secondMoved["end"] as? Double == 3.65, "\(secondMoved)")
        let track = Scratch.path("shifted", extension: "wav")
        #expect(try library.run(["play", "fixture", "--phrase", "2", "--output", track]).status == 0)
        var played: [Float] = []
        var take: [Float] = []
        var reader = try AudioFileReader(path: track)
        try reader.forEachBlock { block, _ in played.append(contentsOf: block) }
        var original = try AudioFileReader(path: LoopProcess.fixtures + "/clean.flac")
        try original.forEachBlock { block, _ in take.append(contentsOf: block) }
        let expected = Array(take[29_600..<58_400])
        #expect(
            played.count == expected.count && zip(played, expected).allSatisfy { abs($0 - $1) < 1.0 / 16_000 },
            "the take's samples from 1.85 s to 3.65 s")
        let outside = try library.run(["adjust", "fixture", "2", "--end", "60"])
        #expect(
            outside.status != 0
                && outside.error.hasPrefix("error: the clip must start before it ends and lie within the take"))
    }

    @Test func removeAsksUnlessYesThenGarbageCollectionFreesTheAudio() throws {
        let library = TestLibrary()
        try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"])
        let refused = try library.run(["rm", "fixture"])
        #expect(refused.status != 0 && refused.error.contains("add --yes"))
        #expect(try library.run(["rm", "fixture", "--yes"]).status == 0)
        let collected = try #require(try library.json(["gc"]) as? [String: Any])
        #expect((collected["removed"] as? [String])?.count == 1)
        #expect(try library.run(["doctor"]).status == 0)
    }

    @Test func doctorFailsWithWhatToDoWhenAudioIsMissing() throws {
        let library = TestLibrary()
        try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"])
        #expect(try library.run(["doctor"]).output.hasPrefix("ok: 1 loops, 5 phrases, 1 audio files"))
        let audio = library.path + "/audio"
        let shard = try #require(try FileManager.default.contentsOfDirectory(atPath: audio).first { $0 != ".incoming" })
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: audio + "/" + shard).first)
        try FileManager.default.removeItem(atPath: audio + "/" + shard + "/" + file)
        let report = try library.run(["doctor"])
        #expect(report.status != 0)
        #expect(
            report.output.contains("missing (audio of 'Fixture')") && report.output.contains("fix: restore the file"))
    }

    @Test func theLibraryFlagWinsOverTheEnvironmentAndXDGIsTheDefault() throws {
        let library = TestLibrary()
        let other = Scratch.path("cli-other")
        try library.run(["new", "--text", "phrases.txt", "--library", other])
        #expect(FileManager.default.fileExists(atPath: other + "/library.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: library.path + "/library.sqlite"))
        let data = Scratch.path("cli-xdg")
        let result = try LoopProcess.run(["list"], environment: ["LOOP_LIBRARY": "", "XDG_DATA_HOME": data])
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: data + "/loop/library.sqlite"))
    }
}

/// A long take and its text: the fixture read `copies` times over.
func makeLongTake(copies: Int) throws -> (audio: String, text: String) {
    let folder = Scratch.path("long")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var samples: [Float] = []
    var reader = try AudioFileReader(path: LoopProcess.fixtures + "/clean.flac")
    try reader.forEachMonoBlock { samples.append(contentsOf: $0) }
    var writer = try AudioFileWriter(path: folder + "/take.wav", format: .wav, sampleRate: 16_000, channelCount: 1)
    for _ in 0..<copies { try writer.write(samples) }
    try writer.commit()
    let phrases = try String(contentsOfFile: LoopProcess.fixtures + "/phrases.txt", encoding: .utf8)
        .split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.joined(separator: "\n")
    try (["# title: Long"] + Array(repeating: phrases, count: copies)).joined(separator: "\n\n").write(
        toFile: folder + "/text.txt", atomically: true, encoding: .utf8)
    return (folder + "/take.wav", folder + "/text.txt")
}

@Suite(.serialized)
struct LibraryRobustnessTests {
    @Test func twoImportsAndAReaderAtOnceAllSucceed() throws {
        let library = TestLibrary()
        let long = try makeLongTake(copies: 30)
        try library.run(["list"]) // create the library first, as a user would have
        let environment = ["LOOP_LIBRARY": library.path]
        let importers = try (0..<2).map { _ in
            try LoopProcess.start(["new", "--text", long.text, "--audio", long.audio], environment: environment)
        }
        var readerFailures: [String] = []
        let deadline = Date().addingTimeInterval(300)
        while importers.contains(where: { $0.process.isRunning }) && Date() < deadline {
            let listed = try library.run(["list", "--json"])
            if listed.status != 0 { readerFailures.append(listed.error) }
        }
        #expect(readerFailures.isEmpty, "\(readerFailures)")
        for importer in importers {
            let result = importer.finish()
            #expect(result.status == 0, "\(result.error)")
            #expect(!result.error.contains("locked"))
        }
        let loops = try #require(try library.json(["list"]) as? [[String: Any]])
        #expect(
            loops.count == 2 && loops.allSatisfy { $0["phrases"] as? Int == 150 && $0["needingAudio"] as? Int == 0 })
        #expect(try library.run(["doctor"]).status == 0)
    }

    /// Runs `arguments` killed (SIGKILL, as `kill -9` would) at the named step, then checks the
    /// library opens and checks clean; returns how many loops it holds.
    func killed(
        at step: String, _ arguments: [String], library: TestLibrary, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        let run = try LoopProcess.run(
            arguments, environment: ["LOOP_LIBRARY": library.path, "LOOP_TEST_STOP_AT": step])
        #expect(
            run.killedBy == SIGKILL, "killed at \(step) (status \(run.status)): \(run.error)",
            sourceLocation: sourceLocation)
        let doctor = try library.run(["doctor", "--json"])
        #expect(
            doctor.status == 0, "after a kill at \(step): \(doctor.output) \(doctor.error)",
            sourceLocation: sourceLocation)
        let loops = try #require(try library.json(["list"]) as? [[String: Any]], sourceLocation: sourceLocation)
        for loop in loops {
            #expect(
                loop["needingAudio"] as? Int == 0, "a loop is whole or absent: \(loop)", sourceLocation: sourceLocation)
        }
        return loops.count
    }

    @Test func killingAnImportAtEachStepLeavesALibraryThatChecksCleanWithTheLoopWholeOrAbsent() throws {
        let long = try makeLongTake(copies: 10)
        let library = TestLibrary()
        try library.run(["list"])
        let authoring = ["new", "--text", long.text, "--audio", long.audio]
        // Before the rows commit, the loop is absent; the take may be left in the library.
        for step in ["take.received", "audio.renamed", "loop.before-commit"] {
            #expect(try killed(at: step, authoring, library: library) == 0, "killed at \(step): no loop")
        }
        // Killed just after the commit, the loop is there, whole.
        #expect(try killed(at: "loop.committed", authoring, library: library) == 1)

        // A bundle of it, imported into another library and killed at each of its steps.
        let bundle = Scratch.path("killed", extension: "loop")
        #expect(try library.run(["export", "long", "-o", bundle]).status == 0)
        let learner = TestLibrary()
        try learner.run(["list"])
        for step in ["bundle.extracted", "import.verified", "audio.renamed", "import.before-commit"] {
            #expect(
                try killed(at: step, ["import", bundle], library: learner) == 0, "killed at \(step): nothing imported")
        }
        #expect(try killed(at: "import.committed", ["import", bundle], library: learner) == 1)

        // And after all that, an import runs through on the same library.
        #expect(try library.run(["new", "--text", long.text, "--audio", long.audio]).status == 0)
        #expect(try library.run(["doctor"]).status == 0)
        // What the kills left behind is only ever harmless, and gc clears it.
        for target in [library, learner] {
            #expect(try target.run(["gc"]).status == 0)
            let after = try #require(try target.json(["doctor"]) as? [String: Any])
            #expect(
                (after["orphans"] as? [String])?.isEmpty == true && (after["leftovers"] as? [String])?.isEmpty == true,
                "\(after)")
        }
    }
}
