import ArgumentParser
import Foundation
import LoopLibraryAPI
import LoopLibraryServer
import Logging

/// `loop-server`: hosts a Loop Library (`loop serve` runs it).
@main
struct LoopServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop serve",
        abstract: "Host a Loop Library: authors publish loops to it, learners browse and install them.",
        discussion: """
            The catalog lives in SQLite inside the data folder, or in PostgreSQL with --database \
            (several servers behind a proxy then share it, with the data folder on shared storage). \
            Bundles and takes are files named by their SHA-256 under DATA/blobs. docs/server.md \
            describes the HTTP API.
            """,
        subcommands: [Serve.self, Feature.self, Unfeature.self, TakeDown.self, BlockKey.self, CollectBlobs.self, SeedBenchmark.self],
        defaultSubcommand: Serve.self)

    /// `loop serve --help` shows what a server is started with (serving is the default
    /// command), then the operator's other commands.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] else {
            await Self.mainAsParsed()
            return
        }
        let serving = Serve.helpMessage().replacingOccurrences(of: "USAGE: serve", with: "USAGE: loop serve")
        print(serving.trimmingCharacters(in: .newlines) + """


            OTHER COMMANDS:
              loop serve feature LOOP [--data DIR] [--database URL]     Feature a loop on the front page.
              loop serve unfeature LOOP [--data DIR] [--database URL]   Stop featuring it.
              loop serve takedown LOOP --reason TEXT [--data DIR] [--database URL]
                                                                        Take a loop down (copyright, abuse): off
                                                                        its pages, search, feed and downloads at
                                                                        once; its author cannot publish it again.
              loop serve block-key KEY --reason TEXT [--data DIR] [--database URL]
                                                                        Block an author's key (base64 or its
                                                                        fingerprint): its publishes are refused
                                                                        and its loops taken down.
              loop serve gc [--grace HOURS] [--dry-run] [--data DIR] [--database URL]
                                                                        Remove the blobs no listed loop refers to
                                                                        (unpublished, taken down, replaced), once
                                                                        older than the grace period (24 h).
              (loop serve help feature: their options)
            """)
    }

    /// ArgumentParser's own entry point.
    private static func mainAsParsed() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// Where the library's data lives, and its catalog.
struct StorageOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data folder: the SQLite catalog and the blobs.", valueName: "folder"))
    var data: String?

    @Option(name: .long, help: ArgumentHelp("Keep the catalog in PostgreSQL instead (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE).",
                                            valueName: "url"))
    var database: String?

    /// `--data`, or `$XDG_DATA_HOME/loop/server` (`~/.local/share/loop/server`).
    var dataFolder: String {
        if let data, !data.isEmpty { return data }
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.local/share")
        return base + "/loop/server"
    }

    /// The catalog for an operator's command: the database's own warnings (a connection leased
    /// before its pool has started) are not the operator's business.
    func openCatalogForOperator() throws -> any Catalog {
        var logger = Logger(label: "loop-library-catalog")
        logger.logLevel = .error
        return try openCatalog(logger: logger)
    }

    func openCatalog(logger: Logger) throws -> any Catalog {
        try FileManager.default.createDirectory(atPath: dataFolder, withIntermediateDirectories: true)
        if let database { return try PostgresCatalog(url: database, logger: logger) }
        return try SQLiteCatalog(path: dataFolder + "/catalog.sqlite")
    }
}

