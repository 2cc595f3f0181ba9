import ArgumentParser
import Foundation
import LoopAudioFiles
import LoopCLI
import LoopFoundation
import LoopReports
import LoopSpeech
import LoopTerminal

/// `loop-benchmark align`: cutting natural speech by its text on long takes.
struct AlignBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "align",
        abstract: "Time `loop segment --text` (the aligner) on long takes read without pauses.",
        discussion: """
            Writes a text of varied sentences and a take of it read straight through (espeak-ng's \
            en-us+m3 voice, which is not the voice that renders the text for alignment, 0 to 150 ms \
            between sentences, 44.1 kHz stereo FLAC, and the same at 16 kHz mono, as an audiobook \
            chapter comes) of each --minutes, then runs `loop segment TAKE --text TEXT` (the aligner) \
            on both and `loop segment TAKE` (the pause cutter) --runs times and prints the median wall \
            time, the realtime factor, peak memory, and the share of the aligner's cuts within 100 ms \
            of the true sentence ends. Goals: at least 500x realtime on the 44.1 kHz take and 1,000x \
            on the 16 kHz one, under 150 MiB, on 9 and on 60 minutes.
            """
    )

    @Option(help: "Lengths of the generated takes, in minutes (comma-separated).")
    var minutes: String = "9,60"

    @Option(help: "Runs of each program; the median is shown.")
    var runs: Int = 3

    @Option(help: "Keep the generated takes in this folder and reuse them next time.")
    var keep: String?

    private var lengths: [Double] {
        minutes.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    func validate() throws {
        guard !lengths.isEmpty, lengths.allSatisfy({ $0 > 0 && $0 <= 240 }) else {
            throw ValidationError("--minutes takes lengths of 0 to 240, comma-separated")
        }
        guard (1...100).contains(runs) else { throw ValidationError("--runs takes 1 to 100") }
    }

    func run() async throws {
        try await runReportingErrors {
            let folder = keep ?? (NSTemporaryDirectory() + "loop-benchmark-" + UUID().uuidString)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { if keep == nil { try? FileManager.default.removeItem(atPath: folder) } }
            for length in lengths {
                let label = length == length.rounded() ? "\(Int(length))" : "\(length)"
                let read = ReadText(folder: folder, label: label, minutes: length)
                if !read.isGenerated {
                    let progress = ProgressBar("generating \(label) min")
                    try await BlockingWork.run { try read.generate(progress: progress) }
                    progress.finish()
                }
                let aligner = try median(["segment", read.take, "--text", read.text, "--json"])
                let chapter = try median(["segment", read.chapter, "--text", read.text, "--json"])
                let pauses = try median(["segment", read.take, "--json"])
                let accuracy = try read.accuracy()
                print(
                    report(
                        label: label, read: read, aligner: aligner, chapter: chapter, pauses: pauses,
                        accuracy: accuracy))
            }
        }
    }

    private func median(_ arguments: [String]) throws -> ChildProcessReport {
        var reports: [ChildProcessReport] = []
        for _ in 0..<runs {
            let report = try ChildProcess.run(LoopProgram.path, arguments)
            guard report.status == 0 else {
                throw CommandRefusal("loop \(arguments.joined(separator: " ")) failed with status \(report.status)")
            }
            reports.append(report)
        }
        reports.sort { $0.seconds < $1.seconds }
        return reports[reports.count / 2]
    }

    private func report(
        label: String, read: ReadText, aligner: ChildProcessReport, chapter: ChildProcessReport,
        pauses: ChildProcessReport, accuracy: (within: Int, of: Int)
    ) -> String {
        let seconds = read.seconds
        let size = ((try? FileManager.default.attributesOfItem(atPath: read.take)[.size] as? Int) ?? nil) ?? 0
        var lines = [
            String(
                format: "%@ min read without pauses, %d sentences (44.1 kHz stereo FLAC, %.1f MB), median of %d runs",
                label, accuracy.of + 1, Double(size) / 1e6, runs)
        ]
        lines.append("  program                          time   realtime   peak memory")
        for (name, row) in [
            ("loop segment --text (aligner)", aligner), ("  the same at 16 kHz mono", chapter),
            ("loop segment (pauses)", pauses),
        ] {
            lines.append(
                "  " + name.padding(toLength: 29, withPad: " ", startingAt: 0)
                    + String(
                        format: " %8.2f s %8.0fx %9.1f MiB", row.seconds, seconds / row.seconds,
                        Double(row.peakMemory) / 1_048_576))
        }
        lines.append(
            String(
                format: "  aligner's cuts within 100 ms of the sentence ends: %d of %d (%.3f)",
                accuracy.within, accuracy.of, Double(accuracy.within) / Double(max(accuracy.of, 1))))
        let speed = seconds / aligner.seconds
        let chapterSpeed = seconds / chapter.seconds
        let peak = max(aligner.peakMemory, chapter.peakMemory)
        lines.append(
            String(
                format: "  goal: at least 500x realtime (44.1 kHz) .. %.0fx %@", speed, speed >= 500 ? "met" : "missed")
        )
        lines.append(
            String(
                format: "  goal: at least 1,000x (16 kHz mono) ...... %.0fx %@", chapterSpeed,
                chapterSpeed >= 1000 ? "met" : "missed"))
        lines.append(
            String(
                format: "  goal: peak memory under 150 MiB .......... %.1f MiB %@", Double(peak) / 1_048_576,
                peak < 150 << 20 ? "met" : "missed"))
        return lines.joined(separator: "\n")
    }
}

