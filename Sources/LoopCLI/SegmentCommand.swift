import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct SegmentCommand: ReportingCommand {
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

    @Option(parsing: .unconditional, help: "The number of phrases the take holds.") var count: Int?
    @Option(help: "The loop's text; its phrase count and lengths guide the cuts.") var text: String?

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
        help:
            "Measure a long take on at most this many threads, and with 1, render a long text in one process: 1 to 64 (default: every core)."
    )
    var threads: Int?

    @OptionGroup var textOptions: TextOptions
    @OptionGroup var media: MediaOptions
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Print an Audacity label track (start, tab, end, tab, label).") var labels = false

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

    func execute() async throws {
        let progress = StepProgressBars()
        let segmented = try await CuttingWorkflow(minimumPause: minimumPause, threads: threads, language: language)
            .segment(
                media: media.file(audio), textFile: text, splitSentences: textOptions.sentences, count: count,
                progress: progress.callback)
        progress.finish()
        if json {
            try JSONOutput.print(SegmentationReport(file: audio, segmented: segmented))
        } else {
            print(labels ? segmented.labelTrack : segmented.text(on: .standardOutput()), terminator: labels ? "" : "\n")
        }
    }
}