/// A reason the server cannot start, said in one line (without the usage a ValidationError adds).
struct ServerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func makeLogger(level: Logger.Level) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    return Logger(label: "loop-library")
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the Loop Library until SIGTERM or SIGINT (the default command).")

    @OptionGroup var storage: StorageOptions

    @Option(name: .long, help: ArgumentHelp("Where to listen.", valueName: "host:port"))
    var listen = "127.0.0.1:8040"

    @Option(name: .long, help: ArgumentHelp("The largest bundle a publish may upload, in MiB.", valueName: "MiB"))
    var maxUpload = 200

    @Option(name: .long, help: ArgumentHelp("Publishes and unpublishes one author key may make a minute.", valueName: "count"))
    var changesPerMinute = 30

    @Option(name: .long, help: ArgumentHelp("Publishes and unpublishes one client address may make a minute, whatever its keys.", valueName: "count"))
    var changesPerAddress = 60

    @Option(name: .long, help: ArgumentHelp("Loops one author key may list at once (a key in its first 7 days: 20, or this if less).", valueName: "count"))
    var loopsPerKey = 500

    @Option(name: .long, help: ArgumentHelp("MiB of bundles one author key may publish a day, UTC (a key in its first 7 days: a tenth).", valueName: "MiB"))
    var dailyUploadPerKey = 2048

    @Option(name: .long, help: ArgumentHelp("MiB of bundles one client address may upload a day, UTC, whatever its keys (counted by each server).", valueName: "MiB"))
    var dailyUploadPerAddress = 4096

    @Option(name: .long, help: ArgumentHelp("Uploads received at once; one more is answered 503 (try again).", valueName: "count"))
    var concurrentUploads = 8

    @Option(name: .long, help: ArgumentHelp("Connections open at once; one more is closed as it is accepted (default: half the open-file limit, raised to its hard limit at start).", valueName: "count"))
    var maxConnections: Int?

    @Option(name: .long, help: ArgumentHelp("Seconds a connection may stay idle, or take to send a request's headers, before it is closed.", valueName: "seconds"))
    var idleTimeout = 30

    @Option(name: .long, help: ArgumentHelp("Append the access log to FILE as JSON lines, one a request (- for standard output); by default a line of text a request goes to the log.", valueName: "file"))
    var accessLog: String?

    @Flag(name: .long, help: "Show /metrics (Prometheus) to any client, not only to this machine's (put it behind your proxy's rules).")
    var openMetrics = false

    @Option(name: .long, help: ArgumentHelp("The address the pages give for this server (its links, the install line), e.g. https://loops.example.org; by default the Host each request names.", valueName: "url"))
    var publicURL: String?

    @Option(name: .long, help: ArgumentHelp("The web pages' templates and stylesheet (by default Resources/web beside the program, or share/loop/web).", valueName: "folder"))
    var web: String?

    @Flag(name: .long, help: "Log only warnings and errors, not a line per request.")
    var quiet = false

    func validate() throws {
        guard Self.address(listen) != nil else { throw ValidationError("--listen takes HOST:PORT (a port from 0 to 65535), not '\(listen)'") }
        guard (1...65_536).contains(maxUpload) else { throw ValidationError("--max-upload takes MiB from 1 to 65536, not \(maxUpload)") }
        guard (1...100_000).contains(changesPerMinute) else { throw ValidationError("--changes-per-minute takes 1 to 100000, not \(changesPerMinute)") }
        guard (1...3_600).contains(idleTimeout) else { throw ValidationError("--idle-timeout takes 1 to 3600 seconds, not \(idleTimeout)") }
        guard (1...100_000).contains(changesPerAddress) else { throw ValidationError("--changes-per-address takes 1 to 100000, not \(changesPerAddress)") }
        guard (1...10_000_000).contains(loopsPerKey) else { throw ValidationError("--loops-per-key takes 1 to 10000000, not \(loopsPerKey)") }
        guard (1...(1 << 24)).contains(dailyUploadPerKey) else { throw ValidationError("--daily-upload-per-key takes MiB from 1 to 16777216, not \(dailyUploadPerKey)") }
        guard (1...(1 << 24)).contains(dailyUploadPerAddress) else { throw ValidationError("--daily-upload-per-address takes MiB from 1 to 16777216, not \(dailyUploadPerAddress)") }
        guard (1...1_000).contains(concurrentUploads) else { throw ValidationError("--concurrent-uploads takes 1 to 1000, not \(concurrentUploads)") }
        if let maxConnections, !(8...1_000_000).contains(maxConnections) { throw ValidationError("--max-connections takes 8 to 1000000, not \(maxConnections)") }
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host?.isEmpty == false,
                  url.query == nil, url.fragment == nil else {
                throw ValidationError("--public-url takes an http or https address such as https://loops.example.org, not '\(publicURL)'")
            }
        }
    }

    var limits: LibraryServer.Limits {
        var limits = LibraryServer.Limits()
        limits.maxUploadBytes = maxUpload << 20
        limits.changesPerMinute = changesPerMinute
        limits.changesPerAddressPerMinute = changesPerAddress
        limits.addressBytesPerDay = dailyUploadPerAddress << 20
        let perKey = dailyUploadPerKey << 20
        limits.keyQuota = KeyQuota(loops: loopsPerKey, bytesPerDay: perKey, newKeyLoops: 20, newKeyBytesPerDay: max(1 << 20, perKey / 10))
        limits.concurrentUploads = concurrentUploads
        limits.maxConnections = maxConnections
        limits.idleSeconds = idleTimeout
        return limits
    }

    static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host.isEmpty ? nil : (host, port)
    }

    func run() async throws {
        let logger = makeLogger(level: quiet ? .warning : .info)
        let (host, port) = Self.address(listen)!
        guard let folder = web ?? WebTemplates.locate() else {
            throw ServerFailure("the web pages' templates were not found (Resources/web beside the program, or share/loop/web): give them with --web FOLDER")
        }
        let templates: WebTemplates
        do {
            templates = try WebTemplates(folder: folder)
        } catch {
            throw ServerFailure(error.description)
        }
        var accessLogFile: AccessLogFile?
        if let accessLog {
            do {
                accessLogFile = try LibraryServer.accessLog(at: accessLog)
            } catch {
                throw ServerFailure("\(accessLog): cannot append the access log to it (\(error))")
            }
        }
        let catalog = try storage.openCatalog(logger: logger)
        let server = LibraryServer(catalog: catalog, dataFolder: storage.dataFolder, web: templates, publicURL: publicURL, limits: limits,
                                   metrics: LibraryServer.recordMetrics(open: openMetrics), accessLog: accessLogFile, logger: logger)
        let kind = storage.database == nil ? "SQLite" : "PostgreSQL"
        let data = storage.dataFolder
        do {
            try await server.run(host: host, port: port) { bound in
                let line = "Loop Library at http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/ (catalog: \(kind), data: \(data))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        } catch let error as CatalogError {
            throw ValidationError(error.message)
        }
    }
}

