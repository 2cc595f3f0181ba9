import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopTestSupport
import Testing

/// `loop edit LOOP --phrases` in a real terminal (tmux), ALSA's file plugins standing in for the
/// sound card both ways: what it plays goes to a file, what it records comes from one.
struct PhraseEditorScreenTests {
    /// "Merci." read once (from the fixture take) between stretches of silence, as raw float32
    /// at 16 kHz: what the microphone hears when the phrase is recorded again.
    func preparedMicrophone() throws -> String {
        var reader = try AudioFileReader(path: Fixture.path("clean.flac"))
        try reader.seek(toFrame: 60_000)
        var phrase = [Float](repeating: 0, count: 19_200)
        let read = try phrase.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
        let samples = [Float](repeating: 0, count: 32_000) + phrase.prefix(read) + [Float](repeating: 0, count: 64_000)
        let path = Scratch.path("microphone", extension: "raw")
        try samples.withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: path)) }
        return path
    }

    @Test(.enabled(if: TerminalDriver.isAvailable))
    func theEditorFixesABadCutRecordsAPhraseAgainSplitsMergesAndSavesOnce() throws {
        let library = try libraryWithFixtureLoop()
        // A badly cut phrase: its start inside its first word.
        #expect(try library.run(["adjust", "fixture", "2", "--start", "2.5"]).status == 0)
        let played = Scratch.path("played", extension: "raw")
        let duplex = LoopProcess.packageRoot.appendingPathComponent("Resources/alsa/file-duplex.conf").path
        let environment = [
            "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + duplex, "LOOP_ALSA_OUTPUT": played,
            "LOOP_ALSA_INPUT": try preparedMicrophone(),
            "LOOP_LIBRARY": library.path, "TERM": "xterm-256color",
        ]
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-edit", columns: 110, rows: 40)
        try terminal.type(
            "\(exports); cd '\(LoopProcess.fixtures)'; '\(LoopProcess.executable.path)' edit fixture --phrases --rate 16000; echo \"exit=$?\""
        )
        try terminal.waitFor("phrase 1 of 5 · group 1")
        try terminal.waitFor("split point: │Bonjour, madame.")

        // The bad cut, fixed in five keys: to phrase 2 (heard), the second before its start
        // (heard: the word's start is there), its start 3 × 100 ms earlier, then 10 ms later.
        try terminal.press("Down")
        try terminal.waitFor("phrase 2 of 5 · group 1 · 2.500 – ")
        try terminal.press("B")
        try terminal.waitFor("the second before the start")
        // Heard through ALSA: exactly the take's second before the cut, sample for sample.
        // (Each sound opens the device afresh, which empties the file.)
        try terminal.waitUntil { _ in RegularFile.size(played) == 16_000 * 4 }
        Thread.sleep(forTimeInterval: 0.2)
        var take = try AudioFileReader(path: Fixture.path("clean.flac"))
        try take.seek(toFrame: 40_000 - 16_000)
        var expected = [Float](repeating: 0, count: 16_000)
        _ = try expected.withUnsafeMutableBufferPointer { try take.read(into: $0) }
        let heard = try Data(contentsOf: URL(fileURLWithPath: played)).withUnsafeBytes {
            Array($0.bindMemory(to: Float.self))
        }
        #expect(
            heard.count == 16_000 && zip(heard, expected).allSatisfy { abs($0 - $1) < 1e-6 },
            "the second before 2.500 s")
        for _ in 0..<3 { try terminal.press("<") }
        try terminal.waitFor("phrase 2 of 5 · group 1 · 2.200 – ")
        try terminal.press(".") // and 10 ms later
        var screen = try terminal.waitFor("2.210 – ")
        #expect(screen.contains("unsaved changes"))
        #expect(screen.contains("┃") && screen.contains("▇"), "a waveform strip with the clip's edges")
        // Heard through ALSA: the nudged clip (1.5 s) reaches the device's file.
        try terminal.waitUntil { _ in (RegularFile.size(played) ?? 0) > 16_000 * 4 }

        // Phrase 3 recorded again, from the prepared microphone.
        try terminal.press("Down")
        try terminal.waitFor("▶ Merci.")
        try terminal.press("r")
        screen = try terminal.waitFor("recorded again", seconds: 20)
        #expect(screen.contains("phrase 3 of 5 · group 1") && screen.contains("new take"))

        // Phrase 4 split after "gare,": the text cursor 15 characters in.
        try terminal.press("Down")
        try terminal.waitFor("▶ Où est la gare, s'il vous plaît ?")
        for _ in 0..<15 { try terminal.press("Right") }
        try terminal.waitFor("split point: Où est la gare,│ s'il vous plaît ?")
        try terminal.press("x")
        screen = try terminal.waitFor("split in two")
        #expect(
            screen.contains("▶ Où est la gare,\n") && screen.contains("  s'il vous plaît ?\n")
                && screen.contains("of 6"))

        // Phrases 1 and 2 merged; undone and redone.
        try terminal.press("Up", "Up", "Up", "Up")
        try terminal.waitFor("phrase 1 of 6")
        try terminal.press("m")
        try terminal.waitFor("▶ Bonjour, madame. Un café, s'il vous plaît.")
        try terminal.press("u")
        try terminal.waitFor("▶ Bonjour, madame.\n")
        try terminal.press("U")
        try terminal.waitFor("▶ Bonjour, madame. Un café, s'il vous plaît.")

        // Leaving asks first; y saves.
        try terminal.press("q")
        try terminal.waitFor("Save your changes?")
        try terminal.press("y")
        screen = try terminal.waitFor("exit=0")
        #expect(screen.contains("Saved 'Fixture': 5 phrases in 2 groups (revision 3)"))

        let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let groups = try #require(shown["groups"] as? [[String: Any]])
        let phrases = groups.flatMap { ($0["phrases"] as? [[String: Any]]) ?? [] }
        #expect(
            phrases.map { $0["text"] as? String } == [
                "Bonjour, madame. Un café, s'il vous plaît.", "Merci.", "Où est la gare,", "s'il vous plaît ?",
                "À droite, puis tout droit.",
            ])
        // The split fell in the pause after "gare," (5.59-7.25 s is the phrase read whole).
        let splitAt = try #require(phrases[2]["end"] as? Double)
        #expect(splitAt > 6.0 && splitAt < 6.7 && phrases[3]["start"] as? Double == splitAt, "\(splitAt)")
        // Phrase 2 ("Merci.") is now cut from the new recording: 2.25-2.71 s into it.
        let merci = (try #require(phrases[1]["start"] as? Double), try #require(phrases[1]["end"] as? Double))
        #expect(merci.0 > 1.9 && merci.0 < 2.3 && merci.1 > 2.7 && merci.1 < 3.1, "\(merci)")
        let doctor = try library.run(["doctor"])
        // Phrases 1 and 2 lay in order in one take: merged, they are one range of it.
        #expect(phrases[0]["start"] as? Double ?? 0 < 0.4 && phrases[0]["end"] as? Double ?? 0 > 3.7)
        #expect(
            doctor.output.hasPrefix("ok: 1 loops, 5 phrases, 2 audio files"),
            "the take and the new recording: \(doctor.output)")
    }

    @Test(.enabled(if: TerminalDriver.isAvailable))
    func aSaveKilledBeforeItsTransactionLeavesTheLoopAsItWas() throws {
        let library = try libraryWithFixtureLoop()
        let before = try library.run(["show", "fixture", "--json"]).output
        let environment = alsaEnvironment(output: "/dev/null").merging([
            "LOOP_LIBRARY": library.path, "LOOP_TEST_STOP_AT": "phrases.before-commit",
        ]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-edit", columns: 100, rows: 30)
        try terminal.type(
            "\(exports); cd '\(LoopProcess.fixtures)'; '\(LoopProcess.executable.path)' edit fixture --phrases; echo \"exit=$?\""
        )
        try terminal.waitFor("phrase 1 of 5")
        // Phrases 1 and 2 lie in one take apart: merged into one range (no new take), saved, killed.
        try terminal.press("Down", "Down")
        try terminal.waitFor("phrase 3 of 5")
        try terminal.press("m")
        try terminal.waitFor("merged with the next phrase")
        try terminal.press("q")
        try terminal.waitFor("Save your changes?")
        try terminal.press("y")
        try terminal.waitFor("exit=137")
        #expect(try library.run(["doctor"]).status == 0)
        #expect(try library.run(["show", "fixture", "--json"]).output == before, "nothing of the save was written")
    }

    @Test(.enabled(if: TerminalDriver.isAvailable))
    func quittingWithoutSavingChangesNothing() throws {
        let library = try libraryWithFixtureLoop()
        let before = try library.run(["show", "fixture", "--json"]).output
        let environment = alsaEnvironment(output: "/dev/null").merging(["LOOP_LIBRARY": library.path]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        // 80 columns: every key the editor names is shown whole, wrapped, none cut off.
        let terminal = try TerminalDriver(name: "loop-edit", columns: 80, rows: 30)
        try terminal.type(
            "\(exports); cd '\(LoopProcess.fixtures)'; '\(LoopProcess.executable.path)' edit fixture --phrases; echo \"exit=$?\""
        )
        try terminal.waitFor("phrase 1 of 5")
        let screen = try terminal.screen()
        for key in ["d next doubtful cut", "_ + end −/+100 ms", "r record again", "U redo", "w save", "q quit"] {
            #expect(screen.contains(key), "\(key) in \(screen)")
        }
        #expect(!screen.split(separator: "\n").contains { $0.contains("   ") && $0.hasSuffix("…") }, "\(screen)")
        try terminal.press("+")
        try terminal.waitFor("unsaved changes")
        try terminal.press("q")
        try terminal.waitFor("Save your changes?")
        try terminal.press("n")
        try terminal.waitFor("exit=0")
        #expect(try library.run(["show", "fixture", "--json"]).output == before)

        // w saves at once and editing goes on; leaving then asks nothing.
        try terminal.type("clear; '\(LoopProcess.executable.path)' edit fixture --phrases; echo \"exit=$?\"")
        try terminal.waitFor("phrase 1 of 5")
        try terminal.press("+")
        try terminal.waitFor("unsaved changes")
        try terminal.press("w")
        try terminal.waitFor("saved")
        try terminal.waitUntil { !$0.contains("unsaved changes") }
        try terminal.press("+")
        try terminal.waitFor("unsaved changes")
        try terminal.press("w")
        try terminal.waitUntil { $0.contains("saved") && !$0.contains("unsaved changes") }
        try terminal.press("q")
        try terminal.waitFor("exit=0")
        let saved = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        #expect(saved["revision"] as? Int == 3, "two saves, one revision each")
        // Without a terminal there is no editor screen, and a clear line says so.
        let piped = try library.run(["edit", "fixture", "--phrases"])
        #expect(piped.status != 0 && piped.error.contains("the phrase editor needs a terminal"))
    }
}
