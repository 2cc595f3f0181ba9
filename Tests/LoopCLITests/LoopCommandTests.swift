import Foundation
import LoopTestSupport
import Synchronization
import Testing

/// Runs the built `loop` binary, as a user would.
struct LoopProcess {
    var status: Int32
    var output: String
    var error: String
    /// The signal that ended it, if one did.
    var killedBy: Int32? = nil

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = Fixture.folder

    /// The `loop` binary beside this test bundle (swift test builds it with the tests).
    static let executable: URL = {
        let besideTests = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("loop")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [products, products.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("loop")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug/loop")
    }()

    /// A running `loop`; `finish()` waits for it and collects its output.
    struct Running {
        let process: Process
        let output: Pipe
        let error: Pipe

        /// Waits for the command, at most `limit` seconds: a command that hangs is killed and
        /// recorded as a failure instead of holding up the whole run.
        func finish(limit: Double = 300, sourceLocation: SourceLocation = #_sourceLocation) -> LoopProcess {
            let timedOut = Flag()
            let pid = process.processIdentifier
            let watchdog = DispatchWorkItem {
                timedOut.set()
                kill(pid, SIGKILL)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
            // Both pipes drain at once, so a command that writes much to one never waits on the other.
            let errors = error.fileHandleForReading
            let collected = DataBox()
            let reading = DispatchGroup()
            DispatchQueue.global().async(group: reading) { collected.data = errors.readDataToEndOfFile() }
            let out = output.fileHandleForReading.readDataToEndOfFile()
            reading.wait()
            process.waitUntilExit()
            watchdog.cancel()
            if timedOut.isSet {
                Issue.record(
                    "loop \((process.arguments ?? []).joined(separator: " ")) did not end within \(Int(limit)) s",
                    sourceLocation: sourceLocation)
            }
            return LoopProcess(
                status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                error: String(decoding: collected.data, as: UTF8.self),
                killedBy: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil)
        }
    }

    /// `launcher`, if given, is a command that runs `loop` (the binary's path and `arguments`
    /// follow it).
    static func start(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil, launcher: [String] = []
    ) throws -> Running {
        let process = Process()
        process.executableURL = launcher.first.map { URL(fileURLWithPath: $0) } ?? executable
        process.arguments = launcher.isEmpty ? arguments : launcher.dropFirst() + [executable.path] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: fixtures)
        var merged = ProcessInfo.processInfo.environment
        merged["TMPDIR"] = Scratch.folder // whatever a command leaves there goes with the run
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe()
        let error = Pipe()
        // A command reads `input`, or nothing: it never waits on the runner's own input.
        let inputPipe = input.map { _ in Pipe() }
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        if let inputPipe, let input {
            // A command may stop reading early (a text past its limit): that is its answer, not
            // the runner's failure, so a closed pipe is no signal here and its error is ignored.
            signal(SIGPIPE, SIG_IGN)
            try? inputPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? inputPipe.fileHandleForWriting.close()
        }
        return Running(process: process, output: output, error: error)
    }

    static func run(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil, launcher: [String] = []
    ) throws -> LoopProcess {
        try start(arguments, environment: environment, input: input, launcher: launcher).finish()
    }
}

/// Set once from any thread.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}

/// Data filled in by one thread and read by another after it is done.
final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// The fixture's text with a third line `clean.flac` does not read, written to a scratch file.
private func textWithALineTheTakeDoesNotRead() throws -> String {
    let text = Scratch.path("text", extension: "txt")
    try Data(
        "Bonjour, madame.\nUn café, s'il vous plaît.\nLe train pour Lyon part à huit heures ce soir.\nMerci.\nOù est la gare, s'il vous plaît ?\nÀ droite, puis tout droit.\n"
            .utf8
    ).write(to: URL(fileURLWithPath: text))
    return text
}

struct SegmentCommandTests {
    @Test func jsonHasTheDocumentedShape() throws {
        let result = try LoopProcess.run(["segment", "clean.flac", "--count", "5", "--json"])
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(
            object.keys.sorted() == [
                "channels", "cuts", "duration", "file", "found", "language", "languageOrigin", "method", "missing",
                "notes", "phrases", "sampleRate", "segments",
            ], "the documented keys, no more")
        #expect(
            result.output.hasPrefix("{\"channels\":1,\"cuts\":["), "keys sorted, so the same take prints the same text")
        let cuts = try #require(object["cuts"] as? [[String: Double]])
        #expect(cuts.count == 4 && cuts.allSatisfy { $0.keys.sorted() == ["at", "confidence", "pause"] })
        #expect(object["sampleRate"] as? Int == 16_000)
        #expect(object["channels"] as? Int == 1)
        #expect(abs((object["duration"] as? Double ?? 0) - 9.677) < 0.01)
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.count == 5)
        #expect(
            segments.allSatisfy {
                $0.keys.sorted() == ["end", "phrase", "start"] && $0["phrase"] is NSNull
                    && ($0["start"] as? Double ?? 1) < ($0["end"] as? Double ?? 0)
            }, "without a text, no segment names a phrase")
        #expect(result.output.split(separator: "\n").count == 1, "exactly one JSON object")
    }

    /// A text with a line the take does not read: every segment names its line, the line
    /// without audio is listed, and no segment is given to it.
    @Test func jsonNamesEachSegmentsLineAndTheLinesNotFound() throws {
        let text = try textWithALineTheTakeDoesNotRead()
        let result = try LoopProcess.run(["segment", "clean.flac", "--text", text, "--language", "fr", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let segments = try #require(object["segments"] as? [[String: Any]])
        #expect(segments.compactMap { $0["phrase"] as? Int } == [1, 2, 4, 5, 6])
        #expect(object["missing"] as? [Int] == [3])
        let human = try LoopProcess.run(["segment", "clean.flac", "--text", text, "--language", "fr"])
        #expect(human.output.contains("5 of 6 phrases found in the take; 3 not in it"), "\(human.output)")
    }

    @Test func labelsAreAnAudacityTrackWithThePhraseTexts() throws {
        let result = try LoopProcess.run(["segment", "clean.flac", "--text", "phrases.txt", "--labels"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 5)
        let fields = lines[0].split(separator: "\t")
        #expect(fields.count == 3 && Double(fields[0])! < Double(fields[1])! && fields[2] == "Bonjour, madame.")
    }

    @Test func humanOutputShowsPhrasesCutsAndAWaveformWithoutColourWhenPiped() throws {
        let result = try LoopProcess.run(["segment", "clean.flac", "--text", "phrases.txt"])
        #expect(result.status == 0)
        #expect(result.output.contains("5 phrases in 9.68 s"))
        #expect(result.output.contains("Où est la gare, s'il vous plaît ?"))
        #expect(result.output.components(separatedBy: "✂").count == 5)
        #expect(result.output.contains("┃"))
        #expect(!result.output.contains("\u{1B}["), "no colour codes outside a terminal")
    }

    @Test(arguments: [
        (["segment", "missing.flac"], "error: missing.flac: no such file"),
        (["segment", "not-audio.flac"], "error: not-audio.flac: not an audio or video file this tool reads"),
        (["segment", "empty.wav"], "error: empty.wav: the file is empty"),
        (["segment", "zero-length.wav"], "error: zero-length.wav: the file holds no audio"),
        (["segment", "video-only.mp4"], "error: video-only.mp4: the file holds no audio stream"),
        (["segment", "film.mp4", "--stream", "1"], "error: film.mp4: the file has 1 audio stream (0 to 0), not 1"),
        (["segment", "truncated.flac"], "error: truncated.flac:"),
        (["segment", "silence.flac"], "error: silence.flac: no speech found"),
        (["segment", "clean.flac", "--count", "12"], "error: clean.flac: the take has"),
        (["segment", "clean.flac", "--text", "nope.txt"], "error: nope.txt: no such file"),
    ])
    func badInputIsOneClearLineAndAFailureStatus(arguments: [String], message: String) throws {
        let result = try LoopProcess.run(arguments)
        #expect(result.status != 0)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix(message), "got: \(result.error)")
        #expect(result.error.split(separator: "\n").count == 1)
    }

    @Test func conflictingOptionsAreRefusedBeforeAnyWork() throws {
        let result = try LoopProcess.run(["segment", "clean.flac", "--count", "5", "--text", "phrases.txt"])
        #expect(result.status == 64)
        #expect(result.error.contains("give --count or --text, not both"))
    }
}

struct CutCommandTests {
    @Test func writesNumberedClipsAndLabelsQuietly() throws {
        let folder = Scratch.path("cut")
        let result = try LoopProcess.run(["cut", "clean.flac", "--text", "phrases.txt", "--out", folder])
        #expect(result.status == 0)
        #expect(result.output.isEmpty, "quiet on success")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(
            files == [
                "01-bonjour-madame.flac", "02-un-cafe-s-il-vous-plait.flac", "03-merci.flac",
                "04-ou-est-la-gare-s-il-vous-plait.flac", "05-a-droite-puis-tout-droit.flac", "labels.txt",
            ])
    }

    /// A line the take does not read gets no clip, and the clips keep their lines' numbers.
    @Test func clipsAreNumberedByTheirLineWhenALineIsNotRead() throws {
        let text = try textWithALineTheTakeDoesNotRead()
        let folder = Scratch.path("cut")
        let result = try LoopProcess.run(["cut", "clean.flac", "--text", text, "--language", "fr", "--out", folder])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("5 of 6 phrases found in the take; 3 still need audio"), "\(result.error)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(
            files == [
                "01-bonjour-madame.flac", "02-un-cafe-s-il-vous-plait.flac", "04-merci.flac",
                "05-ou-est-la-gare-s-il-vous-plait.flac", "06-a-droite-puis-tout-droit.flac", "labels.txt",
            ])
    }

    @Test func jsonListsEveryClipWithItsPhrase() throws {
        let folder = Scratch.path("cut")
        let result = try LoopProcess.run([
            "cut", "rate-8k.flac", "--text", "phrases.txt", "--out", folder, "--format", "wav", "--json",
        ])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let clips = try #require(object["clips"] as? [[String: Any]])
        #expect(clips.count == 5)
        #expect(clips[2]["text"] as? String == "Merci.")
        #expect((clips[2]["file"] as? String)?.hasSuffix("03-merci.wav") == true)
    }

    @Test func aTakeThatCannotBeCutWritesNothing() throws {
        let folder = Scratch.path("cut")
        let text = folder + ".txt"
        try (1...12).map { "Phrase \($0)." }.joined(separator: "\n").write(
            toFile: text, atomically: true, encoding: .utf8)
        let result = try LoopProcess.run(["cut", "clean.flac", "--text", text, "--out", folder])
        #expect(result.status != 0)
        #expect(result.error.contains("does not read its text"))
        #expect(
            result.error.hasSuffix(
                "; check that the take reads this text, in the text's language (a `# language: CODE` line at its top; `loop edit LOOP --language CODE` for a loop)\n"
            ) && !result.error.contains("?;"), "one sentence, then what to check: \(result.error)")
        #expect(!FileManager.default.fileExists(atPath: folder))
    }
}