/// A text and a take that reads it straight through, with where each sentence ends.
struct ReadText {
    var text: String
    var take: String
    /// The same reading at 16 kHz mono.
    var chapter: String
    var truth: String
    var minutes: Double

    init(folder: String, label: String, minutes: Double) {
        text = folder + "/read-\(label)m.txt"
        take = folder + "/read-\(label)m.flac"
        chapter = folder + "/read-\(label)m-16k.flac"
        truth = folder + "/read-\(label)m.joins"
        self.minutes = minutes
    }

    var isGenerated: Bool { [text, take, chapter, truth].allSatisfy(FileManager.default.fileExists(atPath:)) }

    /// The take's length in seconds.
    var seconds: Double { ((try? AudioFileReader(path: take).info.duration) ?? minutes * 60) }

    /// Sentences are rendered one at a time and written as they come: the take is never whole in memory.
    func generate(progress: ProgressBar) throws {
        var sentences = SentenceMaker(seed: UInt64(minutes * 1000))
        var writer: AudioFileWriter?
        var chapterWriter: AudioFileWriter?
        var written = 0
        // The 16 kHz copy, from the 22,050 Hz rendering by linear interpolation: where its next
        // sample falls in the rendering's samples as they come (gaps included).
        var chapterPosition = 0.0
        var renderedBefore = 0
        var joins: [Double] = []
        var lines: [String] = []
        var random = SentenceMaker(seed: UInt64(minutes * 1000) + 1)
        let target = Int(minutes * 60 * 44_100)
        while written < target {
            let sentence = sentences.next()
            let spoken = try SpeechSynthesizer.shared.render([sentence], voice: "en-us+m3", wordsPerMinute: 165)[0]
            if writer == nil {
                writer = try AudioFileWriter(path: take + ".part", format: .flac, sampleRate: 44_100, channelCount: 2)
                chapterWriter = try AudioFileWriter(
                    path: chapter + ".part", format: .flac, sampleRate: 16_000, channelCount: 1)
            }
            let first = spoken.samples.firstIndex { abs($0) > 0.001 } ?? 0
            let last = spoken.samples.lastIndex { abs($0) > 0.001 } ?? spoken.samples.count - 1
            let gap = written == 0 ? 22_050 : Int(random.uniform() * 0.15 * 44_100)
            if written > 0 { joins.append(Double(written + gap / 2) / 44_100) }
            // 22,050 Hz to 44,100 Hz by repeating each sample (enough for timing), a second channel a little softer.
            var block = [Float](repeating: 0, count: gap * 2)
            block.reserveCapacity(gap * 2 + (last - first + 1) * 4)
            for sample in spoken.samples[first...last] {
                block.append(sample)
                block.append(sample * 0.9)
                block.append(sample)
                block.append(sample * 0.9)
            }
            try writer?.write(block)
            written += block.count / 2
            // The same gap and sentence at the rendering's 22,050 Hz, then at 16 kHz.
            let rendered = [Float](repeating: 0, count: gap / 2) + spoken.samples[first...last]
            var mono: [Float] = []
            while chapterPosition < Double(renderedBefore + rendered.count - 1) {
                let at = chapterPosition - Double(renderedBefore)
                let index = Int(at)
                let fraction = Float(at - Double(index))
                mono.append(rendered[index] * (1 - fraction) + rendered[index + 1] * fraction)
                chapterPosition += 22_050.0 / 16_000.0
            }
            renderedBefore += rendered.count
            try chapterWriter?.write(mono)
            lines.append(sentence)
            if lines.count % 6 == 0 { lines.append("") }
            progress.update(Double(written) / Double(target))
        }
        try writer?.write([Float](repeating: 0, count: 44_100))
        try writer?.commit()
        try chapterWriter?.write([Float](repeating: 0, count: 8_000))
        try chapterWriter?.commit()
        try DurableFile.write(Data(("# language: en\n\n" + lines.joined(separator: "\n") + "\n").utf8), to: text)
        try DurableFile.write(Data(joins.map { String(format: "%.3f", $0) }.joined(separator: "\n").utf8), to: truth)
        try FileManager.default.moveItem(atPath: chapter + ".part", toPath: chapter)
        try FileManager.default.moveItem(atPath: take + ".part", toPath: take)
    }