struct Feature: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Feature a loop on the front page.")

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The loop's id or short id.") var loop: String

    func run() async throws { try await setFeatured(loop, true, storage) }
}

struct Unfeature: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop featuring a loop on the front page.")

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The loop's id or short id.") var loop: String

    func run() async throws { try await setFeatured(loop, false, storage) }
}

func setFeatured(_ loop: String, _ featured: Bool, _ storage: StorageOptions) async throws {
    let changed = try await storage.operatorChange { try await $0.setFeatured(loop, featured: featured) }
    guard changed else { throw operatorFailure("no loop '\(loop)' is published in this library") }
}

extension StorageOptions {
    /// Opens the catalog for an operator's command, makes `change`, and closes it.
    func operatorChange<Result: Sendable>(_ change: (any Catalog) async throws -> Result) async throws -> Result {
        let catalog = try openCatalogForOperator()
        try await catalog.prepare()
        let result = try await change(catalog)
        try await catalog.close()
        return result
    }
}

/// An operator's command that found nothing to change: one line on stderr, exit status 1.
func operatorFailure(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    return ExitCode(1)
}

struct TakeDown: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "takedown",
        abstract: "Take a loop down (copyright, abuse): off its pages, search, feed and downloads at once; its author cannot publish it again.")

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The loop's id or short id.") var loop: String
    @Option(help: ArgumentHelp("Why, in a line: what its author is told when they publish it again.", valueName: "text")) var reason: String

    func run() async throws {
        let reason = try operatorReason(reason)
        let logger = makeLogger(level: .notice)
        guard let id = try await storage.operatorChange({ try await $0.takeDown(loop, reason: reason, now: Date()) }) else {
            throw operatorFailure("no loop '\(loop)' is in this library")
        }
        logger.notice("took down loop \(id): \(reason)")
    }
}

struct BlockKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "block-key",
        abstract: "Block an author's key: its publishes and unpublishes are refused, and its loops are taken down.")

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The author's key (base64) or its fingerprint (as loop browse --author and the pages show it).") var key: String
    @Option(help: ArgumentHelp("Why, in a line: what the author is told when they publish.", valueName: "text")) var reason: String

    func run() async throws {
        let reason = try operatorReason(reason)
        let logger = makeLogger(level: .notice)
        let key = key.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let taken = try await storage.operatorChange({ try await $0.blockKey(key, reason: reason, now: Date()) }) else {
            throw operatorFailure("no author with the key or fingerprint '\(key.prefix(80))' has published here")
        }
        logger.notice("blocked key \(key): \(reason); \(taken) loop(s) taken down")
    }
}