struct SplitCommandTests {
    @Test func printsGroupsAndPhrases() throws {
        let result = try LoopProcess.run(["split", "phrases.txt"])
        #expect(result.status == 0)
        #expect(result.output.contains("Fixture (fr)"))
        #expect(result.output.contains("Group 2"))
        #expect(result.output.contains("4  Où est la gare, s'il vous plaît ?"))
    }

    @Test func jsonCarriesMetadataGroupsAndTranslations() throws {
        let folder = Scratch.path("split")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let text = folder + "/text.txt"
        try "# title: T\n# language: es\n\n¿Qué tal? ¡Bien! | How are you? Fine!\n\nAdiós.".write(
            toFile: text, atomically: true, encoding: .utf8)
        let result = try LoopProcess.run(["split", text, "--sentences", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["title"] as? String == "T")
        let groups = try #require(object["groups"] as? [[String: Any]])
        let first = try #require(groups.first?["phrases"] as? [[String: Any]])
        #expect(first.map { $0["text"] as? String } == ["¿Qué tal?", "¡Bien!"])
        #expect(first.map { $0["translation"] as? String } == ["How are you?", "Fine!"])
    }
}

struct HelpTests {
    @Test(arguments: [[], ["split"], ["segment"], ["cut"], ["benchmark"]])
    func everyCommandHasHelp(command: [String]) throws {
        let result = try LoopProcess.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("USAGE:"))
    }
}