    /// How many of the aligner's cuts fall within 100 ms of the true joins (gaps' middles, where
    /// a gap is 0 to 150 ms: the cut may lie anywhere in the gap).
    func accuracy() throws -> (within: Int, of: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: LoopProgram.path)
        process.arguments = ["segment", take, "--text", text, "--json"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        struct Cuts: Decodable {
            struct Cut: Decodable { var at: Double }
            var cuts: [Cut]
        }
        let cuts = try JSONDecoder().decode(Cuts.self, from: output).cuts.map(\.at)
        let joins = try String(contentsOfFile: truth, encoding: .utf8).split(separator: "\n").compactMap { Double($0) }
        guard cuts.count == joins.count else { return (0, joins.count) }
        return (zip(cuts, joins).filter { abs($0 - $1) <= 0.1 + 0.075 }.count, joins.count)
    }
}

/// Varied sentences from a small grammar, the same for the same seed.
struct SentenceMaker {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed &+ 0x9E37_79B9_7F4A_7C15) }

    mutating func uniform() -> Double { random.nextUnit() }

    private mutating func pick(_ words: [String]) -> String {
        words[min(words.count - 1, Int(uniform() * Double(words.count)))]
    }

    static let people = [
        "my neighbour", "the old teacher", "our youngest daughter", "a tired driver", "the new doctor", "her brother",
        "the baker on the corner", "a group of students", "the manager", "my grandmother", "the fisherman",
        "his cousin",
    ]
    static let verbs = [
        "found", "painted", "carried", "forgot", "borrowed", "repaired", "sold", "described", "opened", "cleaned",
        "ordered", "lost",
    ]
    static let things = [
        "a small red book", "the wooden chair", "an old bicycle", "the kitchen window", "a basket of apples",
        "the broken clock",
        "a warm blanket", "the blue umbrella", "a letter from Paris", "the garden gate", "a box of candles",
        "the heavy suitcase",
    ]
    static let places = [
        "near the station", "in the market", "behind the church", "at the harbour", "on the bus", "in the library",
        "by the river", "at the village school", "in the back garden", "outside the museum",
    ]
    static let times = [
        "early this morning", "last Tuesday", "after lunch", "before the storm", "during the holidays", "late at night",
        "on Sunday afternoon", "three weeks ago",
    ]
    static let clauses = [
        "because it was raining", "while everyone was asleep", "although nobody asked",
        "so that the children could play",
        "when the shops were closing", "and then went straight home",
    ]

    /// The next sentence: who did what, where and when, sometimes why.
    mutating func next() -> String {
        var sentence = pick(Self.people) + " " + pick(Self.verbs) + " " + pick(Self.things)
        let order = uniform()
        if order < 0.5 {
            sentence += " " + pick(Self.places) + " " + pick(Self.times)
        } else {
            sentence = pick(Self.times).capitalizedFirst + ", " + sentence + " " + pick(Self.places)
        }
        if uniform() < 0.35 { sentence += ", " + pick(Self.clauses) }
        return sentence.capitalizedFirst + "."
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
