import ArgumentParser
import Foundation
import LoopAudio
import LoopAudioFiles
import LoopCLI
import LoopFoundation
import LoopReports
import LoopTerminal

/// `loop-benchmark`: the tool's speed and memory, measured against its goals and next to the
/// standard tools that do the same work. Prints figures; not a test. Built as a program of its
/// own, so the `loop` a user runs carries none of it.
@main
struct BenchmarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop-benchmark",
        abstract: "Measure loop's speed and memory (prints figures; not a test).",
        discussion:
            "Run from the repository, after `swift build -c release --static-swift-stdlib --product P` for P in loop, loop-benchmark and loop-server: it runs the `loop` built beside it.",
        subcommands: [
            SegmentBenchmark.self, AlignBenchmark.self, LibraryBenchmark.self, StudyBenchmark.self,
            RecordBenchmark.self, ShareBenchmark.self, ServerBenchmark.self, DecodeBenchmark.self,
        ]
    )
}

/// The `loop` program measured: the one built beside this benchmark.
enum LoopProgram {
    static var path: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("loop").path
    }
}

/// Where the benchmark's generated takes go, and how they are made.
struct BenchmarkTake {
    var label: String
    var path: String
    var sampleRate: Int
    var channelCount: Int
    var minutes: Double

    /// Writes `minutes` of the source take over and over (resampled, channels duplicated).
    func generate(from source: String, progress: ProgressBar) throws {
        var speech: [Float] = []
        var reader = try AudioFileReader(path: source)
        let sourceRate = reader.info.sampleRate
        try reader.forEachMonoBlock { speech.append(contentsOf: $0) }
        let resampled = Self.resample(speech, from: sourceRate, to: sampleRate)
        var writer = try AudioFileWriter(path: path, format: .flac, sampleRate: sampleRate, channelCount: channelCount)
        let total = Int(minutes * 60 * Double(sampleRate))
        var written = 0
        var block = [Float](repeating: 0, count: 65_536 * channelCount)
        var cursor = 0
        while written < total {
            let frames = min(65_536, total - written)
            for frame in 0..<frames {
                let sample = resampled[cursor]
                cursor = (cursor + 1) % resampled.count
                for channel in 0..<channelCount {
                    block[frame * channelCount + channel] = channel == 0 ? sample : sample * 0.9
                }
            }
            try block.withUnsafeBufferPointer {
                try writer.write(UnsafeBufferPointer(rebasing: $0[0..<(frames * channelCount)]))
            }
            written += frames
            progress.update(Double(written) / Double(total))
        }
        try writer.commit()
    }

    /// Generates the take unless a kept one is already there, with a progress bar.
    func ensureGenerated(from source: String) async throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let progress = ProgressBar("generating \(label)")
        try await BlockingWork.run { [self] in try generate(from: source, progress: progress) }
        progress.finish()
    }

    /// Linear interpolation: enough to make benchmark audio, not for listening.
    static func resample(_ samples: [Float], from source: Int, to target: Int) -> [Float] {
        guard source != target, samples.count > 1 else { return samples }
        let count = Int(Double(samples.count) * Double(target) / Double(source))
        let step = Double(source) / Double(target)
        return (0..<count).map { index in
            let position = Double(index) * step
            let base = min(Int(position), samples.count - 2)
            let fraction = Float(position - Double(base))
            return samples[base] * (1 - fraction) + samples[base + 1] * fraction
        }
    }
}

