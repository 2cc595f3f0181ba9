import ArgumentParser
import Foundation
import LoopModel
import LoopReports
import LoopTerminal
import LoopWorkflows

struct ListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the loops in the library.",
        discussion: CommandHelp.list
    )

    @Option(help: "Only loops in this language (a code, e.g. fr).") var language: String?
    @Option(help: "Only loops with this tag (case and accents aside).") var tag: String?
    @Option(help: "Order: title or updated (newest first).") var sort: LoopSort = .title
    @OptionGroup var libraryOptions: LibraryOptions
    @Option(parsing: .unconditional, help: "At most this many loops (default: a screenful on a terminal, else all).")
    var limit: Int?
    @Flag(help: "Every loop, even on a terminal.") var all = false
    @Flag(help: "Print a JSON array of loops: id, title, language, tags, counts, revision, updated.") var json = false

    func validate() throws {
        try check(ListRequest(limit: limit).check)
        if limit != nil && all { throw ValidationError("give --limit or --all, not both") }
    }

    func execute() async throws {
        let terminal = Terminal.standardOutput()
        // A screenful less the heading room and the "more" line.
        let shown = all ? nil : limit ?? (terminal.isInteractive && !json ? max(terminal.rows - 3, 5) : nil)
        try libraryOptions.open(.readOnly).loops(ListRequest(sort: sort, language: language, tag: tag, limit: shown))
            .print(json: json, on: terminal)
    }
}

extension LoopSort: ExpressibleByArgument {}

struct ShowCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a loop's groups, phrases and clip times.",
        discussion: CommandHelp.show
    )

    @Argument(help: .loop) var loop: String
    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Print one JSON object.") var json = false

    func execute() async throws { try libraryOptions.open(.readOnly).loop(loop).print(json: json) }
}

struct SearchCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find phrases by their text or translation, in every loop.",
        discussion: CommandHelp.search
    )

    @Argument(help: "Words to find.") var query: String
    @Option(name: .customLong("loop"), help: "Only in this loop.") var inLoop: String?
    @Option(parsing: .unconditional, help: "At most this many results: 1 to 10000.") var limit: Int = 50
    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Print a JSON array: loop id, title, group, phrase number, text, translation.") var json = false

    var request: SearchRequest { SearchRequest(words: query, loop: inLoop, limit: limit) }

    func validate() throws { try check(request.check) }

    func execute() async throws { try libraryOptions.open(.readOnly).search(request).print(json: json) }
}
