import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopTestSupport
import Testing

/// ALSA with no sound card: `default` plays into a raw file (Resources/alsa/file-output.conf).
func alsaEnvironment(output: String) -> [String: String] {
    let config = LoopProcess.packageRoot.appendingPathComponent("Resources/alsa/file-output.conf").path
    return ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + config, "LOOP_ALSA_OUTPUT": output]
}

/// A library holding the fixture loop cut from its clean take.
func libraryWithFixtureLoop() throws -> TestLibrary {
    let library = TestLibrary()
    let created = try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"])
    #expect(created.status == 0, "\(created.error)")
    return library
}

func clipFrames(_ library: TestLibrary, phrases: [Int]) throws -> [Float] {
    let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
    let all = try #require((shown["groups"] as? [[String: Any]])?.flatMap { ($0["phrases"] as? [[String: Any]]) ?? [] })
    var take: [Float] = []
    var reader = try AudioFileReader(path: LoopProcess.fixtures + "/clean.flac")
    try reader.forEachBlock { block, _ in take.append(contentsOf: block) }
    return try phrases.flatMap { number -> [Float] in
        let phrase = all[number - 1]
        let start = Int((try #require(phrase["start"] as? Double) * 16_000).rounded())
        let end = Int((try #require(phrase["end"] as? Double) * 16_000).rounded())
        return Array(take[start..<end])
    }
}

struct StudyCommandTests {
    @Test func onceInListenAndRepeatThroughALSAIsTheGroupThenItsLengthInSilence() throws {
        let library = try libraryWithFixtureLoop()
        let raw = Scratch.path("alsa", extension: "raw")
        let result = try library.run(
            ["study", "fixture", "--groups", "2", "--mode", "listen-and-repeat", "--once"],
            environment: alsaEnvironment(output: raw))
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("group 2 · listen") && result.output.hasSuffix("finished\n"))
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let played = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let group = try clipFrames(library, phrases: [4, 5])
        #expect(abs(played.count - 2 * group.count) <= 1)
        let worst = zip(played, group).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-6, "the group's own samples")
        #expect(played[group.count...].allSatisfy { $0 == 0 })
    }

    @Test func onceIntoAWavFileIsAStudyTrack() throws {
        let library = try libraryWithFixtureLoop()
        let track = Scratch.path("track", extension: "wav")
        let result = try library.run([
            "study", "fixture", "--groups", "1", "--repeats", "2", "--gap-factor", "0.5", "--once", "--output", track,
        ])
        #expect(result.status == 0 && result.output.isEmpty, "\(result.error)")
        let info = try AudioFileReader(path: track).info
        let phrases = try [1, 2, 3].map { try clipFrames(library, phrases: [$0]).count }
        let expected = phrases.reduce(0) { $0 + 2 * ($1 + $1 / 2 + 4_800) }
        #expect(
            abs(info.frameCount - expected) <= 6, "each phrase twice, each with half its length plus 0.3 s after it")
    }

    /// The study track is written in the format its name says (an MP3 is an MP3), and a name
    /// that says no format is refused before anything is played.
    @Test func aStudyTrackIsWrittenInTheFormatItsNameSays() throws {
        let library = try libraryWithFixtureLoop()
        let wav = Scratch.path("track", extension: "wav")
        #expect(try library.run(["study", "fixture", "--groups", "1", "--once", "--output", wav]).status == 0)
        let frames = try AudioFileReader(path: wav).info.frameCount
        for format in [AudioFileFormat.mp3, .ogg, .flac] {
            let track = Scratch.path("track", extension: format.fileExtension)
            let result = try library.run(["study", "fixture", "--groups", "1", "--once", "--output", track])
            #expect(result.status == 0, "\(format): \(result.error)")
            let info = try AudioFileReader(path: track).info
            #expect(info.format == format, "\(track) holds \(info.format)")
            var read = 0
            var reader = try AudioFileReader(path: track)
            try reader.forEachMonoBlock { read += $0.count }
            // MP3 pads its start and end with up to a frame or two.
            #expect(abs(read - frames) < 4_000, "\(format): \(read) frames, the WAV \(frames)")
        }
        let unknown = Scratch.path("track", extension: "xyz")
        let refused = try library.run(["study", "fixture", "--groups", "1", "--once", "--output", unknown])
        #expect(
            refused.status != 0 && refused.error.contains(".mp3") && !FileManager.default.fileExists(atPath: unknown),
            "\(refused.error)")
    }

    @Test func slowerPlaybackMakesALongerTrack() throws {
        let library = try libraryWithFixtureLoop()
        let normal = Scratch.path("track", extension: "wav")
        let slow = Scratch.path("track", extension: "wav")
        #expect(
            try library.run([
                "study", "fixture", "--groups", "1", "--mode", "listen-and-repeat", "--once", "--output", normal,
            ]).status == 0)
        #expect(
            try library.run([
                "study", "fixture", "--groups", "1", "--mode", "listen-and-repeat", "--speed", "0.5", "--once",
                "--output", slow,
            ]).status == 0)
        let ratio =
            Double(try AudioFileReader(path: slow).info.frameCount)
            / Double(try AudioFileReader(path: normal).info.frameCount)
        #expect(abs(ratio - 2) < 0.01)
    }

    @Test func studyIsSavedAndShownByStats() throws {
        let library = try libraryWithFixtureLoop()
        #expect(try library.run(["study", "fixture", "--once", "--output", "null"]).status == 0)
        #expect(try library.run(["study", "fixture", "--groups", "2", "--once", "--output", "null"]).status == 0)
        let stats = try #require(
            (try library.json(["stats", "fixture"]) as? [String: Any])?["loops"] as? [[String: Any]])
        #expect(stats.count == 1 && stats[0]["sessions"] as? Int == 2)
        let phrases = try #require(stats[0]["phrases"] as? [[String: Any]])
        #expect(phrases.map { $0["repetitions"] as? Int } == [1, 1, 1, 2, 2])
        #expect((phrases[3]["seconds"] as? Double ?? 0) > (phrases[0]["seconds"] as? Double ?? 0))
    }

    @Test func playRendersAPhraseOrAGroupAsTheClipsOwnSamplesBackToBack() throws {
        let library = try libraryWithFixtureLoop()
        func rendered(_ path: String) throws -> [Float] {
            var samples: [Float] = []
            var reader = try AudioFileReader(path: path)
            try reader.forEachBlock { block, _ in samples.append(contentsOf: block) }
            return samples
        }
        func same(_ a: [Float], _ b: [Float]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1.0 / 16_000 }
        }
        let one = Scratch.path("play", extension: "wav")
        #expect(try library.run(["play", "fixture", "--phrase", "3", "--output", one]).status == 0)
        #expect(same(try rendered(one), try clipFrames(library, phrases: [3])), "phrase 3's own samples")
        let group = Scratch.path("play", extension: "wav")
        #expect(try library.run(["play", "fixture", "--group", "2", "--output", group]).status == 0)
        #expect(
            same(try rendered(group), try clipFrames(library, phrases: [4, 5])),
            "phrases 4 and 5, in order, with nothing between")
    }

    @Test func repeatWithMeIsEachClipThenItsGapOfSilence() throws {
        let library = try libraryWithFixtureLoop()
        let track = Scratch.path("track", extension: "wav")
        #expect(
            try library.run(["study", "fixture", "--groups", "2", "--gap-factor", "0.5", "--once", "--output", track])
                .status == 0)
        var played: [Float] = []
        var reader = try AudioFileReader(path: track)
        try reader.forEachBlock { block, _ in played.append(contentsOf: block) }
        var expected: [Float] = []
        for phrase in [4, 5] {
            let clip = try clipFrames(library, phrases: [phrase])
            expected += clip + [Float](repeating: 0, count: clip.count / 2 + 4_800)
        }
        #expect(abs(played.count - expected.count) <= 2)
        #expect(
            zip(played, expected).allSatisfy { abs($0 - $1) < 1.0 / 16_000 },
            "phrase 4, half its length and 0.3 s of silence, phrase 5, the same")
    }

    @Test func noSoundCardIsAClearMessageNamingTheWayOut() throws {
        let library = try libraryWithFixtureLoop()
        let result = try library.run(["study", "fixture", "--once", "--device", "hw:42"])
        #expect(result.status != 0)
        #expect(
            result.error.hasPrefix("error: no sound device 'hw:42'") && result.error.contains("--device")
                && result.error.contains("--output"))
    }

    /// As on a machine without the package: `loop` runs in a mount namespace of its own, with an
    /// empty file bound over the library, so that opening it fails as a missing one would.
    @Test(
        .enabled(if: getuid() == 0, "binding over a system library needs root (CI runs as root)"),
        arguments: [
            (
                "libasound.so.2", ["study", "fixture", "--groups", "1", "--once"],
                "error: cannot open the sound device 'default': ALSA's library is not installed (Debian: the libasound2 package)"
            ),
            (
                "libSoundTouchDll.so.1",
                ["study", "fixture", "--once", "--speed", "0.8", "--output", Scratch.path("slow", extension: "wav")],
                "error: cannot play at speed 0.8: SoundTouch is not installed (Debian: the libsoundtouch1 package)"
            ),
        ])
    func aMissingSystemLibraryIsNamedWithItsPackage(soname: String, arguments: [String], message: String) throws {
        let library = try libraryWithFixtureLoop()
        let installed = try #require(
            ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"].map { $0 + "/" + soname }.first(
                where: FileManager.default.fileExists))
        let file = URL(fileURLWithPath: installed).resolvingSymlinksInPath().path
        let hiding = [
            "/usr/bin/unshare", "--mount", "/bin/sh", "-c", "mount --bind /dev/null \"$0\" && exec \"$@\"", file,
        ]
        let result = try LoopProcess.run(arguments, environment: ["LOOP_LIBRARY": library.path], launcher: hiding)
        #expect(result.status != 0)
        #expect(result.error == message + "\n", "\(result.error)")
        let outside = try library.run(
            arguments, environment: alsaEnvironment(output: Scratch.path("played", extension: "raw")))
        #expect(outside.status == 0, "outside the namespace the library is there: \(outside.error)")
    }

    @Test func badStudyOptionsAreRefused() throws {
        let library = try libraryWithFixtureLoop()
        #expect(try library.run(["study", "fixture", "--output", "x.wav"]).error.contains("needs --once or --rounds"))
        #expect(try library.run(["study", "fixture", "--groups", "2-1", "--once"]).error.contains("--groups takes"))
        #expect(try library.run(["study", "fixture", "--speed", "3"]).error.contains("--speed takes 0.5 to 1.5"))
        let unselected = try library.run(["study", "fixture", "--groups", "7", "--once", "--output", "null"])
        #expect(unselected.status != 0 && unselected.error.contains("there is no group 7"))
    }
}

