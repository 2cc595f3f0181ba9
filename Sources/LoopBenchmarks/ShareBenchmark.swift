import ArgumentParser
import Foundation
import LoopAudioFiles
import LoopCLI
import LoopExchange
import LoopFoundation
import LoopModel
import LoopReports
import LoopStore
import LoopTerminal
import LoopText
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
            guard ["zip", "unzip", "flac"].allSatisfy(ChildProcess.exists) else {
                throw CommandRefusal(
                    "zip, unzip and flac are needed for the comparison: `apt-get install zip unzip flac` (Scripts/setup --dev)"
                )
            }
            let folder = NSTemporaryDirectory() + "loop-benchmark-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let (loop, take) = try await LongLoop.make(minutes: minutes, in: folder)
            let longText = loop.sourceText

            let executable = LoopProgram.path
            let bundle = folder + "/loop.loop"
            let export = try median(work: {
                try Self.run(
                    executable,
                    ["export", String(loop.summary.id.prefix(8)), "-o", bundle, "--library", folder + "/library"])
            })
            // zip of the same files, stored as loop stores them: the take and a manifest-sized text.
            try longText.write(toFile: folder + "/manifest.json", atomically: true, encoding: .utf8)
            let zip = try median(
                prepare: { try? FileManager.default.removeItem(atPath: folder + "/same.zip") },
                work: {
                    try Self.run("zip", ["-q", "-0", "-j", folder + "/same.zip", take.path, folder + "/manifest.json"])
                })
            let target = folder + "/target"
            let clear: () -> Void = { try? FileManager.default.removeItem(atPath: target) }
            let importTime = try median(
                prepare: clear, work: { try Self.run(executable, ["import", bundle, "--library", target]) })
            let unzip = try median(prepare: clear, work: { try Self.run("unzip", ["-q", bundle, "-d", target]) })
            // The full decode check loop import makes, on the take unzip extracted.
            let extracted = try FileManager.default.contentsOfDirectory(atPath: target + "/audio").filter {
                $0.hasSuffix(".flac")
            }.map { target + "/audio/" + $0 }
            let decode = try median(work: { try Self.run("flac", ["-t", "-s"] + extracted) })
            clear()
            let bytes = (try FileManager.default.attributesOfItem(atPath: bundle)[.size] as? Int) ?? 0
            print(
                String(
                    format: "a loop of %.0f minutes: %d phrases, bundle %.1f MB; median of %d runs", minutes,
                    loop.summary.phraseCount, Double(bytes) / 1e6, runs))
            print(
                String(
                    format: "  loop export   %6.2f s    zip -0                %6.2f s    %.2fx (goal 1.5x: %@)", export,
                    zip, export / zip, export / zip <= 1.5 ? "met" : "missed"))
            let unpacked = unzip + decode
            print(
                String(
                    format: "  loop import   %6.2f s    unzip + flac -t       %6.2f s    %.2fx (goal 1.2x: %@)",
                    importTime, unpacked, importTime / unpacked, importTime / unpacked <= 1.2 ? "met" : "missed"))
            print(String(format: "                           (unzip %.2f s, flac -t %.2f s)", unzip, decode))
        }
    }

    /// Runs a program to its end; a failure stops the benchmark rather than timing an error.
    static func run(_ program: String, _ arguments: [String]) throws {
        let report = try ChildProcess.run(program, arguments)
        guard report.status == 0 else {
            throw CommandRefusal("\(program) \(arguments.joined(separator: " ")) failed with status \(report.status)")
        }
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
    /// A loop of `minutes` of audio: the sample loop's take over and over, its phrases as many
    /// times. The copies are placed as subtitles at the sample's own cut times (a text read
    /// many times over is no text to align: each phrase matches every copy of itself).
    static func make(minutes: Double, in folder: String) async throws -> (loop: LoopDetail, take: BenchmarkTake) {
        guard let sample = RepositoryFiles.locate("loops/au-cafe/take.flac"),
            let text = RepositoryFiles.locate("loops/au-cafe/text.txt")
        else {
            throw CommandRefusal("the bundled sample loop was not found; run from the repository")
        }
        let sampleSeconds = try AudioFileReader(path: sample).info.duration
        let copies = max(1, Int((minutes * 60 / sampleSeconds).rounded(.down)))
        let take = BenchmarkTake(
            label: "\(Int(minutes)) min", path: folder + "/take.flac", sampleRate: 16_000, channelCount: 1,
            minutes: Double(copies) * sampleSeconds / 60)
        try await take.ensureGenerated(from: sample)
        let library = try LibraryStore(at: folder + "/library")
        // Its phrases, without its pictures (named relative to its folder).
        let sampleText = try String(contentsOfFile: text, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .filter { !$0.hasPrefix("# group-image") && !$0.hasPrefix("# image") }.joined(separator: "\n")
        let cut = try await Library(store: library).author(
            source: try LoopSource(parsing: sampleText), sourceText: sampleText, takePath: sample
        ).loop
        let cues = (0..<copies).flatMap { copy in
            cut.phrases.compactMap { phrase -> SubtitleCue? in
                guard let audio = phrase.audio else { return nil }
                let offset = Double(copy) * sampleSeconds
                let rate = Double(audio.sampleRate)
                return SubtitleCue(
                    start: offset + Double(audio.startFrame) / rate, end: offset + Double(audio.endFrame) / rate,
                    text: phrase.text)
            }
        }
        try library.remove(loop: cut.summary.id)
        let progress = ProgressBar("authoring the loop")
        let loop = try await Library(store: library).author(
            subtitles: cues, translations: [], takePath: take.path, alignment: SubtitleAlignment(), title: "Benchmark",
            language: "fr",
            translationLanguage: nil, tags: [], progress: progress.callback
        ).loop
        progress.finish()
        return (loop, take)
    }
}
