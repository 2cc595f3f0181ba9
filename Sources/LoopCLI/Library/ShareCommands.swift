import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct IdentityCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Show this library's author identity, or back it up and restore it.",
        discussion: """
            Bundles you export are signed with this library's Ed25519 key (created on first use, \
            stored owner-only in the library folder); only its holder can publish updates of your \
            loops. Keep a backup: --export writes the key, --import restores it.
            """
    )

    @Option(name: .customLong("export"), help: "Write the private key to this file (owner-only), for a backup.")
    var exportPath: String?

    @Option(name: .customLong("import"), help: "Restore the private key from this backup file.") var importPath: String?

    @Option(help: "Set the author name a Loop Library shows for your loops (letters, digits, spaces, . - _).")
    var name: String?

    @OptionGroup var libraryOptions: LibraryOptions

    func validate() throws {
        if [exportPath, importPath, name].compactMap({ $0 }).count > 1 {
            throw ValidationError("give one of --export, --import and --name")
        }
    }

    func execute() async throws {
        let library = try libraryOptions.open()
        if let importPath {
            _ = try LibraryIdentity.restore(from: importPath, into: library)
        } else if let name {
            try LoopLibrarySharing.setAuthorName(name, of: library)
        } else if let exportPath {
            try LibraryIdentity.backUp(library, to: exportPath)
        } else {
            let name = LoopLibrarySharing.authorName(of: library).map { "  " + $0 } ?? ""
            print(try LibraryIdentity.fingerprint(of: library) + name)
        }
    }
}

struct ExportCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write loops into one signed bundle file to share, or a loop as subtitles, labels or an Anki deck.",
        discussion: """
            The bundle (the default format) holds each loop's text, groups, phrases and clips, its \
            takes as FLAC, and your signature (see docs/bundle-format.md). --format srt or vtt \
            writes one loop's phrases as subtitles, and labels as an Audacity label track, timed \
            over the take they were cut from; with --clips, over one FLAC file of the clips one \
            after the other, written beside (lesson.srt and lesson.flac). --format anki writes an \
            Anki package (.apkg): a deck of the loop with a note per phrase (fields Text, \
            Translation, Audio, Loop, Group, Number), which Anki updates, not duplicates, when a \
            newer export of the loop is imported.
            """
    )

    typealias Format = ExportWorkflow.Format

    @Argument(help: "The loops: starts of their ids or of their titles.") var loops: [String]
    @Option(name: .short, help: "The file to write (.loop for a bundle).") var output: String
    @Option(help: "What to write: bundle, srt, vtt, labels or anki.") var format: Format = .bundle

    @Flag(help: "With srt, vtt or labels: also write the clips joined into one FLAC file, which the times follow.")
    var clips = false

    @Flag(help: "With srt, vtt or labels: each phrase's translation as a second line.") var translations = false
    @OptionGroup var libraryOptions: LibraryOptions

    func validate() throws {
        if format != .bundle && loops.count != 1 {
            throw ValidationError("--format \(format.rawValue) writes one loop, not \(loops.count)")
        }
        if (format == .bundle || format == .anki) && (clips || translations) {
            throw ValidationError("--clips and --translations go with --format srt, vtt or labels")
        }
    }

    func execute() async throws {
        let library = try libraryOptions.openForReading()
        let ids = try loops.map { try library.resolve($0) }
        let progress = ProgressBar("exporting")
        defer { progress.finish() }
        try await ExportWorkflow(library: library).export(
            loops: ids, as: format, to: output, joinedClips: clips, translations: translations,
            progress: progress.callback)
    }
}

extension ExportWorkflow.Format: ExpressibleByArgument {}

struct InspectCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a bundle holds, who signed it, and whether it verifies."
    )

    @Argument(help: "The bundle file.") var bundle: String
    @Flag(help: "Print one JSON object: format version, signer, loops, audio, verified.") var json = false

    func execute() async throws {
        let verified = try await BundleInspection.inspect(bundle)
        if json { try JSONOutput.print(BundleReport(verified)) } else { verified.lines.forEach { print($0) } }
    }
}

struct ImportCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import loop bundles, every bundle of a shared folder, or a loop from a Loop Library link.",
        discussion: """
            A new loop is added. A loop already here is updated in place only when the same \
            author signed it and the revision is higher; its study history stays. Another \
            author's bundle for a loop here is refused (--as-copy imports it as a new loop); a \
            loop edited here since its import is not overwritten (--as-copy, or --force). Each \
            bundle is verified in full first and goes in whole or not at all. Folders are taken \
            newest revision first. A bundle that is refused (damaged, another author's, ...) gets \
            one line on standard error naming it and why; the others are imported all the same, \
            a summary follows, and the exit status is non-zero. A link (`loop import \
            https://HOST/9ddbb9`) downloads the loop's bundle and imports it the same way, and \
            `loop update` pulls its later revisions.
            """
    )

    @Argument(help: "Bundle files, folders of them, or links to loops on a Loop Library server (https://HOST/ID).")
    var paths: [String]

    @Flag(name: .customLong("as-copy"), help: "Import as new loops, with new ids.") var asCopy = false
    @Flag(help: "Update loops even when they were edited here since their import.") var force = false
    @Flag(name: .customLong("dry-run"), help: "Show what would change, and change nothing.") var dryRun = false
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let library = try libraryOptions.open()
        let progress = ProgressBar("importing")
        let outcomes = try await LoopLibrarySharing(library: library).importEach(
            paths, options: ImportOptions(asCopy: asCopy, force: force, dryRun: dryRun))
        progress.finish()
        let (output, errors) = outcomes.lines(dryRun: dryRun)
        errors.forEach(StandardError.write)
        output.forEach { print($0) }
        if !errors.isEmpty { throw ExitCode.failure }
    }
}

struct PublishCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a loop's newest revision to a Loop Library server, or into a shared folder.",
        discussion: """
            --to URL (or $LOOP_SERVER, or `server = URL` in ~/.config/loop/config) uploads the \
            loop signed with your identity and prints its preview link; publish again after an \
            edit to update it, and learners get it with `loop update`. Only the loop's author \
            can publish it (--as-copy publishes your own copy, with a new id). The server shows \
            the name set with `loop identity --name`. --to DIR writes the bundle into a folder \
            (a synced folder, a USB stick) instead, replacing the previous revision atomically.
            """
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
        let library = try libraryOptions.open()
        guard
            let published = try await LoopLibrarySharing(library: library).publish(
                loop: try library.resolve(loop), to: destination, asCopy: asCopy)
        else { return }
        if json {
            try JSONOutput.print(PublishReport(published))
            return
        }
        print(published.link)
        if Terminal.standardError().isInteractive { StandardError.write(published.note) }
    }
}