/// Drives `loop study` in a real terminal (tmux), as a person would.
@Suite(.serialized)
struct StudyTerminalTests {
    @Test(.enabled(if: TerminalDriver.isAvailable))
    func keysSelectMoveSwitchModeAndQuitRestoringTheTerminal() throws {
        let library = try libraryWithFixtureLoop()
        let played = Scratch.path("played", extension: "raw")
        let environment = alsaEnvironment(output: played).merging([
            "LOOP_LIBRARY": library.path, "TERM": "xterm-256color",
        ]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-study", columns: 120, rows: 30)
        try terminal.type(
            "\(exports); cd '\(LoopProcess.fixtures)'; '\(LoopProcess.executable.path)' study fixture; echo \"exit=$?\"; stty -a | grep -o -- '-\\?icanon'"
        )

        var shown = try terminal.waitFor("Group 1")
        // Some of the phrase heard before the keys (under load the keys can outrun the player:
        // a session in which nothing was heard saves nothing).
        try terminal.waitUntil(seconds: 20) { _ in (RegularFile.size(played) ?? 0) > 0 }
        #expect(shown.contains("Fixture") && shown.contains("repeat with me"))
        #expect(shown.contains("Bonjour, madame."))

        try terminal.press("2") // study group 2 alone
        shown = try terminal.waitFor("Group 2")
        #expect(shown.contains("Où est la gare"))
        try terminal.press("!") // shift+1: add group 1
        try terminal.press("Down") // next group in the selection
        try terminal.waitFor("Group 1")
        try terminal.press("m") // switch mode
        try terminal.waitFor("listen and repeat")
        try terminal.press("+")
        try terminal.waitFor("speed 1.1x")
        try terminal.press("?")
        try terminal.waitFor("shift+1-9")
        try terminal.press(" ")
        try terminal.waitFor("paused")
        try terminal.press("q")

        shown = try terminal.waitFor("exit=0")
        #expect(shown.contains("icanon") && !shown.contains("-icanon"), "the terminal is back in canonical mode")
        #expect(!shown.contains("Group 1"), "the study screen is gone (alternate screen left)")
        let stats = try #require(
            (try library.json(["stats", "fixture"]) as? [String: Any])?["loops"] as? [[String: Any]])
        #expect(stats.first?["sessions"] as? Int == 1, "the session was saved")
    }

