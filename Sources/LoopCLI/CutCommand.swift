import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct CutCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "cut",
        abstract: "Cut a take into one clip per phrase of its text.",
        discussion: """
            Writes OUT/01-<phrase>.flac, OUT/02-<phrase>.flac, ... in phrase order, and \
            OUT/labels.txt, an Audacity label track of the cuts in the original take. The take \
            itself is not changed. Clips appear only once all of them are written.
            """
    )

    @Argument(
        help:
            "The take: any audio file (WAV, FLAC, MP3, Ogg, Opus, m4a/AAC, ...) or a video's audio (mp4, mkv, webm, mov, ...)."
    )
    var audio: String

    @Option(help: "The loop's text: one phrase per line.") var text: String

    @Option(
        help:
            "The text's language (es, fr, cmn, ja, ...), when the text does not say it (# language:) and its script would be guessed wrong."
    )
    var language: String?

    @Option(name: .customLong("out"), help: "The folder for the clips (created if needed).") var outputDirectory: String
    @Option(help: "Clip format: flac or wav.") var format: ClipFormat = .flac
    @OptionGroup var textOptions: TextOptions
    @OptionGroup var media: MediaOptions
    @Flag(help: "Print one JSON object: the clips with their phrase and times.") var json = false

    typealias ClipFormat = CuttingWorkflow.ClipFormat

    func validate() throws {
        try LanguageOption.check(language)
    }

    func execute() async throws {
        let progress = StepProgressBars()
        let cut = try await CuttingWorkflow(language: language).cut(
            media: media.file(audio), textFile: text, splitSentences: textOptions.sentences, into: outputDirectory,
            format: format, progress: progress.callback)
        progress.finish()
        if json { try JSONOutput.print(CutReport(take: audio, cut: cut)) }
        cut.warnings.forEach(StandardError.write)
    }
}

extension CuttingWorkflow.ClipFormat: ExpressibleByArgument {}