struct CollectBlobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove the blobs no listed loop refers to (unpublished, taken down or replaced loops'), once older than the grace period.",
        discussion: """
            Safe while servers run, from any machine that shares the data folder: a blob stored \
            within the grace period is kept (a publish stores its blobs before its catalog \
            change), and each is looked at again just before it goes. Prints what it removed.
            """)

    @OptionGroup var storage: StorageOptions
    @Option(help: ArgumentHelp("Keep blobs stored within this many hours.", valueName: "hours")) var grace: Double = 24
    @Flag(help: "Say what would go, and remove nothing.") var dryRun = false
    @Flag(help: "Print the figures as JSON.") var json = false

    func validate() throws {
        guard grace >= 0.25, grace <= 24 * 365 else { throw ValidationError("--grace takes 0.25 to 8760 hours, not \(grace)") }
    }

    func run() async throws {
        let blobs = BlobStore(root: storage.dataFolder)
        let storedBefore = Date().addingTimeInterval(-grace * 3600)
        let collection = try await storage.operatorChange { catalog in
            try await blobs.collect(storedBefore: storedBefore, dryRun: dryRun, referenced: { try await catalog.listedBlobs() })
        }
        if json {
            let figures: [String: Int] = ["removed": collection.removed, "removedBytes": collection.removedBytes, "kept": collection.kept]
            let data = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let verb = dryRun ? "would remove" : "removed"
        print("\(verb) \(collection.removed) blob(s), \(collection.removedBytes >> 20) MiB; kept \(collection.kept)")
    }
}

/// An operator's reason, in one line of at most 300 characters.
func operatorReason(_ text: String) throws -> String {
    let reason = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !reason.isEmpty, reason.count <= 300, !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
        throw ValidationError("--reason takes one line of 1 to 300 characters")
    }
    return reason
}

/// Fills a catalog with copies of one published loop under other ids, titles, languages and
/// tags: the large catalog `loop-benchmark server` measures against.
struct SeedBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-benchmark", abstract: "Fill a SQLite catalog with copies of a published loop (for loop-benchmark server).",
        shouldDisplay: false)

    @OptionGroup var storage: StorageOptions
    @Option(help: "The published loop to copy.") var from: String
    @Option(help: "How many copies.") var count = 10_000

    func run() async throws {
        let catalog = try SQLiteCatalog(path: storage.dataFolder + "/catalog.sqlite")
        try await catalog.prepare()
        guard let model = try await catalog.loop(from, now: Date()) else { throw ValidationError("no loop '\(from)' is published here") }
        let words = ["café", "gare", "marché", "train", "hotel", "Bahnhof", "Markt", "estación", "mercado", "駅", "市場", "piazza", "stazione"]
        let languages = [("fr", "en"), ("de", "en"), ("es", "en"), ("ja", "en"), ("it", "en"), ("fr", "de")]
        // The model's phrases and translations, as a publish indexes them.
        struct Content: Decodable { var groups: [[CatalogLoopDetail.Phrase]] }
        let phrases = try JSONDecoder().decode(Content.self, from: model.content).groups.joined().flatMap { [$0.text] + ($0.translation.map { [$0] } ?? []) }
        var entries: [CatalogEntry] = []
        for index in 0..<count {
            let (language, translation) = languages[index % languages.count]
            let title = "\(words[index % words.count]) \(words[(index / words.count) % words.count]) \(index)"
            let tags = ["level \(index % 6 + 1)", words[(index / 7) % words.count]]
            entries.append(CatalogEntry(
                id: UUID().uuidString.lowercased(), revision: 1, authorKey: model.authorKey, authorFingerprint: model.summary.authorFingerprint,
                title: title, language: language, translationLanguage: translation, tags: tags, groupCount: model.summary.groupCount,
                phraseCount: model.summary.phraseCount, seconds: model.summary.seconds, content: model.content,
                bundleSHA256: model.bundleSHA256, bundleBytes: model.bundleBytes,
                searchText: ([title] + tags + phrases).map(CatalogText.fold).joined(separator: "\n")))
        }
        try await catalog.insertForBenchmark(entries, now: Date())
        try await catalog.close()
    }
}
