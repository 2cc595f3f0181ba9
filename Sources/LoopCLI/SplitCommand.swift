import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct SplitCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Show the groups and phrases of a loop's text.",
        discussion: CommandHelp.split
    )

    @Argument(help: "The loop's text file (UTF-8); - reads standard input.") var file: String
    @OptionGroup var textOptions: TextOptions
    @Flag(help: "Print one JSON object: metadata and groups of phrases.") var json = false

    func execute() async throws {
        try TextOutline.read(file, splitSentences: textOptions.sentences).print(json: json)
    }
}
