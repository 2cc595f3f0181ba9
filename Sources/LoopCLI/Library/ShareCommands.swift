import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct IdentityCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Show this library's author identity, or back it up and restore it.",
        discussion: CommandHelp.identity
    )

    @Option(name: .customLong("export"), help: "Write the private key to this file (owner-only), for a backup.")
    var exportPath: String?
    @Option(name: .customLong("import"), help: "Restore the private key from this backup file.") var importPath: String?
    @Option(help: "Set the author name a Loop Library shows for your loops (letters, digits, spaces, . - _).")
    var name: String?
    @OptionGroup var libraryOptions: LibraryOptions

    var request: IdentityRequest { IdentityRequest(export: exportPath, restore: importPath, name: name) }

    func validate() throws { try check(request.check) }

    func execute() async throws { try libraryOptions.open().identity(request).printed() }
}

struct ExportCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write loops into one signed bundle file to share, or a loop as subtitles, labels or an Anki deck.",
        discussion: CommandHelp.`export`
    )

    @Argument(help: "The loops: starts of their ids or of their titles.") var loops: [String]
    @Option(name: .short, help: "The file to write (.loop for a bundle).") var output: String
    @Option(help: "What to write: bundle, srt, vtt, labels or anki.") var format: ExportRequest.Format = .bundle
    @Flag(help: "With srt, vtt or labels: also write the clips joined into one FLAC file, which the times follow.")
    var clips = false
    @Flag(help: "With srt, vtt or labels: each phrase's translation as a second line.") var translations = false
    @OptionGroup var libraryOptions: LibraryOptions

    var request: ExportRequest {
        var request = ExportRequest(loops: loops, output: output)
        (request.format, request.clips, request.translations) = (format, clips, translations)
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws {
        let progress = ProgressBar("exporting")
        defer { progress.finish() }
        try await libraryOptions.open(.readOnly).export(request, progress: progress.callback)
    }
}

extension ExportRequest.Format: ExpressibleByArgument {}

struct InspectCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a bundle holds, who signed it, and whether it verifies."
    )

    @Argument(help: "The bundle file.") var bundle: String
    @Flag(help: "Print one JSON object: format version, signer, loops, audio, verified.") var json = false

    func execute() async throws { try await Library.inspect(bundle: bundle).print(json: json) }
}

struct ImportCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import loop bundles, every bundle of a shared folder, or a loop from a Loop Library link.",
        discussion: CommandHelp.`import`
    )

    @Argument(help: "Bundle files, folders of them, or links to loops on a Loop Library server (https://HOST/ID).")
    var paths: [String]
    @Flag(name: .customLong("as-copy"), help: "Import as new loops, with new ids.") var asCopy = false
    @Flag(help: "Update loops even when they were edited here since their import.") var force = false
    @Flag(name: .customLong("dry-run"), help: "Show what would change, and change nothing.") var dryRun = false
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let progress = ProgressBar("importing")
        let outcomes = try await libraryOptions.open().importBundles(
            ImportRequest(paths: paths, asCopy: asCopy, force: force, dryRun: dryRun))
        progress.finish()
        if !outcomes.printed(dryRun: dryRun) { throw ExitCode.failure }
    }
}

struct PublishCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a loop's newest revision to a Loop Library server, or into a shared folder.",
        discussion: CommandHelp.publish
    )

    @Argument(help: .loop) var loop: String
    @Option(
        name: .customLong("to"),
        help: ArgumentHelp("A Loop Library server (http://HOST:PORT), or a shared folder.", valueName: "url-or-folder"))
    var destination: String?
    @Flag(name: .customLong("as-copy"), help: "Publish a copy of the loop, with a new id, as your own.")
    var asCopy = false
    @Flag(help: "Print the result as JSON: id, shortID, revision, previousRevision, link, install.") var json = false
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let published = try await libraryOptions.open().publish(
            PublishRequest(loop: loop, destination: destination, asCopy: asCopy))
        try published?.print(json: json)
    }
}
