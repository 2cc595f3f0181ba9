import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct SegmentCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "segment",
        abstract: "Find the spoken phrases in a take and where to cut it.",
        discussion: CommandHelp.segment
    )

    @Argument(help: .take) var audio: String
    @Option(parsing: .unconditional, help: "The number of phrases the take holds.") var count: Int?
    @Option(help: "The loop's text; its phrase count and lengths guide the cuts.") var text: String?
    @Option(help: .language) var language: String?

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

    var request: SegmentRequest {
        var request = SegmentRequest(media: media.file(audio))
        (request.text, request.count, request.language) = (text, count, language)
        (request.splitSentences, request.minPause, request.threads) = (textOptions.sentences, minimumPause, threads)
        return request
    }

    func validate() throws {
        try check(request.check)
        if json && labels { throw ValidationError("give --json or --labels, not both") }
    }

    func execute() async throws {
        let progress = StepProgressBars()
        let take = try await TakeCutting.segment(request, progress: progress.callback)
        progress.finish()
        try take.print(file: audio, json: json, labels: labels)
    }
}

struct CutCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "cut",
        abstract: "Cut a take into one clip per phrase of its text.",
        discussion: CommandHelp.cut
    )

    @Argument(help: .take) var audio: String
    @Option(help: "The loop's text: one phrase per line.") var text: String
    @Option(help: .language) var language: String?
    @Option(name: .customLong("out"), help: "The folder for the clips (created if needed).") var outputDirectory: String
    @Option(help: "Clip format: flac or wav.") var format: CutRequest.ClipFormat = .flac
    @OptionGroup var textOptions: TextOptions
    @OptionGroup var media: MediaOptions
    @Flag(help: "Print one JSON object: the clips with their phrase and times.") var json = false

    var request: CutRequest {
        var request = CutRequest(media: media.file(audio), text: text, folder: outputDirectory)
        (request.language, request.format, request.splitSentences) = (language, format, textOptions.sentences)
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws {
        let progress = StepProgressBars()
        let cut = try await TakeCutting.cut(request, progress: progress.callback)
        progress.finish()
        try cut.print(take: audio, json: json)
    }
}

extension CutRequest.ClipFormat: ExpressibleByArgument {}

extension ArgumentHelp {
    /// The help of a take argument.
    static let take = ArgumentHelp(
        "The take: any audio file (WAV, FLAC, MP3, Ogg, Opus, m4a/AAC, ...) or a video's audio (mp4, mkv, webm, mov, ...)."
    )

    /// The help of `--language` for a text.
    static let language = ArgumentHelp(
        "The text's language (es, fr, cmn, ja, ...), when the text does not say it (# language:) and its script would be guessed wrong."
    )
}
