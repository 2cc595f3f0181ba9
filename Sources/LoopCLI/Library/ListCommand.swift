import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct ListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the loops in the library.",
        discussion: """
            On a terminal, a screenful, with a line saying how many more there are (--limit N \
            for another number, --all for every one); into a pipe or a file, and with --json, \
            every loop unless --limit says otherwise. --json prints the array as it goes.
            """
    )

    @Option(help: "Only loops in this language (a code, e.g. fr).") var language: String?
    @Option(help: "Only loops with this tag (case and accents aside).") var tag: String?
    @Option(help: "Order: title or updated (newest first).") var sort: Library.Order = Library.defaultOrder
    @OptionGroup var libraryOptions: LibraryOptions

    @Option(parsing: .unconditional, help: "At most this many loops (default: a screenful on a terminal, else all).")
    var limit: Int?

    @Flag(help: "Every loop, even on a terminal.") var all = false
    @Flag(help: "Print a JSON array of loops: id, title, language, tags, counts, revision, updated.") var json = false

    func validate() throws {
        if let limit, !(1...1_000_000).contains(limit) {
            throw ValidationError("--limit takes 1 to 1000000, not \(limit)")
        }
        if limit != nil && all { throw ValidationError("give --limit or --all, not both") }
    }

    func execute() async throws {
        let library = try libraryOptions.openForReading()
        let terminal = Terminal.standardOutput()
        // A screenful less the heading room and the "more" line.
        let shown = all ? nil : limit ?? (terminal.isInteractive && !json ? max(terminal.rows - 3, 5) : nil)
        let loops = try library.loops(language: language, tag: tag, sort: sort, limit: shown)
        try LoopListing.write(loops, json: json, on: terminal)
        if !json, let shown, loops.count == shown {
            let more = try library.loopCount(language: language, tag: tag) - loops.count
            if more > 0 { print(LoopListing.moreLine(more, on: terminal)) }
        }
    }
}

extension Library.Order: ExpressibleByArgument {}

struct ShowCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a loop's groups, phrases and clip times.",
        discussion: """
            LOOP is a unique start of the loop's id (as git takes short hashes), its title, or a unique start of its title (case and accents aside). \
            A phrase whose text was changed after its clip was recorded is marked \
            (recorded as "its earlier text"). --json prints {"id", "title", "language", \
            "groups": [{"phrases": [{"text", "translation", "start", "end", "recordedText"}]}]}, \
            times in seconds within the take (null for a phrase with no audio yet); \
            recordedText is the earlier text the clip reads, or null when it reads the phrase.
            """
    )

    @Argument(help: .loop) var loop: String
    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Print one JSON object.") var json = false

    func execute() async throws {
        let library = try libraryOptions.openForReading()
        let detail = try library.loop(id: try library.resolve(loop))
        if json {
            try JSONOutput.print(LoopDetailReport(detail))
        } else {
            print(LoopView(loop: detail, terminal: .standardOutput()).text)
        }
    }
}

struct SearchCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find phrases by their text or translation, in every loop.",
        discussion:
            "Case and accents do not matter (`cafe` finds `Café`); every word must match, as a word or its start (`caf` finds `café`). Best matches first."
    )

    @Argument(help: "Words to find.") var query: String
    @Option(name: .customLong("loop"), help: "Only in this loop.") var inLoop: String?
    @Option(parsing: .unconditional, help: "At most this many results: 1 to 10000.") var limit: Int = 50

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit takes 1 to 10000, not \(limit)") }
    }

    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Print a JSON array: loop id, title, group, phrase number, text, translation.") var json = false

    func execute() async throws {
        let library = try libraryOptions.openForReading()
        let loopId = try inLoop.map { try library.resolve($0) }
        let hits = try library.search(query, inLoop: loopId, limit: limit)
        if json {
            try JSONOutput.print(hits.map(SearchHitReport.init))
            return
        }
        let terminal = Terminal.standardOutput()
        for hit in hits { print(hit.line(on: terminal)) }
    }
}
