import ArgumentParser
import Foundation
import LoopAuthoring
import LoopStore

struct ShareBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Time exporting and importing a loop with long audio, next to zip and unzip.",
        discussion: """
            Makes a loop of --minutes of audio (the sample loop's take repeated, 16 kHz FLAC), then \
            times `loop export` next to `zip` of the same take and manifest, and `loop import` \
            (with its full verification: signature, hashes, decoding) next to `unzip` of the \
            bundle. Goal: within 1.5x of zip and unzip.
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
            guard ChildProcess.exists("zip"), ChildProcess.exists("unzip") else { throw CLIError("zip and unzip are needed for the comparison: `apt-get install zip unzip` (Scripts/setup --dev)") }
            guard let sample = RepositoryFiles.locate("loops/au-cafe/take.flac"), let text = RepositoryFiles.locate("loops/au-cafe/text.txt") else {
                throw CLIError("the bundled sample loop was not found; run from the repository")
            }
            let folder = NSTemporaryDirectory() + "loop-benchmark-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let take = BenchmarkTake(label: "\(Int(minutes)) min", path: folder + "/take.flac", sampleRate: 16_000, channelCount: 1, minutes: minutes)
            try await take.ensureGenerated(from: sample)
            let copies = Int((minutes * 60 / 20.01).rounded(.down))
            let body = try String(contentsOfFile: text, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
            let longText = (["# title: Benchmark", "# language: fr"] + Array(repeating: body.trimmingCharacters(in: .newlines), count: copies)).joined(separator: "\n\n")
            let library = try LoopLibrary(at: folder + "/library")
            let progress = ProgressBar("authoring the loop")
            let source = try LoopSource(parsing: longText)
            let loop = try await BlockingWork.run { try library.author(source: source, sourceText: longText, takePath: take.path, progress: progress.callback).loop }
            progress.finish()

            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            let bundle = folder + "/loop.loop"
            let export = try median { _ = try ChildProcess.run(executable, ["export", String(loop.summary.id.prefix(8)), "-o", bundle, "--library", folder + "/library"]) }
            // zip of the same files: the take and a manifest-sized text.
            try longText.write(toFile: folder + "/manifest.json", atomically: true, encoding: .utf8)
            let zip = try median {
                try? FileManager.default.removeItem(atPath: folder + "/same.zip")
                _ = try ChildProcess.run("zip", ["-q", "-j", folder + "/same.zip", take.path, folder + "/manifest.json"])
            }
            let importTime = try median {
                let target = folder + "/import-" + UUID().uuidString
                _ = try ChildProcess.run(executable, ["import", bundle, "--library", target])
                try? FileManager.default.removeItem(atPath: target)
            }
            let unzip = try median {
                let target = folder + "/unzip-" + UUID().uuidString
                _ = try ChildProcess.run("unzip", ["-q", bundle, "-d", target])
                try? FileManager.default.removeItem(atPath: target)
            }
            let bytes = (try FileManager.default.attributesOfItem(atPath: bundle)[.size] as? Int) ?? 0
            print(String(format: "a loop of %.0f minutes: %d phrases, bundle %.1f MB; median of %d runs", minutes, loop.summary.phraseCount, Double(bytes) / 1e6, runs))
            print(String(format: "  loop export   %6.2f s    zip     %6.2f s    %.2fx %@", export, zip, export / zip, export / zip <= 1.5 ? "(goal 1.5x: met)" : "(goal 1.5x: missed)"))
            print(String(format: "  loop import   %6.2f s    unzip   %6.2f s    %.2fx %@", importTime, unzip, importTime / unzip, importTime / unzip <= 1.5 ? "(goal 1.5x: met)" : "(goal 1.5x: missed)"))
        }
    }

    private func median(_ body: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let started = Date()
            try body()
            times.append(Date().timeIntervalSince(started))
        }
        return times.sorted()[times.count / 2]
    }
}
