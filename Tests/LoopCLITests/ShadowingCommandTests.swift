import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopTestSupport
import Testing

/// ALSA with no sound card both ways: `default` plays into a raw file and records from one
/// (Resources/alsa/file-duplex.conf), here "Bonjour, madame." said by another voice.
func shadowingEnvironment(played: String) throws -> [String: String] {
    let duplex = LoopProcess.packageRoot.appendingPathComponent("Resources/alsa/file-duplex.conf").path
    var reader = try AudioFileReader(path: Fixture.path("shadow-bonjour.flac"))
    var samples: [Float] = []
    try reader.forEachMonoBlock { samples.append(contentsOf: $0) }
    let microphone = Scratch.path("microphone", extension: "raw")
    try samples.withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: microphone)) }
    return [
        "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + duplex, "LOOP_ALSA_OUTPUT": played,
        "LOOP_ALSA_INPUT": microphone,
    ]
}

/// A microphone that stalls: ALSA's `file` plugin reads a FIFO into which a writer puts
/// `bytes` of silence (float32) and then holds it open, writing nothing, for a minute; with no
/// bytes, no writer ever comes. Terminate the writer when done.
func stallingMicrophone(bytes: Int) throws -> (fifo: String, writer: Process?) {
    let fifo = Scratch.path("stalling-microphone")
    #expect(mkfifo(fifo, 0o644) == 0)
    guard bytes > 0 else { return (fifo, nil) }
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: "/bin/sh")
    writer.arguments = ["-c", "(head -c \(bytes) /dev/zero; sleep 60) > '\(fifo)'"]
    try writer.run()
    return (fifo, writer)
}

/// Shadowing records mono float32 at 16 kHz: 64,000 bytes a second.
enum ShadowingRecorderRate { static let bytesPerSecond = 16_000 * 4 }

struct ShadowingCommandTests {
    /// `loop study --shadow` records each gap through ALSA, scores it against the phrase's clip,
    /// keeps it in the library (`loop stats`, `loop doctor`), never in a bundle, and `loop gc`
    /// removes it with its loop.
    @Test func studyShadowRecordsScoresAndKeepsEachAttempt() throws {
        let library = try libraryWithFixtureLoop()
        let bundleBefore = Scratch.path("before", extension: "loop")
        #expect(try library.run(["export", "fixture", "-o", bundleBefore]).status == 0)
        let environment = try shadowingEnvironment(played: Scratch.path("played", extension: "raw"))
        let result = try library.run(
            ["study", "fixture", "--groups", "1", "--shadow", "--once"], environment: environment)
        #expect(result.status == 0, "\(result.error)")
        // Every phrase of the group is attempted with the same recording: "Bonjour, madame."
        let lines = result.output.split(separator: "\n").map(String.init)
        let first = try #require(lines.first { $0.hasPrefix("phrase 1 · you: ") })
        #expect(first.contains("said ") && !first.contains("not quite"), "\(first)")
        #expect(lines.filter { $0.contains(" · you: ") }.count == 3, "\(lines)")
        #expect(lines.last == "finished")

        let stats = try #require(try library.json(["stats", "fixture"]) as? [String: Any])
        let attempts = try #require(stats["attempts"] as? [[String: Any]])
        #expect(attempts.count == 3)
        let bonjour = try #require(attempts.first { $0["phrase"] as? String == "Bonjour, madame." })
        let kept = try #require(bonjour["attempts"] as? [[String: Any]])
        #expect(kept.count == 1)
        #expect((kept[0]["recordedAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil)
        #expect((kept[0]["match"] as? Double ?? 0) >= 0.66 && (kept[0]["coverage"] as? Double ?? 0) > 0.8)
        #expect(try library.run(["stats", "fixture"]).output.contains("Shadowing: your last attempts"))

        // Kept like other audio: checked by `loop doctor`, not carried by a bundle.
        let doctor = try library.run(["doctor"])
        #expect(doctor.status == 0 && doctor.output.contains("audio files"), "\(doctor.output)")
        let bundleAfter = Scratch.path("after", extension: "loop")
        #expect(try library.run(["export", "fixture", "-o", bundleAfter]).status == 0)
        let audioBefore = try #require(try library.json(["inspect", bundleBefore]) as? [String: Any])["audio"]
        let audioAfter = try #require(try library.json(["inspect", bundleAfter]) as? [String: Any])["audio"]
        #expect((audioAfter as? [[String: Any]])?.count == 1, "the take alone")
        #expect(
            (audioAfter as? [[String: Any]])?.map { $0["sha256"] as? String }
                == (audioBefore as? [[String: Any]])?.map { $0["sha256"] as? String })

