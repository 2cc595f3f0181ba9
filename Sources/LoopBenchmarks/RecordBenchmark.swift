import ArgumentParser
import Foundation
import LoopAudioFiles
import LoopCLI
import LoopCutting
import LoopFoundation
import LoopModel
import LoopRecording
import LoopReports
import LoopStore
import LoopText

struct RecordBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "CPU share of the live recording pipeline at 48 kHz stereo, and its highlight delay.",
        discussion: """
            Replays --minutes of the sample loop at 48 kHz stereo through `loop record --input \
            --fast` and divides its CPU time by the audio's length: the share of one core the \
            pipeline needs at real time. Then, in process, the time from the block that completes \
            a phrase-ending pause to the highlight moving on. Goals: under 5% of one core, under \
            400 ms after the pause threshold is reached.
            """
    )

    @Option(help: "Length of the replayed take, in minutes.")
    var minutes: Double = 2

    func validate() throws {
        guard minutes > 0, minutes <= 600 else { throw ValidationError("--minutes takes 0 to 600") }
    }

    func run() async throws {
        try await runReportingErrors {
            guard let sample = RepositoryFiles.locate("loops/au-cafe/take.flac"),
                let text = RepositoryFiles.locate("loops/au-cafe/text.txt")
            else {
                throw CommandRefusal("the bundled sample loop was not found; run from the repository")
            }
            let folder = NSTemporaryDirectory() + "loop-benchmark-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let take = BenchmarkTake(
                label: "\(minutes) min, 48 kHz stereo", path: folder + "/take.flac", sampleRate: 48_000,
                channelCount: 2, minutes: minutes)
            try await take.ensureGenerated(from: sample)
            let copies = Int((minutes * 60 / 20.01).rounded(.down))
            let body = try String(contentsOfFile: text, encoding: .utf8).split(separator: "\n").filter {
                !$0.hasPrefix("#")
            }.joined(separator: "\n")
            let longText =
                (["# title: Benchmark", "# language: fr"]
                + Array(repeating: body.trimmingCharacters(in: .newlines), count: max(copies, 1))).joined(
                    separator: "\n\n")
            let library = try LibraryStore(at: folder + "/library")
            let loop = try library.createLoop(source: try LoopSource(parsing: longText))

            let executable = LoopProgram.path
            let report = try ChildProcess.run(
                executable,
                [
                    "record", String(loop.summary.id.prefix(8)), "--input", take.path, "--fast", "--library",
                    folder + "/library",
                ])
            guard report.status == 0 else { throw CommandRefusal("loop record failed (status \(report.status))") }
            let share = report.cpuSeconds / (minutes * 60) * 100

            // In process: the live pipeline's own work per block (levels, then the state that
            // decides a phrase has ended), from a block's arrival to the highlight moving on.
            let draft = RecordingDraft(
                loopId: loop.summary.id, phraseIds: loop.phrases.map(\.id), phraseTexts: loop.phrases.map(\.text),
                language: "fr", sampleRate: 48_000, channelCount: 2)
            let delays = try Self.highlightDelays(take: take.path, draft: draft).sorted()
            print("live recording pipeline, \(take.label) (\(loop.summary.phraseCount) phrases)")
            print(
                String(
                    format: "  CPU: %.2f s for %.0f s of audio = %.2f%% of one core at real time (goal < 5%%: %@)",
                    report.cpuSeconds, minutes * 60, share, share < 5 ? "met" : "missed"))
            if let worst = delays.last {
                let median = delays[delays.count / 2]
                print(
                    String(
                        format:
                            "  highlight after the pause threshold: median %.2f ms, slowest %.2f ms, plus up to one capture period (50 ms) (goal < 400 ms: %@)",
                        median / .milliseconds(1), worst / .milliseconds(1),
                        worst + .milliseconds(50) < .milliseconds(400) ? "met" : "missed"))
            }
        }
    }

    /// Replays `take` block by block through what the recorder does with each (a mono mix,
    /// the streaming envelope, the recording's state machine) and times each block that ends a
    /// phrase, from its arrival to the action that moves the highlight.
    static func highlightDelays(take: String, draft: RecordingDraft) throws -> [Duration] {
        let source = try FileSource(path: take, realTime: false)
        let channels = source.channelCount
        var recording = TakeRecording(draft: draft)
        var envelope = StreamingEnvelope(sampleRate: source.sampleRate)
        var samples = [Float](repeating: 0, count: 8_192 * channels)
        var mono = [Float](repeating: 0, count: 8_192)
        var delays: [Duration] = []
        let clock = ContinuousClock()
        while true {
            let frames = try samples.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            guard frames > 0 else { break }
            let arrived = clock.now
            let peak = samples[0..<(frames * channels)].reduce(Float(0)) { max($0, abs($1)) }
            let levels = samples.withUnsafeBufferPointer { block in
                mono.withUnsafeMutableBufferPointer { mono in
                    AudioDownmix.mean(
                        UnsafeBufferPointer(rebasing: block[0..<(frames * channels)]), channels: channels,
                        frames: frames,
                        scale: 1 / Float(channels), into: mono)
                    return envelope.consume(UnsafeBufferPointer(rebasing: mono[0..<frames]))
                }
            }
            let actions = recording.captured(frames: frames, levels: levels, peak: peak, overruns: 0)
            if actions.contains(where: { if case .phraseEnded = $0 { true } else { false } }) {
                delays.append(clock.now - arrived)
            }
        }
        return delays
    }
}
