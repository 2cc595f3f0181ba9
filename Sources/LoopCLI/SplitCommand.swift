import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct SplitCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Show the groups and phrases of a loop's text.",
        discussion: """
            The text has a phrase per line and a blank line between groups; `text | translation` \
            adds a translation or note; `# title:`, `# language:`, `# translation:` and `# tags:` \
            lines before the first phrase set the loop's metadata. See README.md for the format.
            """
    )

    @Argument(help: "The loop's text file (UTF-8); - reads standard input.") var file: String
    @OptionGroup var textOptions: TextOptions
    @Flag(help: "Print one JSON object: metadata and groups of phrases.") var json = false

    func execute() async throws {
        let source = try Library.readText(file, splitSentences: textOptions.sentences)
        if json {
            try JSONOutput.print(source)
        } else {
            print(SourceView(source: source, terminal: .standardOutput()).text)
        }
    }
}