        // The last attempts only: three runs keep three of each phrase, no more.
        for _ in 0..<3 {
            #expect(
                try library.run(["study", "fixture", "--groups", "1", "--shadow", "--once"], environment: environment)
                    .status == 0)
        }
        let again = try #require(try library.json(["stats", "fixture"]) as? [String: Any])
        let counts = try #require(again["attempts"] as? [[String: Any]]).map {
            ($0["attempts"] as? [[String: Any]])?.count ?? 0
        }
        #expect(counts == [3, 3, 3])

        // Removed with their loop by `loop gc`.
        let audio = URL(fileURLWithPath: library.path).appendingPathComponent("audio").path
        #expect(try library.run(["rm", "fixture", "--yes"]).status == 0)
        #expect(try library.run(["gc"]).status == 0)
        let left =
            FileManager.default.enumerator(atPath: audio)?.allObjects.compactMap { $0 as? String }
            .filter { !$0.hasPrefix(".") && $0.contains("/") } ?? []
        #expect(left.isEmpty, "\(left)")
        #expect(try library.run(["doctor"]).status == 0)
    }

    /// A capture device that never opens (a FIFO with no writer behind ALSA's file plugin) is
    /// said before the session, within seconds; one that stops delivering mid-session stops
    /// shadowing with a line that says so, and the study goes on to its end.
    @Test func aStalledMicrophoneIsSaidWithinSecondsNotWaitedOn() throws {
        let library = try libraryWithFixtureLoop()
        var environment = try shadowingEnvironment(played: Scratch.path("played", extension: "raw"))
        environment["LOOP_LIBRARY"] = library.path
        let arguments = ["study", "fixture", "--groups", "1", "--shadow", "--once"]

        environment["LOOP_ALSA_INPUT"] = try stallingMicrophone(bytes: 0).fifo
        let unopened = try LoopProcess.start(arguments, environment: environment).finish(limit: 60)
        #expect(unopened.status == 1, "\(unopened.error)")
        #expect(unopened.error.contains("the capture device 'default' did not open within 5 s"), "\(unopened.error)")
        #expect(unopened.error.contains("--capture-device"), "the study's own option: \(unopened.error)")
        #expect(unopened.error.split(separator: "\n").count == 1, "\(unopened.error)")

        // A second of sound, then nothing.
        let (fifo, writer) = try stallingMicrophone(bytes: ShadowingRecorderRate.bytesPerSecond)
        defer { writer?.terminate() }
        environment["LOOP_ALSA_INPUT"] = fifo
        let stalled = try LoopProcess.start(arguments, environment: environment).finish(limit: 60)
        #expect(stalled.status == 0, "\(stalled.error)")
        #expect(
            stalled.error.contains(
                "warning: shadowing stopped: the capture device 'default' delivered no sound for 5 s"),
            "\(stalled.error)")
        #expect(stalled.output.split(separator: "\n").last == "finished", "the study went on: \(stalled.output)")
        #expect(try library.run(["doctor"]).status == 0)
    }

    @Test func shadowGoesWithRepeatWithMeAndAMicrophoneThatIsThere() throws {
        let library = try libraryWithFixtureLoop()
        let listen = try library.run(["study", "fixture", "--shadow", "--once", "--mode", "listen-and-repeat"])
        #expect(listen.status != 0 && listen.error.contains("--shadow"))
        let none = try library.run([
            "study", "fixture", "--shadow", "--once", "--output", "null", "--capture-device", "nosuch",
        ])
        #expect(none.status == 1)
        #expect(
            none.error
                == "error: no capture device 'nosuch' to record you from: choose one with --capture-device NAME (see `arecord -L`)\n"
        )
    }

    /// A device option is read from: ALSA's file and tee plugins, named there, would truncate the
    /// file they name and fill it. Refused, the file as it was.
    @Test func aCaptureDeviceThatWritesAFileIsRefusedAndTheFileKept() throws {
        let library = try libraryWithFixtureLoop()
        let precious = Scratch.path("precious", extension: "txt")
        try Data("a user's notes\n".utf8).write(to: URL(fileURLWithPath: precious))
        for device in [
            "file:\(precious)", "file:'\(precious)',raw", "plug:'tee:\(precious)'",
            "{ type file slave.pcm null file \(precious) }",
        ] {
            let study = try library.run([
                "study", "fixture", "--shadow", "--once", "--output", "null", "--capture-device", device,
            ])
            #expect(study.status != 0 && study.error.contains("is not a device to record from"), "\(study.error)")
            #expect(study.error.split(separator: "\n").count == 1)
            let record = try library.run(["record", "fixture", "--device", device])
            #expect(record.status != 0 && record.error.contains("is not a device to record from"), "\(record.error)")
            #expect(try String(contentsOfFile: precious, encoding: .utf8) == "a user's notes\n", "\(device)")
        }
    }

    /// `loop compare`: a line, or JSON; a recording with no speech is refused in one line.
    @Test func compareScoresARecordingAgainstTheModel() throws {
        let text = "Le train pour Lyon part à huit heures ce soir."
        let good = try LoopProcess.run([
            "compare", "shadow-good.flac", "--model", "shadow-model.flac", "--text", text, "--language", "fr",
        ])
        #expect(good.status == 0 && good.output.hasPrefix("said 100% · timing "), "\(good.output)")
        let cut = try LoopProcess.run([
            "compare", "shadow-cut.flac", "--model", "shadow-model.flac", "--text", text, "--json",
        ])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(cut.output.utf8)) as? [String: Any])
        #expect(
            object.keys.sorted() == [
                "coverage", "intonation", "lengthRatio", "line", "match", "missedWords", "saysThePhrase",
            ]
                || object.keys.sorted() == [
                    "coverage", "intonation", "lengthRatio", "line", "match", "missedWords", "saysThePhrase",
                    "timingRatio", "timingWord",
                ], "\(object.keys.sorted())")
        #expect((object["missedWords"] as? [String])?.contains("soir") == true)
        // A phone's memo (AAC in m4a) is decoded by FFmpeg's libraries: the fixture's own take.
        let memo = try LoopProcess.run([
            "compare", "phone.m4a", "--model", "clean.flac", "--text",
            "Bonjour, madame. Un café, s'il vous plaît. Merci. Où est la gare, s'il vous plaît ? À droite, puis tout droit.",
        ])
        #expect(memo.status == 0 && memo.output.hasPrefix("said 100%"), "\(memo.output)\(memo.error)")
        let silent = try LoopProcess.run([
            "compare", "silence.flac", "--model", "shadow-model.flac", "--text", text,
        ])
        #expect(silent.status == 1 && silent.error == "error: silence.flac: no speech heard in it\n")
        // A silent model is said to be the model, not the attempt.
        let silentModel = try LoopProcess.run([
            "compare", "shadow-model.flac", "--model", "silence.flac", "--text", text,
        ])
        #expect(
            silentModel.error == "error: silence.flac: no speech heard in the model recording\n", "\(silentModel.error)"
        )
        // A text of no words and a language that is not one are refused before anything is read.
        for (options, refusal) in [
            (["--text", " . "], "--text holds no words"),
            (["--text", text, "--language", "../../../../etc/passwd"], "--language is not a language code"),
            (
                ["--text", text, "--language", "fr+" + String(repeating: "a", count: 60)],
                "--language is not a language"
            ),
        ] {
            let refused = try LoopProcess.run(
                ["compare", "shadow-model.flac", "--model", "shadow-model.flac"] + options)
            #expect(refused.status != 0 && refused.error.contains(refusal), "\(options): \(refused.error)")
        }
    }
}