    @Test(.enabled(if: TerminalDriver.isAvailable))
    func everyKeyOnAThreeGroupLoopChangesWhatTheViewShows() throws {
        // Three groups (so that a selection of some is visible), translations (for `t`), no
        // colour (so that selected groups show as [ 2 ] in the captured screen).
        let library = TestLibrary()
        let text = Scratch.path("keys", extension: "txt")
        try
            "# title: Keys\n# language: fr\n\nBonjour, madame. | Hello, madam.\nUn café, s'il vous plaît. | A coffee, please.\n\nMerci. | Thank you.\n\nOù est la gare, s'il vous plaît ? | Where is the station?\nÀ droite, puis tout droit. | Right, then straight on.\n"
            .write(toFile: text, atomically: true, encoding: .utf8)
        #expect(try library.run(["new", "--text", text, "--audio", "clean.flac"]).status == 0)
        let environment = alsaEnvironment(output: "/dev/null").merging([
            "LOOP_LIBRARY": library.path, "TERM": "xterm-256color", "NO_COLOR": "1",
        ]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-keys", columns: 120, rows: 30)
        try terminal.type(
            "\(exports); cd '\(LoopProcess.fixtures)'; '\(LoopProcess.executable.path)' study keys; echo \"exit=$?\"")

        // All three groups selected at first; paused, so the phrase on screen stays put.
        try terminal.waitFor("[▸1 ] [ 2 ] [ 3 ]")
        try terminal.press(" ")
        try terminal.waitFor("paused")
        try terminal.press("Right") // → next phrase
        try terminal.waitFor("▶ Un café, s'il vous plaît.")
        try terminal.press("Left") // ← previous phrase
        try terminal.waitFor("▶ Bonjour, madame.")
        try terminal.press("2") // group 2 alone
        try terminal.waitFor("  1   [▸2 ]   3\n")
        try terminal.press("#") // shift+3: add group 3
        try terminal.waitFor("  1   [▸2 ] [ 3 ]")
        try terminal.press("Down") // ↓ next selected group
        try terminal.waitFor("[ 2 ] [▸3 ]")
        try terminal.press("Up") // ↑ back
        try terminal.waitFor("[▸2 ] [ 3 ]")
        try terminal.press("#") // shift+3 again: take group 3 out
        try terminal.waitFor("  1   [▸2 ]   3\n")
        try terminal.press("a") // all groups
        try terminal.waitFor("[ 1 ] [▸2 ] [ 3 ]")
        var shown = try terminal.waitFor("· Thank you.")
        try terminal.press("t") // translations off
        shown = try terminal.waitFor("▶ Merci.")
        try terminal.waitUntil { !$0.contains("Thank you.") }
        try terminal.press("t") // and on
        try terminal.waitFor("· Thank you.")
        try terminal.press("h") // hide the text: a listening drill
        shown = try terminal.waitFor("▶ ······")
        #expect(!shown.contains("Merci.") && !shown.contains("Thank you."), "\(shown)")
        try terminal.press("h")
        try terminal.waitFor("▶ Merci.")
        try terminal.press("-") // slower
        try terminal.waitFor("speed 0.9x")
        try terminal.press("+")
        try terminal.press("+") // faster
        try terminal.waitFor("speed 1.1x")
        try terminal.press("m") // switch mode
        try terminal.waitFor("listen and repeat")
        try terminal.press("?") // help
        try terminal.waitFor("shift+1-9")
        try terminal.press("?")
        try terminal.waitUntil { !$0.contains("shift+1-9") }
        // Go on, so that something is heard: a session that played nothing is not saved, and
        // the first space may land before the first phrase starts.
        try terminal.press(" ")
        try terminal.waitFor("● listening")
        // A narrower window: the view redraws to it, every line cut to 50 columns.
        try TerminalDriver.tmux(["resize-window", "-t", terminal.session, "-x", "50", "-y", "30"])
        shown = try terminal.waitUntil { screen in
            screen.contains("…") && screen.split(separator: "\n").allSatisfy { $0.count <= 50 }
        }
        try terminal.press("q")
        shown = try terminal.waitFor("exit=0")
        let stats = try #require((try library.json(["stats", "keys"]) as? [String: Any])?["loops"] as? [[String: Any]])
        #expect(stats.first?["sessions"] as? Int == 1, "the session was saved")
    }

    @Test(.enabled(if: TerminalDriver.isAvailable))
    func ctrlCAlsoRestoresTheTerminal() throws {
        let library = try libraryWithFixtureLoop()
        let environment = alsaEnvironment(output: "/dev/null").merging(["LOOP_LIBRARY": library.path]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-study", columns: 100, rows: 30)
        try terminal.type(
            "\(exports); '\(LoopProcess.executable.path)' study fixture; echo \"exit=$?\"; stty -a | grep -o -- '-\\?echo '"
        )
        try terminal.waitFor("Group 1")
        try terminal.press("C-c")
        let shown = try terminal.waitFor("exit=0")
        #expect(shown.contains("echo ") && !shown.contains("-echo "), "echo is back on")
    }
}
