import ArgumentParser
import Foundation
import LoopCutting
import LoopReports
import LoopTerminal
import LoopText
import LoopWorkflows

struct CutCommand: AsyncParsableCommand {
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

    @Option(help: "The loop's text: one phrase per line.")
    var text: String

    @Option(
        help:
            "The text's language (es, fr, cmn, ja, ...), when the text does not say it (# language:) and its script would be guessed wrong."
    )
    var language: String?

    @Option(name: .customLong("out"), help: "The folder for the clips (created if needed).")
    var outputDirectory: String

    @Option(help: "Clip format: flac or wav.")
    var format: ClipFormat = .flac

    @OptionGroup var textOptions: TextOptions
    @OptionGroup var media: MediaOptions

    @Flag(help: "Print one JSON object: the clips with their phrase and times.")
    var json = false

    typealias ClipFormat = CuttingWorkflow.ClipFormat

    func validate() throws {
        try LanguageOption.check(language)
    }

    func run() async throws {
        try await runReportingErrors {
            let source = try LoopSource(contentsOf: text, options: .init(splitSentences: textOptions.sentences))
            let phrases = source.phrases.map(\.text)
            let hint = CuttingWorkflow.hint(text: source, count: nil)
            let progress = StepProgressBars()
            let (segmentation, result) = try await CuttingWorkflow(language: language).cut(
                media: media.file(audio), hint: hint, labels: phrases, into: outputDirectory,
                format: format, progress: progress.callback)
            progress.finish()
            let read = segmentation.phrases.map { $0.filter(phrases.indices.contains).map { phrases[$0] } } ?? phrases
            if json {
                try JSONOutput.print(
                    CutReport(
                        take: audio, labels: result.labelsPath, clipPaths: result.clipPaths, texts: read,
                        segmentation: segmentation))
            }
            segmentation.doubtfulCutWarnings.forEach(StandardError.write)
            segmentation.cuttingLines(phraseCount: phrases.count).forEach(StandardError.write)
        }
    }
}

extension CuttingWorkflow.ClipFormat: ExpressibleByArgument {}
