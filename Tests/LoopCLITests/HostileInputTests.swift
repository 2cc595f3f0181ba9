import Foundation
import LoopTestSupport
import Testing

@testable import LoopReports

/// Hostile and clumsy input, and faults: every case gets a clear one-line error (or a
/// documented behaviour), never a trap or a hang, and leaves the library as it was.
struct HostileInputTests {
    /// A command that must end quickly: a hang is killed after `limit` and fails the test.
    func run(
        _ library: TestLibrary, _ arguments: [String], limit: Double = 30, environment: [String: String] = [:],
        input: String? = nil
    ) throws -> LoopProcess {
        try LoopProcess.start(
            arguments, environment: ["LOOP_LIBRARY": library.path].merging(environment) { $1 }, input: input
        ).finish(limit: limit)
    }

    /// Fails unless the command ended with a one-line error containing `text` (not a trap).
    func expectOneLineError(_ result: LoopProcess, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0, "it should fail", sourceLocation: sourceLocation)
        #expect(
            result.status < 128 && result.status != 4 && result.status != 5, "a trap, not an error: \(result.status)",
            sourceLocation: sourceLocation)
        #expect(result.error.contains(text), "\(result.error)", sourceLocation: sourceLocation)
        #expect(
            result.error.split(separator: "\n").count == 1 || result.error.hasPrefix("Error: ")
                || result.error.contains("Usage:"),
            "one line: \(result.error)", sourceLocation: sourceLocation)
    }

    /// A sound device that never opens (ALSA's file plugin writing into a FIFO nobody reads) is
    /// said in one line within seconds, never waited on.
    @Test func aSoundDeviceThatDoesNotOpenIsSaidWithinSeconds() throws {
        let library = try libraryWithFixtureLoop()
        let fifo = Scratch.path("unread-speaker")
        #expect(mkfifo(fifo, 0o644) == 0)
        for arguments in [["play", "fixture"], ["study", "fixture", "--once"]] {
            let started = Date()
            expectOneLineError(
                try run(library, arguments + ["--device", "file:" + fifo], limit: 60),
                "the sound device 'file:\(fifo)' did not open within 5 s")
            #expect(Date().timeIntervalSince(started) < 30, "\(arguments)")
        }
    }

    @Test func foldersFIFOsAndDevicesWhereABundleIsExpectedAreRefusedAtOnce() throws {
        let library = TestLibrary()
        let empty = Scratch.path("empty-folder")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        expectOneLineError(try run(library, ["inspect", empty]), "\(empty): is a folder, not a bundle file")
        expectOneLineError(try run(library, ["import", empty]), "\(empty): no bundles (.loop files) in this folder")

        let nested = Scratch.path("nested-folder")
        try FileManager.default.createDirectory(atPath: nested + "/x.loop", withIntermediateDirectories: true)
        expectOneLineError(try run(library, ["import", nested]), "x.loop: is a folder, not a bundle file")
        expectOneLineError(try run(library, ["inspect", nested + "/x.loop"]), "is a folder, not a bundle file")

        let fifo = Scratch.path("fifo-folder")
        try FileManager.default.createDirectory(atPath: fifo, withIntermediateDirectories: true)
        #expect(mkfifo(fifo + "/x.loop", 0o644) == 0)
        expectOneLineError(try run(library, ["inspect", fifo + "/x.loop"]), "is a pipe (FIFO), not a regular file")
        expectOneLineError(try run(library, ["import", fifo]), "is a pipe (FIFO), not a regular file")
        // An identity's backup too: a FIFO blocked `identity --import` until someone wrote to it.
        expectOneLineError(
            try run(library, ["identity", "--import", fifo + "/x.loop"]), "is a pipe (FIFO), not a regular file")
        expectOneLineError(try run(library, ["identity", "--import", "/dev/zero"]), "is a device, not a regular file")

        let device = Scratch.path("device-folder")
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: device + "/x.loop", withDestinationPath: "/dev/zero")
        expectOneLineError(try run(library, ["inspect", device + "/x.loop"]), "is a device, not a regular file")
        expectOneLineError(try run(library, ["import", device]), "is a device, not a regular file")
        expectOneLineError(try run(library, ["segment", "/dev/zero"]), "/dev/zero: is a device, not a regular file")
        #expect(((try library.json(["list"]) as? [Any]) ?? [1]).isEmpty, "nothing was imported")
    }

    @Test func textIsBoundedAndNeverADevice() throws {
        let library = TestLibrary()
        expectOneLineError(try run(library, ["split", "/dev/zero"]), "/dev/zero: is a device, not a regular file")
        let huge = String(repeating: "Bonjour.\n", count: 2_000_000) // 18 MB through a pipe
        expectOneLineError(
            try run(library, ["split", "-"], input: huge), "standard input: the text is longer than 16 MiB")
    }

    /// What a bundle carries is what a text may hold: 20,000 phrases of at most 4,000
    /// characters, refused on the line that passes the limit, before anything is stored.
    @Test func phrasesAndTheirLengthAreBoundedAsBundlesBoundThem() throws {
        let library = TestLibrary()
        let many = "# title: Many\n" + String(repeating: "Bonjour.\n", count: 20_001)
        expectOneLineError(
            try run(library, ["new", "--text", "-"], input: many),
            "standard input:20002: the text holds more than 20000 phrases")
        let long = "# title: Long\nBonjour.\n" + String(repeating: "a", count: 4_001) + ".\n"
        expectOneLineError(
            try run(library, ["new", "--text", "-"], input: long),
            "standard input:3: the phrase is longer than 4000 characters")
        let translated = "# title: Long\nBonjour. | " + String(repeating: "b", count: 4_001) + "\n"
        expectOneLineError(
            try run(library, ["new", "--text", "-"], input: translated),
            "standard input:2: the translation is longer than 4000 characters")
        // A title or tag given as an option, as long: a library never holds a loop no bundle can carry.
        let title = String(repeating: "t", count: 4_001)
        expectOneLineError(
            try run(library, ["new", "--text", "phrases.txt", "--title", title]),
            "the title is 4001 characters long; a title holds at most 4000")
        expectOneLineError(
            try run(library, ["new", "--text", "phrases.txt", "--tag", title]),
            "the tag is 4001 characters long; a tag holds at most 4000")
        #expect(((try library.json(["list"]) as? [Any]) ?? [1]).isEmpty, "nothing was added")
        #expect(try run(library, ["new", "--text", "phrases.txt", "--title", "Short"]).status == 0)
        expectOneLineError(
            try run(library, ["edit", "Short", "--title", title]),
            "the title is 4001 characters long; a title holds at most 4000")
        #expect(try run(library, ["rm", "Short", "--yes"]).status == 0)
        let most = "# title: Most\n" + String(repeating: "Bonjour.\n", count: 20_000)
        #expect(
            try run(library, ["new", "--text", "-"], limit: 120, input: most).status == 0, "the limit itself is taken")
        #expect(
            try run(library, ["export", "Most", "-o", Scratch.path("most", extension: "loop")], limit: 120).status == 0,
            "and exports")
    }

    @Test func nulAndControlCharactersAreRefusedWhereTextEnters() throws {
        let library = TestLibrary()
        expectOneLineError(
            try run(library, ["new", "--text", "-"], input: "# title: T\n\nBonjour.\nBon\u{0}jour.\n"),
            "standard input:4: the text holds a NUL character")
        expectOneLineError(
            try run(library, ["new", "--text", "-"], input: "Un \u{1B}]0;pwned\u{7}titre.\n"),
            "standard input:1: the text holds the control character U+001B (ESC)")
        expectOneLineError(
            try run(library, ["new", "--text", "phrases.txt", "--title", "nul\u{1B}[2Jtitle"]),
            "the title holds the control character U+001B (ESC)")
        expectOneLineError(
            try run(library, ["new", "--text", "phrases.txt", "--tag", "a\u{9B}b"]),
            "the tag holds the control character U+009B")
        #expect(((try library.json(["list"]) as? [Any]) ?? [1]).isEmpty, "nothing was added")
        #expect(
            try run(library, ["new", "--text", "-"], input: "# title: Tabs\n\nUn\tcafé.\r\n").status == 0,
            "tabs and CRLF are text, not control")
    }

    /// A refused argument is quoted in its refusal with its escape sequences made visible,
    /// whether a command refuses it or the argument parser does: a terminal never runs them.
    @Test func aRefusedArgumentsEscapesNeverReachTheTerminal() throws {
        let library = TestLibrary()
        for arguments in [
            ["review", "--rate", "\u{1B}[31m"], ["review", "--scheduler", "\u{1B}]0;PWN\u{7}"],
            ["list", "--sort", "\u{1B}[2J"], ["export", "x", "--format", "\u{9B}31m", "-o", "x"],
        ] {
            let refused = try run(library, arguments)
            #expect(refused.status != 0, "\(arguments)")
            #expect(
                !refused.error.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" || $0 == "\u{9B}" },
                "\(arguments): \(refused.error.debugDescription)")
            #expect(refused.error.contains("\\u{"), "the escape is shown, not dropped: \(refused.error)")
        }
    }

    /// A file loop cannot write is named as the person gave it (never the hidden temporary file
    /// beside it), with the reason in words: a folder, a device, a FIFO, an empty path, a
    /// missing folder.
    @Test func anOutputThatCannotBeWrittenIsNamedAsGiven() throws {
        let library = TestLibrary()
        #expect(
            try run(library, ["new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", "Out"]).status == 0)
        let folder = Scratch.path("an-output-folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fifo = Scratch.path("an-output-fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let missing = Scratch.path("no-such-folder") + "/out"
        for (output, said) in [
            (folder, "\(folder): is a folder: give a file's path"),
            ("/dev/null", "/dev/null: is a device, not a file"), (fifo, "\(fifo): is a FIFO, not a file"),
            ("", "error: an empty path names no file"),
            (missing + ".loop", "\(missing).loop: cannot create the file: there is no folder"),
        ] {
            expectOneLineError(try run(library, ["export", "out", "-o", output]), said)
        }
        for arguments in [
            ["study", "out", "--once", "--output", missing + ".wav"], ["identity", "--export", missing + ".key"],
            ["export", "out", "--format", "srt", "-o", missing + ".srt"],
        ] {
            let result = try run(library, arguments)
            expectOneLineError(result, "\(missing).")
            #expect(!result.error.contains(".tmp-"), "\(result.error)")
            #expect(result.error.contains("cannot create the file: there is no folder"), "\(result.error)")
        }
    }

    /// A language names a voice file of the synthesizer: a path, a `+variant` that overflows
    /// its buffer or a control character is refused where it enters (an option, a text's
    /// `# language:`, `loop edit --language`), with one line, and nothing crashes.
    @Test func aLanguageIsACodeNeverAPathIntoTheSynthesizersData() throws {
        let library = TestLibrary()
        let hostile = [
            "../../../../etc/passwd", "../../../../dev/zero", "fr+" + String(repeating: "a", count: 60), "en\u{1B}[2J",
            "/etc", "fr/../../x", "",
        ]
        for language in hostile where !language.isEmpty {
            expectOneLineError(
                try run(library, ["new", "--text", "phrases.txt", "--audio", "clean.flac", "--language", language]),
                "--language is not a language code")
            expectOneLineError(
                try run(library, ["segment", "clean.flac", "--text", "phrases.txt", "--language", language]),
                "--language is not a language code")
            expectOneLineError(
                try run(library, ["new", "--text", "-"], input: "# language: \(language)\n\nBonjour.\n"),
                language.contains("\u{1B}")
                    ? "standard input:1: the text holds the control character U+001B"
                    : "standard input:1: '# language:' is not a language code")
        }
        #expect(((try library.json(["list"]) as? [Any]) ?? [1]).isEmpty, "nothing was added")
        #expect(try run(library, ["new", "--text", "phrases.txt", "--title", "Kept"]).status == 0)
        expectOneLineError(
            try run(library, ["edit", "kept", "--language", "../../../../etc/passwd"]),
            "--language is not a language code")
        // Codes and names still name languages.
        #expect(try run(library, ["edit", "kept", "--language", "pt-BR"]).status == 0)
        #expect(
            try run(library, ["segment", "clean.flac", "--text", "phrases.txt", "--language", "French", "--json"])
                .status
                == 0)
    }

    /// The fixture's take (16 kHz, 10 s) with its STREAMINFO declaring `sampleRate` and `frames`.
    func lyingFLAC(sampleRate: UInt64, frames: UInt64) throws -> String {
        let lying = Scratch.path("lying", extension: "flac")
        try Data(contentsOf: URL(fileURLWithPath: Fixture.path("clean.flac"))).write(to: URL(fileURLWithPath: lying))
        try LyingFLAC.rewrite(lying, frames: frames, sampleRate: sampleRate)
        return lying
    }

    /// Headers that declare nonsense are refused on opening, before anything is sized by what
    /// they declare; one that announces more than it holds ends in the truncation error.
    @Test func anAudioHeaderThatDeclaresNonsenseIsRefusedBeforeAnythingIsAllocated() throws {
        let oneHertz = try lyingFLAC(sampleRate: 1, frames: (1 << 36) - 1)
        let library = try libraryWithFixtureLoop()
        for arguments in [
            ["segment", oneHertz, "--count", "5"], ["segment", oneHertz, "--labels"],
            ["new", "--text", Fixture.path("phrases.txt"), "--audio", oneHertz],
        ] {
            expectOneLineError(try run(library, arguments), "declares a sample rate of 1 Hz")
        }
        let tenHours = try lyingFLAC(sampleRate: 16_000, frames: 10 * 3600 * 16_000)
        for arguments in [
            ["segment", tenHours, "--count", "5"], ["segment", tenHours, "--text", Fixture.path("phrases.txt")],
        ] {
            expectOneLineError(try run(library, arguments), "it announces 36000.00 s of audio but")
        }
        // A WAV declaring 2,147,483,647 Hz is left to FFmpeg's libraries, which open it: it is
        // refused for what it declares, not as a file loop could not create.
        let absurd = Scratch.path("absurd-rate", extension: "wav")
        try Data(pcmWAVHeader(sampleRate: 2_147_483_647, dataBytes: 2_000) + [UInt8](repeating: 1, count: 2_000))
            .write(to: URL(fileURLWithPath: absurd))
        expectOneLineError(
            try run(library, ["segment", absurd, "--count", "3"]), "declares a sample rate of 2147483647 Hz")
    }

    /// The 44-byte header of a mono 16-bit PCM WAV file.
    func pcmWAVHeader(sampleRate: UInt32, dataBytes: UInt32) -> [UInt8] {
        func little(_ value: UInt32, _ bytes: Int) -> [UInt8] {
            (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        return Array("RIFF".utf8) + little(36 + dataBytes, 4) + Array("WAVEfmt ".utf8) + little(16, 4)
            + little(1, 2) + little(1, 2) + little(sampleRate, 4) + little(sampleRate &* 2, 4) + little(2, 2)
            + little(16, 2) + Array("data".utf8) + little(dataBytes, 4)
    }

    /// An output path naming a device, a FIFO, a folder or a symbolic link is refused, and what is
    /// there stays what it was (run as root, `-o /dev/full` once replaced the system's device).
    @Test func outputsAreWrittenOnlyToRegularFiles() throws {
        let library = try libraryWithFixtureLoop()
        let folder = Scratch.path("outputs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fifo = folder + "/fifo"
        let link = folder + "/link"
        let target = folder + "/target"
        let device = folder + "/full"
        #expect(mkfifo(fifo, 0o644) == 0)
        try "kept\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        // A device node like /dev/full (1, 7), made here: only root may.
        let devices = getuid() == 0 && mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0 ? [device] : []
        /// What a path is, the link itself when it is one (FileManager does not follow it).
        func kind(_ path: String) -> FileAttributeType? {
            (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        }
        let refused =
            [(fifo, "is a FIFO"), (link, "is a symbolic link"), (folder, "is a folder")]
            + devices.map { ($0, "is a device") }
        for (path, text) in refused {
            for arguments in [
                ["export", "fixture", "--format", "srt", "-o", path],
                ["export", "fixture", "--format", "anki", "-o", path],
                ["study", "fixture", "--once", "--output", path],
            ] {
                expectOneLineError(try run(library, arguments), text)
            }
        }
        #expect(
            kind(fifo) == .typeUnknown && kind(link) == .typeSymbolicLink && kind(folder) == .typeDirectory)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "kept\n", "nothing written through the link")
        for device in devices { #expect(kind(device) == .typeCharacterSpecial, "the device is still a device") }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
                == (["fifo", "link", "target"] + devices.map { _ in "full" }).sorted(),
            "no temporary file left beside them")
    }

    /// The `loop decode-media` process (alive, not a zombie) decoding `media`, found by its arguments.
    func decodeHelper(of media: String) -> pid_t? {
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
        return pids.first { pid in
            let arguments =
                (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map {
                    String(decoding: $0, as: UTF8.self)
                } ?? ""
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: ")").last?
                .split(separator: " ").first
            return arguments.contains("decode-media") && arguments.contains(media) && state != "Z"
        }
    }

    @Test func aDecoderKilledBySignalIsNamedInOneClearLine() throws {
        let marker = Scratch.path("decoding")
        let media = Scratch.path("killed", extension: "m4a")
        try FileManager.default.copyItem(atPath: Fixture.path("phone.m4a"), toPath: media)
        let running = try LoopProcess.start(
            ["segment", media],
            environment: ["LOOP_TEST_STOP_AT": "media.decoding:pause", "LOOP_TEST_STOP_FILE": marker])
        defer { try? FileManager.default.removeItem(atPath: marker) }
        for _ in 0..<12_000 where !FileManager.default.fileExists(atPath: marker) { usleep(10_000) }
        let helper = try #require(decodeHelper(of: media))
        kill(helper, SIGKILL)
        expectOneLineError(running.finish(limit: 60), "was killed by signal 9 before it finished")
    }

    /// `loop new --audio film.m4a` killed with SIGKILL while its decode helper works: the helper
    /// ends too (it would otherwise write the whole film for nobody), and the next decode removes
    /// what it left in $TMPDIR.
    @Test func aDecoderWhoseParentIsKilledEndsAndTheNextDecodeRemovesItsFile() throws {
        let temporary = Scratch.path("tmp")
        let marker = Scratch.path("decoding")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let media = Scratch.path("orphan", extension: "m4a")
        try FileManager.default.copyItem(atPath: Fixture.path("phone.m4a"), toPath: media)
        let library = TestLibrary()
        let running = try LoopProcess.start(
            ["new", "--text", "phrases.txt", "--audio", media],
            environment: [
                "LOOP_LIBRARY": library.path, "TMPDIR": temporary,
                "LOOP_TEST_STOP_AT": "media.decoding:pause", "LOOP_TEST_STOP_FILE": marker,
            ])
        defer { try? FileManager.default.removeItem(atPath: marker) }
        for _ in 0..<12_000 where !FileManager.default.fileExists(atPath: marker) { usleep(10_000) }
        #expect(FileManager.default.fileExists(atPath: marker), "the helper reached its decoding")
        func helper() -> pid_t? { decodeHelper(of: media) }
        #expect(helper() != nil, "the helper runs")
        kill(running.process.processIdentifier, SIGKILL)
        #expect(running.finish().killedBy == SIGKILL)
        // Paused, the helper would wait a minute: it goes within a second of its parent.
        for _ in 0..<300 where helper() != nil { usleep(10_000) }
        #expect(helper() == nil, "the helper ended with its parent")
        let leftovers = {
            (try? FileManager.default.contentsOfDirectory(atPath: temporary))?.filter { $0.contains("loop-media-") }
                ?? []
        }
        #expect(!leftovers().isEmpty, "the killed run left its half-written FLAC")
        #expect(
            try LoopProcess.run(["segment", "phone.m4a", "--json"], environment: ["TMPDIR": temporary]).status == 0)
        #expect(leftovers().isEmpty, "the next decode removed it: \(leftovers())")
    }

    @Test func numericOptionsAreFiniteAndInRange() throws {
        let library = try libraryWithFixtureLoop()
        let before = try library.run(["show", "fixture", "--json"]).output
        for (arguments, text) in [
            (["--start", "nan"], "--start takes seconds from 0 to 86400"), (["--end", "inf"], "--end takes seconds"),
            (["--end", "1e300"], "--end takes seconds"), (["--shift", "1e18"], "--shift takes milliseconds"),
            (["--shift=-1e18"], "--shift takes milliseconds"), (["--shift", "nan"], "--shift takes milliseconds"),
        ] {
            expectOneLineError(try run(library, ["adjust", "fixture", "1"] + arguments), text)
        }
        expectOneLineError(
            try run(library, ["adjust", "fixture", "0", "--shift", "10"]), "the phrase number starts at 1")
        // A negative number is read as a number (and judged by its range), not as a missing value.
        for (arguments, text) in [
            (["adjust", "fixture", "1", "--start", "-1"], "--start takes seconds from 0 to 86400, not -1"),
            (["adjust", "fixture", "1", "--start", "-inf"], "--start takes seconds from 0 to 86400"),
            (
                ["study", "fixture", "--once", "--output", "null", "--repeats", "-1"],
                "--repeats takes 1 to 100, not -1"
            ),
            (["segment", "clean.flac", "--stream", "-1"], "--stream takes an audio stream number from 0, not -1"),
        ] {
            expectOneLineError(try run(library, arguments), text)
        }
        expectOneLineError(
            try run(library, ["study", "fixture", "--once", "--output", "null", "--repeats", "9223372036854775807"]),
            "--repeats takes 1 to 100")
        expectOneLineError(
            try run(library, ["study", "fixture", "--rounds", "0", "--output", "null"]), "--rounds takes 1 to 10000")
        // A range of groups is checked against the loop before any list is made: no trap, no gigabytes.
        for groups in ["1-9223372036854775807", "1-300000000", "2,9223372036854775807"] {
            let result = try run(library, ["study", "fixture", "--once", "--output", "null", "--groups", groups])
            expectOneLineError(
                result, "there is no group \(groups.split(whereSeparator: { $0 == "-" || $0 == "," }).last!)")
        }
        expectOneLineError(
            try run(library, ["segment", "clean.flac", "--count", "9223372036854775807"]), "--count takes 1 to 10000")
        expectOneLineError(try run(library, ["search", "cafe", "--limit=-1"]), "--limit takes 1 to 10000")
        #expect(try library.run(["show", "fixture", "--json"]).output == before, "the library is as it was")
    }

    @Test func aNegativeShiftMovesAPhraseEarlier() throws {
        let library = try libraryWithFixtureLoop()
        func start() throws -> Double {
            let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
            let phrases = ((shown["groups"] as? [[String: Any]]) ?? []).flatMap {
                ($0["phrases"] as? [[String: Any]]) ?? []
            }
            return try #require(phrases[1]["start"] as? Double)
        }
        let before = try start()
        #expect(try run(library, ["adjust", "fixture", "2", "--shift", "-50"]).status == 0)
        #expect(abs(try start() - (before - 0.05)) < 0.002)
    }

    @Test func eightProcessesCreatingOneLibraryAtOnceAllSucceed() throws {
        let library = TestLibrary()
        #expect(!FileManager.default.fileExists(atPath: library.path))
        let running = try (0..<8).map { index in
            try LoopProcess.start(
                ["new", "--text", "-", "--title", "Loop \(index)"], environment: ["LOOP_LIBRARY": library.path],
                input: "Bonjour \(index).\n")
        }
        let results = running.map { $0.finish(limit: 120) }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.error))")
        #expect(((try library.json(["list"]) as? [Any]) ?? []).count == 8)
        #expect(try library.run(["doctor"]).status == 0)
    }

    /// Runs a system command (mount, umount) and says whether it succeeded.
    func system(_ arguments: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Shrinks or grows `filler` until about `bytes` are free on the file system at `disk`.
    func leave(_ bytes: Int, freeOn disk: String, filler: String) throws {
        func free() -> Int {
            var status = statvfs()
            return statvfs(disk, &status) == 0 ? Int(status.f_bavail) * Int(status.f_frsize) : 0
        }
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        if free() > bytes {
            try handle.write(contentsOf: Data(count: free() - bytes)) // written, not sparse
        } else {
            try handle.truncate(atOffset: UInt64(max(0, size + free() - bytes)))
        }
        #expect(abs(free() - bytes) <= 8_192, "\(free()) bytes free, not \(bytes)")
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small file system needs root (CI runs as root)"))
    func aFullDiskIsSaidToBeFullAndTheLibraryStaysAsItWas() throws {
        let disk = Scratch.path("small-disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        #expect(try system(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", disk]))
        defer { _ = try? system(["umount", "-l", disk]) }
        let library = TestLibrary(path: disk + "/library")
        #expect(try library.run(["new", "--text", "phrases.txt", "--title", "Before"]).status == 0)
        let author = try libraryWithFixtureLoop()
        let bundle = Scratch.path("to-a-full-disk", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)

        // Fill the disk to the last byte.
        let filler = disk + "/filler"
        _ = try system(["dd", "if=/dev/zero", "of=" + filler, "bs=4k", "status=none"]) // ends with "No space left"
        #expect(FileManager.default.fileExists(atPath: filler))

        // To the last byte: reading works if SQLite's side files are still there from the last
        // command, and otherwise says why not; a new library cannot be made, and says so.
        let listed = try run(library, ["list"])
        #expect(
            listed.output.contains("Before")
                || listed.error.contains("no space left on the device holding \(library.path)"), "\(listed.error)")
        #expect(!listed.error.contains("not a loop library"))
        // The first export makes the key that signs it, beside the library: said to be the disk.
        let exported = try run(library, ["export", "Before", "-o", Scratch.path("first-export", extension: "loop")])
        expectOneLineError(exported, "cannot save the identity key that signs what you share: no space left on the")
        // A deck written to the full disk is named, never loop's hidden work folder beside it.
        let deck = disk + "/deck.apkg"
        let anki = try run(author, ["export", "fixture", "--format", "anki", "-o", deck])
        expectOneLineError(anki, "\(deck): no space left on the device holding \(disk)")
        #expect(!anki.error.contains(".loop-anki-"), "\(anki.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk).sorted() == ["filler", "library"])
        let another = TestLibrary(path: disk + "/another")
        expectOneLineError(
            try run(another, ["list"]),
            "no space left on the device holding \(another.path) (mounted at \(disk); 1.0 MB needed, 0 KB free)")

        // Room to open the library, not for the take (116 KB). Set again before each command:
        // one that fails may still free SQLite's side files as it closes.
        try leave(64_000, freeOn: disk, filler: filler)
        let added = try run(library, ["new", "--text", "phrases.txt", "--audio", "clean.flac"])
        expectOneLineError(
            added, "no space left on the device holding \(library.path) (mounted at \(disk); 116 KB needed, ")
        try leave(64_000, freeOn: disk, filler: filler)
        let imported = try run(library, ["import", bundle])
        expectOneLineError(imported, "\(bundle): no space left on the device holding \(disk) (mounted at \(disk); ")
        #expect(!imported.error.contains("damaged"), "\(imported.error)")

        try FileManager.default.removeItem(atPath: filler)
        let loops = try #require(try library.json(["list"]) as? [[String: Any]])
        #expect(loops.map { $0["title"] as? String } == ["Before"], "the library is as it was")
        #expect(try library.run(["doctor"]).output.hasPrefix("ok: 1 loops, 5 phrases, 0 audio files"))
    }

    /// On a full disk a library is read (listed, shown, checked, exported to another disk,
    /// studied without keeping the session), and space is freed: `rm` and `gc` change the
    /// database in the room the library held back (``LibraryLayout/room``).
    @Test(.enabled(if: getuid() == 0, "mounting a small file system needs root (CI runs as root)"))
    func onAFullDiskALibraryIsReadAndSpaceIsFreed() throws {
        let disk = Scratch.path("full-disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        // Room enough for the library to hold its room back (it keeps 64 MB free beside it).
        #expect(try system(["mount", "-t", "tmpfs", "-o", "size=80m", "tmpfs", disk]))
        defer { _ = try? system(["umount", "-l", disk]) }
        let library = TestLibrary(path: disk + "/library")
        #expect(try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"]).status == 0)
        #expect(try library.run(["new", "--text", "phrases.txt", "--title", "Kept"]).status == 0)
        #expect(try library.run(["identity"]).status == 0)
        let filler = disk + "/filler"
        _ = try system(["dd", "if=/dev/zero", "of=" + filler, "bs=64k", "status=none"]) // to the last byte

        for command in [["list"], ["show", "fixture"], ["doctor"], ["search", "gare"]] {
            let read = try run(library, command)
            #expect(read.status == 0 && read.error.isEmpty, "\(command): \(read.error)")
        }
        let bundle = Scratch.path("from-a-full-disk", extension: "loop")
        let exported = try run(library, ["export", "fixture", "-o", bundle])
        #expect(exported.status == 0 && FileManager.default.fileExists(atPath: bundle), "\(exported.error)")
        let studied = try run(library, ["study", "fixture", "--once", "--output", "null"])
        #expect(studied.status == 0, "\(studied.error)")
        #expect(studied.error.contains("no space is left on the disk holding the library"), "\(studied.error)")

        let removed = try run(library, ["rm", "fixture", "--yes"])
        #expect(removed.status == 0, "\(removed.error)")
        let collected = try run(library, ["gc"])
        #expect(collected.status == 0 && collected.output.contains("removed"), "\(collected.error)")
        try FileManager.default.removeItem(atPath: filler)
        let loops = try #require(try library.json(["list"]) as? [[String: Any]])
        #expect(loops.map { $0["title"] as? String } == ["Kept"])
        #expect(try library.run(["doctor"]).status == 0)
    }

    @Test func anEmptyLibraryOptionIsAnErrorNotTheDefault() throws {
        let home = Scratch.path("home")
        let result = try LoopProcess.start(
            ["list", "--library", ""], environment: ["HOME": home, "XDG_DATA_HOME": "", "LOOP_LIBRARY": ""]
        ).finish(limit: 30)
        expectOneLineError(result, "--library is empty")
        #expect(!FileManager.default.fileExists(atPath: home + "/.local/share/loop"), "no default library was made")
    }

    @Test func aKilledCutLeavesNothingThatTheNextCutDoesNotRemove() throws {
        let library = TestLibrary()
        let out = Scratch.path("clips")
        let killed = try run(
            library, ["cut", "clean.flac", "--text", "phrases.txt", "--out", out],
            environment: ["LOOP_TEST_STOP_AT": "cut.staged"])
        #expect(killed.status != 0)
        let staging = { try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".loop-cut-") } }
        #expect(try staging().count == 1, "killed with its clips staged")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".flac") }.isEmpty,
            "no clip half in place")
        let again = try run(library, ["cut", "clean.flac", "--text", "phrases.txt", "--out", out])
        #expect(again.status == 0, "\(again.error)")
        #expect(try staging().isEmpty, "the next cut removed what the killed one left")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".flac") }.count == 5)
    }

    @Test func aKilledInspectLeavesNothingThatTheNextDoesNotRemove() throws {
        let author = try libraryWithFixtureLoop()
        let bundle = Scratch.path("inspected", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let temporary = Scratch.path("inspect-tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let leftovers = {
            try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("loop-inspect-") }
        }
        let killed = try run(
            author, ["inspect", bundle], environment: ["TMPDIR": temporary, "LOOP_TEST_STOP_AT": "bundle.extracted"])
        #expect(killed.status != 0)
        #expect(try leftovers().count == 1)
        #expect(try run(author, ["inspect", bundle], environment: ["TMPDIR": temporary]).status == 0)
        #expect(try leftovers().isEmpty)
    }

    @Test func aRecordingKilledWhileSavingLeavesADraftToRecoverAndLeftoversForGC() throws {
        let library = try libraryWithFixtureLoop()
        let killed = try run(
            library, ["record", "fixture", "--input", "clean.flac", "--fast"], limit: 120,
            environment: ["LOOP_TEST_STOP_AT": "record.saving"])
        #expect(killed.status != 0)
        let recordings = library.path + "/recordings"
        #expect(try FileManager.default.contentsOfDirectory(atPath: recordings).contains { $0.hasPrefix(".saving-") })
        let doctor = try library.run(["doctor"])
        #expect(
            doctor.status == 0 && doctor.output.contains("1 piece of interrupted imports or recordings"),
            "\(doctor.output)")
        #expect(doctor.output.contains("--recover"), "the draft is there to recover")
        #expect(try library.run(["gc"]).status == 0)
        #expect(
            try !FileManager.default.contentsOfDirectory(atPath: recordings).contains { $0.hasPrefix(".saving-") },
            "gc removed it")
        let recovered = try library.run(["record", "fixture", "--recover"])
        #expect(recovered.status == 0, "\(recovered.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: recordings).isEmpty)
        #expect(try library.run(["doctor"]).output.hasPrefix("ok:"))
    }

    @Test func gcWaitsForAnImportInFlightAndTakesNothingOfIt() throws {
        let author = try libraryWithFixtureLoop()
        let bundle = Scratch.path("racing", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let learner = TestLibrary()
        #expect(try learner.run(["list"]).status == 0)
        let marker = Scratch.path("paused")
        let importing = try LoopProcess.start(
            ["import", bundle],
            environment: [
                "LOOP_LIBRARY": learner.path, "LOOP_TEST_STOP_AT": "import.verified:pause",
                "LOOP_TEST_STOP_FILE": marker,
            ])
        for _ in 0..<12_000 where !FileManager.default.fileExists(atPath: marker) { usleep(10_000) }
        #expect(FileManager.default.fileExists(atPath: marker), "the import reached its pause")
        let incoming = try FileManager.default.contentsOfDirectory(atPath: learner.path + "/audio/.incoming")
        #expect(
            incoming.contains { $0.hasPrefix("bundles-") }, "its extracted audio is in the library's scratch folder")
        let collecting = try LoopProcess.start(["gc"], environment: ["LOOP_LIBRARY": learner.path])
        // gc waits on the library lock the import holds: it cannot end while the import is paused.
        usleep(300_000)
        #expect(collecting.process.isRunning, "gc waits for the import")
        try FileManager.default.removeItem(atPath: marker)
        let imported = importing.finish(limit: 60)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(collecting.finish(limit: 60).status == 0)
        #expect(try learner.run(["doctor"]).output.hasPrefix("ok: 1 loops, 5 phrases, 1 audio files"))
    }

    @Test func publishingARenamedLoopReplacesItsEarlierFile() throws {
        let author = try libraryWithFixtureLoop()
        let shared = Scratch.path("published")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        try Data("not mine".utf8).write(to: URL(fileURLWithPath: shared + "/other-12345678.loop"))
        #expect(try author.run(["publish", "fixture", "--to", shared]).status == 0)
        #expect(try author.run(["edit", "fixture", "--title", "Renamed"]).status == 0)
        #expect(try author.run(["publish", "renamed", "--to", shared]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: shared).filter { $0.hasSuffix(".loop") }
            .sorted()
        #expect(
            files.count == 2 && files.contains("other-12345678.loop") && files.contains { $0.hasPrefix("renamed-") },
            "\(files)")
    }

    @Test func anEditorThatWritesBadTextOrADraftThatCannotBeWrittenIsOneLine() throws {
        let library = try libraryWithFixtureLoop()
        let editor = Scratch.path("latin1-editor", extension: "sh")
        try "#!/bin/sh\nprintf 'Caf\\351.\\n' > \"$1\"\n".write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        expectOneLineError(
            try run(library, ["edit", "fixture"], environment: ["EDITOR": editor, "VISUAL": ""]),
            "the editor saved text that is not UTF-8; the loop is unchanged")
        expectOneLineError(
            try run(
                library, ["edit", "fixture"],
                environment: ["EDITOR": editor, "VISUAL": "", "TMPDIR": "/nonexistent/folder"]),
            "cannot write the draft to edit (No such file or directory); set TMPDIR")
        #expect(((try library.json(["list"]) as? [[String: Any]])?.first?["revision"] as? Int) == 1, "unchanged")
    }

    /// An edit that ends without saving leaves no draft: a failing editor's draft goes with it
    /// (kept, and named, only when it holds changes), and a killed edit's draft is removed by
    /// the next edit.
    @Test func anEditThatEndsWithoutSavingLeavesNoDraftBehind() throws {
        let library = try libraryWithFixtureLoop()
        let temporary = Scratch.path("edit-tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let drafts = {
            (try? FileManager.default.contentsOfDirectory(atPath: temporary))?.filter { $0.hasPrefix("loop-edit-") }
                .sorted() ?? []
        }
        func editor(_ name: String, _ script: String) throws -> String {
            let path = Scratch.path(name, extension: "sh")
            try ("#!/bin/sh\n" + script + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
            return path
        }
        let environment = { (editor: String) in ["EDITOR": editor, "VISUAL": "", "TMPDIR": temporary] }

        let quits = try editor("quits", "exit 1")
        expectOneLineError(
            try run(library, ["edit", "fixture"], environment: environment(quits)),
            "exited with status 1; the loop is unchanged")
        #expect(drafts().isEmpty, "\(drafts())")

        let failsAfterTyping = try editor("fails", "echo 'Une ligne de plus.' >> \"$1\"; exit 1")
        let failed = try run(library, ["edit", "fixture"], environment: environment(failsAfterTyping))
        expectOneLineError(failed, "; your text is kept in \(temporary)/loop-edit-")
        #expect(drafts().count == 1 && drafts()[0].hasSuffix(".txt"), "only the kept text: \(drafts())")
        try FileManager.default.removeItem(atPath: temporary + "/" + drafts()[0])

        let hangs = try editor("hangs", "exec sleep 60")
        let killed = try LoopProcess.start(
            ["edit", "fixture"], environment: ["LOOP_LIBRARY": library.path].merging(environment(hangs)) { $1 })
        for _ in 0..<100 where drafts().isEmpty { usleep(50_000) }
        kill(killed.process.processIdentifier, SIGKILL)
        _ = killed.finish()
        #expect(drafts().count == 1, "the killed edit's draft: \(drafts())")
        let unchanged = try editor("unchanged", "true")
        #expect(try run(library, ["edit", "fixture"], environment: environment(unchanged)).status == 0)
        #expect(drafts().isEmpty, "removed by the next edit: \(drafts())")
        #expect(((try library.json(["list"]) as? [[String: Any]])?.first?["revision"] as? Int) == 1, "unchanged")
    }

    /// Where a library or a work folder cannot be, one line says why in the person's terms.
    @Test func aLibraryOrWorkFolderThatCannotBeIsNamedForWhatItIs() throws {
        let onProc = TestLibrary(path: "/proc/self")
        expectOneLineError(
            try run(onProc, ["new", "--text", "phrases.txt"]),
            "/proc/self: is on a file system that stores nothing (such as /proc)")
        let blocked = TestLibrary()
        try FileManager.default.createDirectory(atPath: blocked.path, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: blocked.path + "/audio"))
        expectOneLineError(
            try run(blocked, ["new", "--text", "phrases.txt"]), "\(blocked.path)/audio: is a file, not a folder")
        let library = try libraryWithFixtureLoop()
        let notAFolder = Scratch.path("tmp-file")
        try Data().write(to: URL(fileURLWithPath: notAFolder))
        expectOneLineError(
            try run(
                library, ["export", "fixture", "-o", Scratch.path("out", extension: "loop")],
                environment: ["TMPDIR": notAFolder]),
            "\(notAFolder): cannot make a work folder in it (Not a directory); set TMPDIR to a folder you can write")
        // Media decoded into a missing temporary folder: the folder is named, not the media.
        let missing = Scratch.path("no-such-tmp")
        expectOneLineError(
            try run(
                library, ["new", "--text", "phrases.txt", "--audio", "phone.m4a", "--title", "M"],
                environment: ["TMPDIR": missing]),
            "\(missing): the temporary folder is missing, and the decoded audio goes there: set TMPDIR")
        expectOneLineError(
            try run(
                library, ["new", "--text", "phrases.txt", "--audio", "phone.m4a", "--title", "M"],
                environment: ["TMPDIR": notAFolder]),
            "\(notAFolder): the temporary folder is not a folder")
    }

    /// A library on a read-only mount (made with a read-only bind mount, so root needed: as root,
    /// file permissions alone would not stop a write) is one line, not SQLite's statement.
    @Test(.enabled(if: getuid() == 0, "a read-only bind mount needs root"))
    func aReadOnlyLibraryIsReadAndStudiedAndItsRefusalsAreOneLine() throws {
        let library = try libraryWithFixtureLoop()
        func mount(_ arguments: [String]) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/mount")
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        try #require(try mount(["--bind", library.path, library.path]) == 0, "mount --bind is not allowed here")
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: [library.path]).waitUntilExit() }
        try #require(try mount(["-o", "remount,bind,ro", library.path]) == 0)
        let refused = try run(library, ["new", "--text", "phrases.txt", "--title", "Another"])
        expectOneLineError(refused, "\(library.path): the library is read-only")
        #expect(!refused.error.contains("INSERT") && !refused.error.contains("SQLite"), "\(refused.error)")

        // Read, as it is: listed, shown, checked; studied, saying once that nothing is kept.
        for command in [["list"], ["show", "fixture"], ["doctor"], ["search", "gare"]] {
            let read = try run(library, command)
            #expect(read.status == 0 && read.error.isEmpty, "\(command): \(read.error)")
        }
        let studied = try run(library, ["study", "fixture", "--once", "--output", "null"])
        #expect(studied.status == 0, "\(studied.error)")
        #expect(
            studied.error
                == "note: \(library.path): the library is read-only: you can study, but this session's time and repetitions will not be kept\n"
        )
    }

    @Test func importingSeveralBundlesImportsWhatItCanAndNamesEachRefusal() throws {
        let author = try libraryWithFixtureLoop()
        let folder = Scratch.path("mixed-folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try author.run(["export", "fixture", "-o", folder + "/a-good.loop"]).status == 0)
        try Data("not a zip".utf8).write(to: URL(fileURLWithPath: folder + "/b-broken.loop"))
        let learner = TestLibrary()
        let result = try run(learner, ["import", folder])
        #expect(result.status != 0)
        #expect(result.output.contains("Added 'Fixture'"))
        let lines = result.error.split(separator: "\n")
        #expect(
            lines.count == 2 && lines[0].hasPrefix("error: \(folder)/b-broken.loop: not a zip archive")
                && lines[1] == "imported 1 of 2 bundles; 1 refused", "\(result.error)")
        #expect(((try learner.json(["list"]) as? [Any]) ?? []).count == 1)
    }
}
