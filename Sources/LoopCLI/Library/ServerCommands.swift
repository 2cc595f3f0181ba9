import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

/// `--from`, shared by the commands that read from a Loop Library server.
struct ServerOptions: ParsableArguments {
    @Option(
        name: .customLong("from"),
        help: ArgumentHelp(
            "The Loop Library server (http://HOST:PORT).",
            discussion: "Default: $LOOP_SERVER, else `server = URL` in ~/.config/loop/config.", valueName: "url"))
    var server: String?
}

struct UnpublishCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpublish",
        abstract: "Take a loop you published off a Loop Library server (it stays in your library).",
        discussion:
            "Only the loop's author can. Learners who installed it keep their copy; `loop update` tells them it is gone."
    )

    @Argument(help: .loop) var loop: String
    @OptionGroup var serverOptions: ServerOptions
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let (library, id) = try libraryOptions.open(resolving: loop)
        try await LoopLibrarySharing(library: library).unpublish(loop: id, server: serverOptions.server)
    }
}

struct UpdateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Pull newer revisions of loops installed from a Loop Library server.",
        discussion: """
            Asks each loop's server for its newest revision (sending the version it has, so an \
            unchanged loop costs no download) and imports it as `loop import` would: your study \
            history stays; a loop you edited here since is not overwritten (--force replaces \
            your edits). Prints one line per loop updated; a loop that cannot be updated gets a \
            line on standard error and a non-zero exit status, and the others go on.
            """
    )

    @Argument(help: "The loops to update (default: every loop installed from a server).") var loops: [String] = []
    @Flag(help: "Update loops even when they were edited here since their install.") var force = false
    @Flag(name: .customLong("dry-run"), help: "Show what would change, and change nothing.") var dryRun = false

    @Flag(
        help:
            "Print one JSON object per loop: id, title, server, status (unchanged, updated, refused), revisions, error."
    )
    var json = false

    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let library = try libraryOptions.open()
        let ids = loops.isEmpty ? nil : try loops.map { try library.resolve($0) }
        let updates = try await LoopLibrarySharing(library: library).update(
            loops: ids, options: ImportOptions(force: force, dryRun: dryRun))
        for update in updates {
            if json {
                try JSONOutput.print(update.report)
            } else if let line = update.line(dryRun: dryRun) {
                print(line)
            }
            update.errorLine.map(StandardError.write)
        }
        if !json, let line = updates.nothingNewLine { print(line) }
        if updates.contains(where: { $0.errorLine != nil }) { throw ExitCode.failure }
    }
}

struct BrowseCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "List or search the loops on a Loop Library server.",
        discussion: """
            Words match titles, tags, phrases and translations, whatever their case and accents. \
            Each line ends with the loop's link: `loop import LINK` installs it.
            """
    )

    @Argument(help: "Words to search for (default: every loop).") var words: [String] = []
    @Option(help: "Only loops in this language (e.g. fr).") var language: String?
    @Option(help: "Only loops translated into this language.") var translation: String?
    @Option(help: "Only loops with this tag.") var tag: String?
    @Option(help: "Only this author's loops (their name, or their key's fingerprint).") var author: String?
    @Flag(help: "Only the loops the server's operator features.") var featured = false

    @Option(help: "latest (newest update first) or hot (most downloads in the last 7 days).")
    var sort: LoopLibrarySharing.Order = LoopLibrarySharing.defaultOrder

    @Option(help: "Which page of results, from 1.") var page = 1
    @Option(help: "Loops a page (at most 100).") var limit = 20
    @Flag(help: "Print the page as JSON: total, offset, limit, loops (each with its link).") var json = false
    @OptionGroup var serverOptions: ServerOptions

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page counts from 1") }
        guard (1...100).contains(limit) else { throw ValidationError("--limit must be from 1 to 100") }
    }

    func execute() async throws {
        let (found, link) = try await LoopLibrarySharing.browse(
            words: words.joined(separator: " "), language: language, translation: translation, tag: tag,
            author: author, featured: featured, order: sort, page: page, limit: limit, server: serverOptions.server)
        if json {
            try JSONOutput.print(CatalogPageReport(found, link: link))
            return
        }
        found.lines(link: link).forEach { print($0) }
        found.position(page: page).map(StandardError.write)
    }
}

extension LoopLibrarySharing.Order: ExpressibleByArgument {}

/// `loop serve`: runs `loop-server`, the Loop Library server, installed beside `loop` (a program
/// of its own, so that `loop` carries no HTTP server).
struct ServeCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Host a Loop Library: run `loop-server` (`loop serve --help` for its options).",
        discussion: "The server is the program `loop-server` beside `loop`; every argument goes to it.",
        helpNames: []
    )

    @Argument(parsing: .allUnrecognized, help: "The server's options (loop serve --help).") var arguments: [String] = []

    func execute() async throws { try LoopLibrarySharing.runServer(arguments: arguments) }
}
