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
        discussion: CommandHelp.unpublish
    )

    @Argument(help: .loop) var loop: String
    @OptionGroup var serverOptions: ServerOptions
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws { try await libraryOptions.open().unpublish(loop, from: serverOptions.server) }
}

struct UpdateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Pull newer revisions of loops installed from a Loop Library server.",
        discussion: CommandHelp.update
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
        let updates = try await libraryOptions.open().update(UpdateRequest(loops: loops, force: force, dryRun: dryRun))
        if !(try updates.printed(json: json, dryRun: dryRun)) { throw ExitCode.failure }
    }
}

struct BrowseCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "List or search the loops on a Loop Library server.",
        discussion: CommandHelp.browse
    )

    @Argument(help: "Words to search for (default: every loop).") var words: [String] = []
    @Option(help: "Only loops in this language (e.g. fr).") var language: String?
    @Option(help: "Only loops translated into this language.") var translation: String?
    @Option(help: "Only loops with this tag.") var tag: String?
    @Option(help: "Only this author's loops (their name, or their key's fingerprint).") var author: String?
    @Flag(help: "Only the loops the server's operator features.") var featured = false
    @Option(help: "latest (newest update first) or hot (most downloads in the last 7 days).")
    var sort: BrowseRequest.Order = .latest
    @Option(help: "Which page of results, from 1.") var page = 1
    @Option(help: "Loops a page (at most 100).") var limit = 20
    @Flag(help: "Print the page as JSON: total, offset, limit, loops (each with its link).") var json = false
    @OptionGroup var serverOptions: ServerOptions

    var request: BrowseRequest {
        var request = BrowseRequest()
        (request.words, request.language, request.translation) = (words.joined(separator: " "), language, translation)
        (request.tag, request.author, request.featured, request.order) = (tag, author, featured, sort)
        (request.page, request.limit, request.server) = (page, limit, serverOptions.server)
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws { try await Library.browse(request).print(json: json, page: page) }
}

extension BrowseRequest.Order: ExpressibleByArgument {}

/// `loop serve`: runs `loop-server`, the Loop Library server, installed beside `loop` (a program
/// of its own, so that `loop` carries no HTTP server).
struct ServeCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Host a Loop Library: run `loop-server` (`loop serve --help` for its options).",
        discussion: CommandHelp.serve,
        helpNames: []
    )

    @Argument(parsing: .allUnrecognized, help: "The server's options (loop serve --help).") var arguments: [String] = []

    func execute() async throws { try Library.runServer(arguments: arguments) }
}

/// `loop decode-media IN OUT [--stream N]`: not for people; the process the commands that read
/// a take run to decode media through FFmpeg's libraries, so that the libraries' memory goes when
/// it ends. Prints `progress SHARE` and `alive` lines (every 10 s of audio), then `decoded
/// DESCRIPTION`; failing, `error CODE MESSAGE` on standard error and status 1.
struct DecodeMediaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-media",
        abstract: "Decode a media file's audio into FLAC (used by the commands that read a take).",
        shouldDisplay: false)

    @Argument(help: "The media file.") var input: String
    @Argument(help: "The FLAC file to write.") var output: String
    @Option(name: .customLong("stream"), parsing: .unconditional, help: "The audio stream, from 0.") var stream: Int?

    func run() throws {
        guard MediaDecoding.serve(input, stream: stream, to: output) else { throw ExitCode.failure }
    }
}