/// `loop study --shadow` in its full-screen view (tmux): the attempt's score under the phrase,
/// and `c`, which pauses the study and plays the model, half a second of silence, then the
/// attempt, sample for sample.
struct ShadowingViewTests {
    @Test(.enabled(if: TerminalDriver.isAvailable))
    func theViewShowsTheScoreAndCPlaysTheModelThenTheAttempt() throws {
        let library = try libraryWithFixtureLoop()
        let played = Scratch.path("played", extension: "raw")
        let environment = try shadowingEnvironment(played: played).merging([
            "LOOP_LIBRARY": library.path, "TERM": "xterm-256color",
        ]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-shadow", columns: 110, rows: 36)
        try terminal.type(
            "\(exports); '\(LoopProcess.executable.path)' study fixture --groups 1 --shadow; echo \"exit=$?\"")
        try terminal.waitFor("c model, then mine")
        try terminal.waitFor("🎙 said ", seconds: 30)
        try terminal.press("c")
        try terminal.waitFor("paused")
        // The model, 0.5 s of silence, then what the microphone gave for the gap after it.
        let clip = try clipFrames(library, phrases: [1])
        let gap = (Int64(clip.count) * 1_000_000 / 16_000 + 300_000) * 16_000 / 1_000_000
        let microphone = try Data(contentsOf: URL(fileURLWithPath: environment["LOOP_ALSA_INPUT"]!)).withUnsafeBytes {
            Array($0.bindMemory(to: Float.self))
        }
        let attempt = (0..<Int(gap)).map { $0 < microphone.count ? microphone[$0] : 0 }
        let expected = clip + [Float](repeating: 0, count: 8_000) + attempt
        try terminal.press("q")
        let screen = try terminal.waitUntil(seconds: 20) {
            $0.contains("exit=") || $0.contains("How well did you know")
        }
        if !screen.contains("exit=") { try terminal.press("q") }
        try terminal.waitFor("exit=0", seconds: 20)
        // What ALSA was given, once the program has closed it: the session from its start, then
        // the sound played aside, which begins with the model's second hearing.
        let heard = try Data(contentsOf: URL(fileURLWithPath: played)).withUnsafeBytes {
            Array($0.bindMemory(to: Float.self))
        }
        let probe = Array(clip[4_000..<4_100])
        let starts = (0..<max(0, heard.count - 100)).filter {
            heard[$0] == probe[0] && Array(heard[$0..<($0 + 100)]) == probe
        }
        let aside = try #require(starts.last, "the model never played aside") - 4_000
        let asidePlayed = Array(heard[aside...])
        let worst = zip(asidePlayed, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(
            asidePlayed.count == expected.count && worst < 1e-6,
            "the model then the attempt, as played: \(asidePlayed.count) frames of \(expected.count), worst \(worst)")
    }
}