struct SegmentBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segment",
        abstract: "Time `loop segment` on long takes next to ffmpeg silencedetect and a plain decode.",
        discussion: """
            Generates a take of --minutes at 16 kHz mono and at 44.1 kHz stereo (FLAC, from the \
            bundled sample loop's take or --source), then runs `loop segment`, \
            `ffmpeg -af silencedetect=n=-50dB:d=0.2` and a plain libsndfile decode on each, \
            --runs times, and prints the median wall time, the realtime factor and peak memory. \
            `loop segment` is timed on every core (as a user runs it) and on one (as ffmpeg and \
            the decode run); the goals are judged on one thread against one thread: at least 2x \
            ffmpeg's speed, within 1.5x of the plain decode, under 64 MiB.
            """
    )

    @Option(help: "Length of the generated takes, in minutes.")
    var minutes: Double = 60

    @Option(help: "Runs of each program; the median is shown.")
    var runs: Int = 3

    @Option(help: "Speech to repeat into the long takes (default: the bundled sample loop's take).")
    var source: String?

    @Option(help: "Keep the generated takes in this folder and reuse them next time.")
    var keep: String?

    func validate() throws {
        guard minutes > 0, minutes <= 600 else { throw ValidationError("--minutes takes 0 to 600") }
        guard (1...100).contains(runs) else { throw ValidationError("--runs takes 1 to 100") }
    }

    func run() async throws {
        try await runReportingErrors {
            guard let source = source ?? RepositoryFiles.locate("loops/au-cafe/take.flac") else {
                throw CommandRefusal("the bundled sample take was not found; give one with --source FILE")
            }
            let folder = keep ?? (NSTemporaryDirectory() + "loop-benchmark-" + UUID().uuidString)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { if keep == nil { try? FileManager.default.removeItem(atPath: folder) } }
            let loopProgram = LoopProgram.path
            let minutesLabel = minutes == minutes.rounded() ? "\(Int(minutes))" : "\(minutes)"
            let takes = [
                BenchmarkTake(
                    label: "\(minutesLabel) min, 16 kHz mono", path: folder + "/take-16k-mono-\(minutesLabel)m.flac",
                    sampleRate: 16_000, channelCount: 1, minutes: minutes),
                BenchmarkTake(
                    label: "\(minutesLabel) min, 44.1 kHz stereo",
                    path: folder + "/take-44k-stereo-\(minutesLabel)m.flac", sampleRate: 44_100, channelCount: 2,
                    minutes: minutes),
            ]
            let hasFFmpeg = ChildProcess.exists("ffmpeg")
            for take in takes {
                try await take.ensureGenerated(from: source)
                var rows: [(String, ChildProcessReport)] = []
                // Both: on every core (what a user gets), and on one, as ffmpeg and the decode run.
                let threads = min(ProcessInfo.processInfo.activeProcessorCount, 8)
                rows.append(
                    ("loop segment (\(threads) thr)", try median(loopProgram, ["segment", take.path, "--json"])))
                rows.append(
                    (
                        "loop segment (1 thr)",
                        try median(loopProgram, ["segment", take.path, "--json", "--threads", "1"])
                    ))
                if hasFFmpeg {
                    rows.append(
                        (
                            "ffmpeg silencedetect",
                            try median(
                                "ffmpeg",
                                [
                                    "-nostdin", "-hide_banner", "-nostats", "-i", take.path, "-af",
                                    "silencedetect=n=-50dB:d=0.2", "-f", "null", "-",
                                ])
                        ))
                }
                let benchmark = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
                rows.append(("libsndfile decode (1 thr)", try median(benchmark, ["decode", take.path])))
                print(report(take: take, rows: rows, hasFFmpeg: hasFFmpeg))
            }
            if hasFFmpeg { try mediaReport(from: takes[1], folder: folder, label: minutesLabel) }
        }
    }

    /// A phone's m4a (AAC) of the stereo take: `loop segment` on it (which decodes it through
    /// FFmpeg's libraries into a temporary FLAC first), that decode alone, and `ffmpeg -f null`.
    private func mediaReport(from take: BenchmarkTake, folder: String, label: String) throws {
        let media = folder + "/take-44k-stereo-\(label)m.m4a"
        if !FileManager.default.fileExists(atPath: media) {
            let made = try ChildProcess.run(
                "ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", take.path, "-c:a", "aac", "-b:a", "96k", media])
            guard made.status == 0 else { throw CommandRefusal("ffmpeg could not make \(media)") }
        }
        let benchmark = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let segment = try median(LoopProgram.path, ["segment", media, "--json"])
        let decode = try median(benchmark, ["decode", "--media", media])
        let ffmpeg = try median("ffmpeg", ["-nostdin", "-hide_banner", "-nostats", "-i", media, "-f", "null", "-"])
        let size = ((try? FileManager.default.attributesOfItem(atPath: media)[.size] as? Int) ?? nil) ?? 0
        let audioSeconds = take.minutes * 60
        var lines = [
            String(
                format: "%@ min, 44.1 kHz stereo as m4a (AAC 96 kb/s, %.1f MB), median of %d runs", label,
                Double(size) / 1e6, runs)
        ]
        lines.append("  program                    time   realtime   peak memory")
        for (name, row) in [
            ("loop segment (m4a)", segment), ("FFmpeg libs decode", decode), ("ffmpeg -f null", ffmpeg),
        ] {
            let padded = name.padding(toLength: 22, withPad: " ", startingAt: 0)
            lines.append(
                "  " + padded
                    + String(
                        format: " %8.2f s %8.0fx %9.1f MiB", row.seconds, audioSeconds / row.seconds,
                        Double(row.peakMemory) / 1_048_576))
        }
        let ratio = decode.seconds / ffmpeg.seconds
        lines.append(
            String(
                format: "  goal: decode within 1.3x of ffmpeg ....... %.2fx %@", ratio, ratio <= 1.3 ? "met" : "missed")
        )
        lines.append(
            String(
                format: "  goal: peak memory under 64 MiB ........... %.1f MiB %@",
                Double(segment.peakMemory) / 1_048_576, segment.peakMemory < 64 << 20 ? "met" : "missed"))
        print(lines.joined(separator: "\n"))
    }

    private func median(_ executable: String, _ arguments: [String]) throws -> ChildProcessReport {
        var reports: [ChildProcessReport] = []
        for _ in 0..<runs {
            let report = try ChildProcess.run(executable, arguments)
            guard report.status == 0 else {
                throw CommandRefusal(
                    "\(executable) \(arguments.joined(separator: " ")) failed with status \(report.status)")
            }
            reports.append(report)
        }
        reports.sort { $0.seconds < $1.seconds }
        return reports[reports.count / 2]
    }

    private func report(take: BenchmarkTake, rows: [(String, ChildProcessReport)], hasFFmpeg: Bool) -> String {
        let audioSeconds = take.minutes * 60
        let size = ((try? FileManager.default.attributesOfItem(atPath: take.path)[.size] as? Int) ?? nil) ?? 0
        var lines = [String(format: "%@ (FLAC, %.1f MB), median of %d runs", take.label, Double(size) / 1e6, runs)]
        lines.append("  program                    time   realtime   peak memory")
        for (name, row) in rows {
            let padded = name.padding(toLength: 22, withPad: " ", startingAt: 0)
            lines.append(
                "  " + padded
                    + String(
                        format: " %8.2f s %8.0fx %9.1f MiB", row.seconds, audioSeconds / row.seconds,
                        Double(row.peakMemory) / 1_048_576))
        }
        // Like with like: one thread against one thread.
        let ours = rows.first { $0.0.hasSuffix("(1 thr)") }?.1 ?? rows[0].1
        if hasFFmpeg, let ffmpeg = rows.first(where: { $0.0.hasPrefix("ffmpeg") })?.1 {
            lines.append(
                String(
                    format: "  goal: at least 2x ffmpeg's speed ........ %.2fx %@", ffmpeg.seconds / ours.seconds,
                    ffmpeg.seconds / ours.seconds >= 2 ? "met" : "missed"))
        } else {
            lines.append("  (ffmpeg is not installed: `apt-get install ffmpeg` to compare with it)")
        }
        if let decode = rows.last?.1 {
            lines.append(
                String(
                    format: "  goal: within 1.5x of a plain decode ...... %.2fx %@", ours.seconds / decode.seconds,
                    ours.seconds / decode.seconds <= 1.5 ? "met" : "missed"))
        }
        lines.append(
            String(
                format: "  goal: peak memory under 64 MiB ........... %.1f MiB %@", Double(ours.peakMemory) / 1_048_576,
                ours.peakMemory < 64 << 20 ? "met" : "missed"))
        return lines.joined(separator: "\n")
    }
}

struct DecodeBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract:
            "Decode an audio file with libsndfile (or with --media, FFmpeg's libraries) and discard it (the benchmark's baselines)."
    )

    @Argument(help: "The audio file.")
    var audio: String

    @Flag(help: "Decode through FFmpeg's libraries, as `loop` reads m4a or a video's audio.")
    var media = false

    func run() async throws {
        try await runReportingErrors {
            if media {
                _ = try MediaInput.decodeOnly(audio)
                return
            }
            var reader = try AudioFileReader(path: audio)
            var checksum: Float = 0
            try reader.forEachBlock(blockFrames: 16_384) { block, _ in checksum += block[0] }
            if checksum.isNaN { throw CommandRefusal("\(audio): the audio holds NaN samples") }
        }
    }
}

/// Finds files that ship with the tool (`loops/`, `Resources/`) beside the executable or in
/// the repository it was built in, without relying on `Bundle.module`.
enum RepositoryFiles {
    static func locate(_ relativePath: String) -> String? {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        for start in [
            executable.deletingLastPathComponent(), URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        ] {
            var folder = start
            for _ in 0..<6 {
                let candidate = folder.appendingPathComponent(relativePath).path
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        return nil
    }
}
