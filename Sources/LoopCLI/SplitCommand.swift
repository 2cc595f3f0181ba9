import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopText

struct SplitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Show the groups and phrases of a loop's text.",
        discussion: """
            The text has a phrase per line and a blank line between groups; `text | translation` \
            adds a translation or note; `# title:`, `# language:`, `# translation:` and `# tags:` \
            lines before the first phrase set the loop's metadata. See README.md for the format.
            """
    )

    @Argument(help: "The loop's text file (UTF-8); - reads standard input.")
    var file: String

    @OptionGroup var textOptions: TextOptions

    @Flag(help: "Print one JSON object: metadata and groups of phrases.")
    var json = false

    func run() async throws {
        try await runReportingErrors {
            let source = try LoopSource(contentsOf: file, options: .init(splitSentences: textOptions.sentences))
            if json {
                try JSONOutput.print(source)
            } else {
                print(SourceView(source: source, terminal: .standardOutput()).text)
            }
        }
    }
}

/// The human view of a loop's text.
struct SourceView {
    var source: LoopSource
    var terminal: Terminal

    var text: String {
        let phrases = source.phrases.count, groups = source.groups.count
        var heading = source.title ?? "Untitled loop"
        if let language = source.language {
            heading += " (" + language + (source.translationLanguage.map { " → " + $0 } ?? "") + ")"
        }
        var lines = [
            terminal.paint(heading, .bold)
                + "  \(groups) group\(groups == 1 ? "" : "s"), \(phrases) phrase\(phrases == 1 ? "" : "s")"
        ]
        if !source.tags.isEmpty { lines.append("tags: " + source.tags.joined(separator: ", ")) }
        let width = String(phrases).count
        var number = 0
        for (index, group) in source.groups.enumerated() {
            lines.append("")
            lines.append(terminal.paint("Group \(index + 1)", .cyan))
            for phrase in group.phrases {
                number += 1
                let label = String(repeating: " ", count: width - String(number).count) + String(number)
                var line = "  \(label)  \(phrase.text)"
                if let translation = phrase.translation { line += terminal.paint("  · " + translation, .dim) }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}
