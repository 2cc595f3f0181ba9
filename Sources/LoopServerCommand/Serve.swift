import ArgumentParser
import Foundation
import Logging
import LoopFoundation
import LoopLibraryAPI
import LoopLibraryServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the Loop Library until SIGTERM or SIGINT (the default command).")

    @OptionGroup var storage: StorageOptions

    @Option(name: .long, help: ArgumentHelp("Where to listen.", valueName: "host:port"))
    var listen = "127.0.0.1:8040"

    @Option(name: .long, help: ArgumentHelp("The largest bundle a publish may upload, in MiB.", valueName: "MiB"))
    var maxUpload = 200

    @Option(
        name: .long,
        help: ArgumentHelp("Publishes and unpublishes one author key may make a minute.", valueName: "count"))
    var changesPerMinute = 30

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Publishes and unpublishes one client address may make a minute, whatever its keys.", valueName: "count"))
    var changesPerAddress = 60

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Loops one author key may list at once (a key in its first 7 days: 20, or this if less).",
            valueName: "count"))
    var loopsPerKey = 500

    @Option(
        name: .long,
        help: ArgumentHelp(
            "MiB of bundles one author key may publish a day, UTC (a key in its first 7 days: a tenth).",
            valueName: "MiB"))
    var dailyUploadPerKey = 2048

    @Option(
        name: .long,
        help: ArgumentHelp(
            "MiB of bundles one client address may upload a day, UTC, whatever its keys (counted by each server).",
            valueName: "MiB"))
    var dailyUploadPerAddress = 4096

    @Option(
        name: .long,
        help: ArgumentHelp("Uploads received at once; one more is answered 503 (try again).", valueName: "count"))
    var concurrentUploads = 8

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Connections open at once; one more is closed as it is accepted (default: half the open-file limit, raised to its hard limit at start).",
            valueName: "count"))
    var maxConnections: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds a connection may stay idle, or take to send a request's headers, before it is closed.",
            valueName: "seconds"))
    var idleTimeout = 30

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Append the access log to FILE as JSON lines, one a request (- for standard output); by default a line of text a request goes to the log.",
            valueName: "file"))
    var accessLog: String?

    @Flag(
        name: .long,
        help: "Show /metrics (Prometheus) to any client, not only to this machine's (put it behind your proxy's rules)."
    )
    var openMetrics = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The address the pages give for this server (its links, the install line), e.g. https://loops.example.org; by default the Host each request names.",
            valueName: "url"))
    var publicURL: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The web pages' templates and stylesheet (by default Resources/web beside the program, or share/loop/web).",
            valueName: "folder"))
    var web: String?

    @Flag(name: .long, help: "Log only warnings and errors, not a line per request.")
    var quiet = false

    func validate() throws {
        guard Self.address(listen) != nil else {
            throw ValidationError("--listen takes HOST:PORT (a port from 0 to 65535), not '\(listen)'")
        }
        guard (1...65_536).contains(maxUpload) else {
            throw ValidationError("--max-upload takes MiB from 1 to 65536, not \(maxUpload)")
        }
        guard (1...100_000).contains(changesPerMinute) else {
            throw ValidationError("--changes-per-minute takes 1 to 100000, not \(changesPerMinute)")
        }
        guard (1...3_600).contains(idleTimeout) else {
            throw ValidationError("--idle-timeout takes 1 to 3600 seconds, not \(idleTimeout)")
        }
        guard (1...100_000).contains(changesPerAddress) else {
            throw ValidationError("--changes-per-address takes 1 to 100000, not \(changesPerAddress)")
        }
        guard (1...10_000_000).contains(loopsPerKey) else {
            throw ValidationError("--loops-per-key takes 1 to 10000000, not \(loopsPerKey)")
        }
        guard (1...(1 << 24)).contains(dailyUploadPerKey) else {
            throw ValidationError("--daily-upload-per-key takes MiB from 1 to 16777216, not \(dailyUploadPerKey)")
        }
        guard (1...(1 << 24)).contains(dailyUploadPerAddress) else {
            throw ValidationError(
                "--daily-upload-per-address takes MiB from 1 to 16777216, not \(dailyUploadPerAddress)")
        }
        guard (1...1_000).contains(concurrentUploads) else {
            throw ValidationError("--concurrent-uploads takes 1 to 1000, not \(concurrentUploads)")
        }
        if let maxConnections, !(8...1_000_000).contains(maxConnections) {
            throw ValidationError("--max-connections takes 8 to 1000000, not \(maxConnections)")
        }
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""),
                url.host?.isEmpty == false,
                url.query == nil, url.fragment == nil
            else {
                throw ValidationError(
                    "--public-url takes an http or https address such as https://loops.example.org, not '\(publicURL)'")
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
        limits.keyQuota = KeyQuota(
            loops: loopsPerKey, bytesPerDay: perKey, newKeyLoops: 20, newKeyBytesPerDay: max(1 << 20, perKey / 10))
        limits.concurrentUploads = concurrentUploads
        limits.maxConnections = maxConnections
        limits.idleSeconds = idleTimeout
        return limits
    }

    static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host.isEmpty ? nil : (host, port)
    }

    func run() async throws {
        let logger = makeLogger(level: quiet ? .warning : .info)
        guard let (host, port) = Self.address(listen) else {
            throw ValidationError("--listen takes HOST:PORT (a port from 0 to 65535), not '\(listen)'")
        }
        let templates = try loadWebTemplates(web)
        var accessLogFile: AccessLogFile?
        if let accessLog {
            do {
                accessLogFile = try LibraryServer.accessLog(at: accessLog)
            } catch {
                throw ServerFailure("\(accessLog): cannot append the access log to it (\(error))")
            }
        }
        let catalog = try storage.openCatalog(logger: logger, mirroringSearch: true)
        let server = LibraryServer(
            catalog: catalog, dataFolder: storage.dataFolder, web: templates, publicURL: publicURL, limits: limits,
            metrics: LibraryServer.recordMetrics(open: openMetrics), accessLog: accessLogFile, logger: logger)
        let kind = storage.database == nil ? "SQLite" : "PostgreSQL"
        let data = storage.dataFolder
        do {
            try await server.run(host: host, port: port) { bound in
                let line =
                    "Loop Library at http://\(host.contains(":") ? "[\(host)]" : host):\(bound)/ (catalog: \(kind), data: \(data))\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        } catch let error as CatalogError {
            throw ServerFailure(error.message)
        }
    }
}

/// The web pages' templates in `folder`, else where they are installed beside the program.
func loadWebTemplates(_ folder: String?) throws -> WebTemplates {
    guard let folder = folder ?? WebTemplates.locate() else {
        throw ServerFailure(
            "the web pages' templates were not found (Resources/web beside the program, or share/loop/web): give them with --web FOLDER"
        )
    }
    do {
        return try WebTemplates(folder: folder)
    } catch {
        throw ServerFailure(error.description)
    }
}
