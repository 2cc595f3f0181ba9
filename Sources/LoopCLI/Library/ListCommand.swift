import ArgumentParser
import Foundation
import LoopModel
import LoopReports
import LoopTerminal
import LoopWorkflows

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the loops in the library.",
        discussion: """
            On a terminal, a screenful, with a line saying how many more there are (--limit N \
            for another number, --all for every one); into a pipe or a file, and with --json, \
            every loop unless --limit says otherwise. --json prints the array as it goes.
            """
    )

    @Option(help: "Only loops in this language (a code, e.g. fr).")
    var language: String?

    @Option(help: "Only loops with this tag (case and accents aside).")
    var tag: String?

    @Option(help: "Order: title or updated (newest first).")
    var sort: LoopSort = .title

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(parsing: .unconditional, help: "At most this many loops (default: a screenful on a terminal, else all).")
    var limit: Int?

    @Flag(help: "Every loop, even on a terminal.")
    var all = false

    @Flag(help: "Print a JSON array of loops: id, title, language, tags, counts, revision, updated.")
    var json = false

    func validate() throws {
        if let limit, !(1...1_000_000).contains(limit) {
            throw ValidationError("--limit takes 1 to 1000000, not \(limit)")
        }
        if limit != nil && all { throw ValidationError("give --limit or --all, not both") }
    }

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.openForReading()
            let terminal = Terminal.standardOutput()
            // A screenful less the heading room and the "more" line.
            let shown = all ? nil : limit ?? (terminal.isInteractive && !json ? max(terminal.rows - 3, 5) : nil)
            let loops = try library.loops(language: language, tag: tag, sort: sort, limit: shown)
            if json {
                // Streamed: an object a line, written as it is made, 64 KB at a time.
                var output = StandardOutputBuffer()
                output.append("[")
                for (index, loop) in loops.enumerated() {
                    output.append((index == 0 ? "\n" : ",\n") + (try JSONOutput.line(LoopSummaryReport(loop))))
                }
                output.append(loops.isEmpty ? "]\n" : "\n]\n")
                output.flush()
                return
            }
            // Written 64 KB at a time rather than a line at a time.
            var output = StandardOutputBuffer()
            for loop in loops { output.append(loop.listLine(on: terminal)) }
            output.flush()
            if let shown, loops.count == shown {
                let more = try library.loopCount(language: language, tag: tag) - loops.count
                if more > 0 {
                    print(terminal.paint("… \(more) more (--all shows every one, --limit N that many)", .dim))
                }
            }
        }
    }
}

extension LoopSort: ExpressibleByArgument {}

struct ShowCommand: AsyncParsableCommand {
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

    @Argument(help: "The loop: a start of its id, its title, or a start of its title or of a word of it.")
    var loop: String

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.openForReading()
            let detail = try library.loop(id: try library.resolve(loop))
            if json {
                try JSONOutput.print(LoopDetailReport(detail))
            } else {
                print(LoopView(loop: detail, terminal: .standardOutput()).text)
            }
        }
    }
}

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find phrases by their text or translation, in every loop.",
        discussion:
            "Case and accents do not matter (`cafe` finds `Café`); every word must match, as a word or its start (`caf` finds `café`). Best matches first."
    )

    @Argument(help: "Words to find.")
    var query: String

    @Option(name: .customLong("loop"), help: "Only in this loop.")
    var inLoop: String?

    @Option(parsing: .unconditional, help: "At most this many results: 1 to 10000.")
    var limit: Int = 50

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit takes 1 to 10000, not \(limit)") }
    }

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Print a JSON array: loop id, title, group, phrase number, text, translation.")
    var json = false

    func run() async throws {
        try await runReportingErrors {
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
}
