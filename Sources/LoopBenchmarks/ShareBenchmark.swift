import ArgumentParser
import Foundation
import LoopCLI
import LoopModel
import LoopTerminal
import LoopText
import LoopStore
import LoopWorkflows

struct ShareBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Time exporting and importing a loop with long audio, next to zip, unzip and flac.",
        discussion: """
            Makes a loop of --minutes of audio (the sample loop's take repeated, 16 kHz FLAC), then \
            times `loop export` next to `zip -0` of the same take and manifest (both store the \
            FLAC as it is), and `loop import` (signature, hashes, a full decode of the audio, \
            the library written and synced) next to `unzip` of the bundle plus `flac -t`, the \
            same full decode check. Every program's exit status is checked; only the work is \
            timed (folders are made and removed outside the clock). Goals: export within 1.5x of \
            zip, import within 1.2x of unzip plus flac -t.
            """
    )

    @Option(help: "Length of the loop's audio, in minutes.")
    var minutes: Double = 30

    @Option(help: "Runs of each program; the median is shown.")
    var runs: Int = 3

    func validate() throws {
        guard minutes > 0, minutes <= 600 else { throw ValidationError("--minutes takes 0 to 600") }
        guard (1...100).contains(runs) else { throw ValidationError("--runs takes 1 to 100") }
    }

    func run() async throws {
        try await runReportingErrors {
            guard ["zip", "unzip", "flac"].allSatisfy(ChildProcess.exists) else { throw CLIError(.refused, "zip, unzip and flac are needed for the comparison: `apt-get install zip unzip flac` (Scripts/setup --dev)") }
            let folder = NSTemporaryDirectory() + "loop-benchmark-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let (loop, take) = try await LongLoop.make(minutes: minutes, in: folder)
            let longText = loop.sourceText

            let executable = LoopProgram.path
            let bundle = folder + "/loop.loop"
            let export = try median(work: { try Self.run(executable, ["export", String(loop.summary.id.prefix(8)), "-o", bundle, "--library", folder + "/library"]) })
            // zip of the same files, stored as loop stores them: the take and a manifest-sized text.
            try longText.write(toFile: folder + "/manifest.json", atomically: true, encoding: .utf8)
            let zip = try median(
                prepare: { try? FileManager.default.removeItem(atPath: folder + "/same.zip") },
                work: { try Self.run("zip", ["-q", "-0", "-j", folder + "/same.zip", take.path, folder + "/manifest.json"]) })
            let target = folder + "/target"
            let clear: () -> Void = { try? FileManager.default.removeItem(atPath: target) }
            let importTime = try median(prepare: clear, work: { try Self.run(executable, ["import", bundle, "--library", target]) })
            let unzip = try median(prepare: clear, work: { try Self.run("unzip", ["-q", bundle, "-d", target]) })
            // The full decode check loop import makes, on the take unzip extracted.
            let extracted = try FileManager.default.contentsOfDirectory(atPath: target + "/audio").filter { $0.hasSuffix(".flac") }.map { target + "/audio/" + $0 }
            let decode = try median(work: { try Self.run("flac", ["-t", "-s"] + extracted) })
            clear()
            let bytes = (try FileManager.default.attributesOfItem(atPath: bundle)[.size] as? Int) ?? 0
            print(String(format: "a loop of %.0f minutes: %d phrases, bundle %.1f MB; median of %d runs", minutes, loop.summary.phraseCount, Double(bytes) / 1e6, runs))
            print(String(format: "  loop export   %6.2f s    zip -0                %6.2f s    %.2fx (goal 1.5x: %@)", export, zip, export / zip, export / zip <= 1.5 ? "met" : "missed"))
            let unpacked = unzip + decode
            print(String(format: "  loop import   %6.2f s    unzip + flac -t       %6.2f s    %.2fx (goal 1.2x: %@)", importTime, unpacked, importTime / unpacked, importTime / unpacked <= 1.2 ? "met" : "missed"))
            print(String(format: "                           (unzip %.2f s, flac -t %.2f s)", unzip, decode))
        }
    }

    /// Runs a program to its end; a failure stops the benchmark rather than timing an error.
    static func run(_ program: String, _ arguments: [String]) throws {
        let report = try ChildProcess.run(program, arguments)
        guard report.status == 0 else { throw CLIError(.refused, "\(program) \(arguments.joined(separator: " ")) failed with status \(report.status)") }
    }

    /// The median time of `work`, each run after `prepare` (untimed).
    private func median(prepare: () -> Void = {}, work: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            prepare()
            let started = Date()
            try work()
            times.append(Date().timeIntervalSince(started))
        }
        return times.sorted()[times.count / 2]
    }
}

/// A loop of many minutes in a library of its own: the sample loop's text repeated over a take
/// that repeats the sample's audio (16 kHz FLAC), authored as `loop new` would.
enum LongLoop {
    static func make(minutes: Double, in folder: String) async throws -> (loop: LoopDetail, take: BenchmarkTake) {
        guard let sample = RepositoryFiles.locate("loops/au-cafe/take.flac"), let text = RepositoryFiles.locate("loops/au-cafe/text.txt") else {
            throw CLIError(.refused, "the bundled sample loop was not found; run from the repository")
        }
        let take = BenchmarkTake(label: "\(Int(minutes)) min", path: folder + "/take.flac", sampleRate: 16_000, channelCount: 1, minutes: minutes)
        try await take.ensureGenerated(from: sample)
        let copies = Int((minutes * 60 / 20.01).rounded(.down))
        let body = try String(contentsOfFile: text, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        let longText = (["# title: Benchmark", "# language: fr"] + Array(repeating: body.trimmingCharacters(in: .newlines), count: copies)).joined(separator: "\n\n")
        let library = try LoopLibrary(at: folder + "/library")
        let progress = ProgressBar("authoring the loop")
        let source = try LoopSource(parsing: longText)
        let loop = try await Authoring(library: library).author(source: source, sourceText: longText, takePath: take.path, progress: progress.callback).loop
        progress.finish()
        return (loop, take)
    }
}
