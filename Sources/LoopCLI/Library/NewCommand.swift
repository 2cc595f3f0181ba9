import ArgumentParser
import LoopAudio
import Foundation
import LoopAuthoring
import LoopStore
import LoopWorkflows

struct NewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Add a loop to the library from its text and, optionally, a take.",
        discussion: """
            The text is split into groups and phrases (see `loop split`). With --audio, the take \
            is cut at its pauses so that every phrase gets its clip; the take itself is kept in \
            the library, so boundaries can be moved later (`loop adjust`). Cuts worth a listen \
            are named on standard error.
            """
    )

    @Option(help: "The loop's text file (UTF-8); - reads it from standard input, as pasted.")
    var text: String

    @Option(help: "A take reading the text with a pause after each phrase: any audio file, or a video's audio.")
    var audio: String?

    @Option(help: "The title (default: the text's `# title:`, else its first phrase).")
    var title: String?

    @Option(help: "The language code, e.g. fr (default: the text's `# language:`).")
    var language: String?

    @Option(name: .customLong("tag"), help: "A tag; repeat for more.")
    var tags: [String] = []

    @OptionGroup var textOptions: TextOptions
    @OptionGroup var media: MediaOptions
    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Print the new loop as JSON (the shape of `loop show --json`).")
    var json = false

    func run() async throws {
        try await runReportingErrors {
            let options = LoopSource.ParseOptions(splitSentences: textOptions.sentences)
            if text == "-" && isatty(STDIN_FILENO) == 1 {
                StandardError.write("Paste or type the text, then press Ctrl-D on a line of its own.\n")
            }
            let written = try LoopSource.readText(at: text)
            let source = try LoopSource(parsing: written, from: text, options: options)
            let raw = textOptions.sentences ? nil : written
            let library = try libraryOptions.open()
            let progress = ProgressBar("importing")
            var input: MediaInput?
            if let audio { input = try await media.open(audio) }
            defer { withExtendedLifetime(input) {} }   // its temporary file, if any, lives until the take is stored
            let take = input?.path
            let authored = try await Authoring(library: library).author(
                source: source, sourceText: raw, takePath: take, title: title, language: language, tags: tags, progress: progress.callback)
            progress.finish()
            for cut in authored.doubtfulCuts {
                StandardError.write(String(format: "warning: the cut between phrases %d and %d has low confidence %.2f; listen to it, and move it with `loop adjust` if needed\n", cut.before, cut.after, cut.confidence))
            }
            if json {
                try JSONOutput.print(LoopDetailReport(authored.loop))
            } else {
                let summary = authored.loop.summary
                var line = "Added '\(summary.title)' (\(summary.id.prefix(8))): \(summary.groupCount) group\(summary.groupCount == 1 ? "" : "s"), \(summary.phraseCount) phrase\(summary.phraseCount == 1 ? "" : "s")"
                line += take == nil ? ", no audio yet (`loop attach` adds a take)" : ", each cut from the take"
                print(line)
            }
        }
    }
}
