import ArgumentParser
import Foundation
import LoopCutting
import LoopReports
import LoopTerminal
import LoopText
import LoopWorkflows

struct SegmentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segment",
        abstract: "Find the spoken phrases in a take and where to cut it.",
        discussion: """
            Without a hint, every pause long enough to end a phrase is a cut. With --count N the \
            take is cut into exactly N phrases at the N-1 clearest pauses. With --text FILE the \
            take is cut by what is said: the text is rendered by a speech synthesizer (espeak-ng) \
            in its language (--language, else the text's `# language:`, else a guess from its \
            script), aligned with the take, and each cut placed on the pause or the quietest point \
            where one phrase ends; a take of only some of the phrases is cut into those, and a \
            take of another text is refused.

            --json prints one object: {"file", "duration", "sampleRate", "channels", \
            "segments": [{"start", "end"}], "cuts": [{"at", "pause", "confidence"}], "method" \
            ("text" or "pauses"), "language", "languageOrigin" ("given", "loop", "guessed"), \
            "phrases" ([first, last] of the text's phrases the take reads), "notes"}, times in seconds.
            """
    )

    @Argument(
        help:
            "The take: any audio file (WAV, FLAC, MP3, Ogg, Opus, m4a/AAC, ...) or a video's audio (mp4, mkv, webm, mov, ...)."
    )
    var audio: String

    @Option(parsing: .unconditional, help: "The number of phrases the take holds.")
    var count: Int?

    @Option(help: "The loop's text; its phrase count and lengths guide the cuts.")
    var text: String?

    @Option(
        help:
            "The text's language (es, fr, cmn, ja, ...), when the text does not say it (# language:) and its script would be guessed wrong."
    )
    var language: String?

    @Option(
        name: .customLong("min-pause"), parsing: .unconditional,
        help: "Without --count or --text, the pause (seconds) that ends a phrase.")
    var minimumPause: Double?

    @Option(
        parsing: .unconditional,
        help: "Measure a long take on at most this many threads: 1 to 64 (default: every core).")
    var threads: Int?

    @OptionGroup var textOptions: TextOptions
    @OptionGroup var media: MediaOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    @Flag(help: "Print an Audacity label track (start, tab, end, tab, label).")
    var labels = false

    func validate() throws {
        try LanguageOption.check(language)
        if count != nil && text != nil { throw ValidationError("give --count or --text, not both") }
        if let count, !(1...10_000).contains(count) {
            throw ValidationError("--count takes 1 to 10000 phrases, not \(count)")
        }
        if json && labels { throw ValidationError("give --json or --labels, not both") }
        if let minimumPause, !(0.05...5).contains(minimumPause) {
            throw ValidationError("--min-pause takes seconds between 0.05 and 5")
        }
        if let threads, !(1...64).contains(threads) { throw ValidationError("--threads takes 1 to 64, not \(threads)") }
    }

    func run() async throws {
        try await runReportingErrors {
            let source = try text.map {
                try LoopSource(contentsOf: $0, options: .init(splitSentences: textOptions.sentences))
            }
            let hint = CuttingWorkflow.hint(text: source, count: count)
            let path = audio
            let progress = StepProgressBars()
            let cutting = CuttingWorkflow(minimumPause: minimumPause, threads: threads, language: language)
            let (envelope, segmentation) = try await cutting.segment(
                media: media.file(path), hint: hint, progress: progress.callback)
            progress.finish()
            let phraseTexts = source?.phrases.map(\.text)
            if json {
                try JSONOutput.print(
                    SegmentationReport(file: path, segmentation: segmentation, phraseCount: phraseTexts?.count))
            } else if labels {
                print(AudacityLabels(segmentation: segmentation, labels: phraseTexts ?? []).text, terminator: "")
            } else {
                let terminal = Terminal.standardOutput()
                print(SegmentationTable(segmentation: segmentation, phraseTexts: phraseTexts, terminal: terminal).text)
                print(WaveformStrip(envelope: envelope, segmentation: segmentation, terminal: terminal).text)
            }
        }
    }
}
