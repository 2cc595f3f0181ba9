import Foundation
import LoopFoundation
import LoopLibraryAPI
import LoopLibraryClient
import LoopModel
import LoopShare
import LoopStore

// Sharing through a Loop Library server (`loop serve`): publishing a loop, taking it off,
// installing one by its link, pulling the updates of installed loops, and browsing a server.
// What the server accepts is what an import accepts; an install is an import of the downloaded
// bundle, under the same rules (ownership, revisions, edits made here), keeping study history.

/// A loop's newest revision published: to a Loop Library server (nil: the configured one), or
/// into a shared folder.
public struct PublishRequest: Sendable {
    /// The loop: an id, a start of it, a title or a start of it.
    public var loop: String
    /// A server's address, or a folder.
    public var destination: String?
    /// Publish a copy of the loop, with a new id, as one's own.
    public var asCopy = false

    /// A publish of `loop` to `destination` (nil: the configured server), as a copy when `asCopy`.
    public init(loop: String, destination: String? = nil, asCopy: Bool = false) {
        (self.loop, self.destination, self.asCopy) = (loop, destination, asCopy)
    }
}

/// What publishing to a server did.
public struct Published: Sendable, Encodable {
    /// The loop's id on the server.
    public var id: String
    /// Its short id, which names its page (`https://HOST/9ddbb9`).
    public var shortID: String
    /// The revision published.
    public var revision: Int
    /// The revision it replaced; nil on a first publish.
    public var previousRevision: Int?
    /// The loop's preview page (its link to send).
    public var link: String
    /// The line that installs it.
    public var install: String
}

/// Loops installed from a Loop Library to update (none: every one).
public struct UpdateRequest: Sendable {
    /// The loops to update: ids, starts of them, titles or starts of them.
    public var loops: [String] = []
    /// Update loops even when they were edited here since their install.
    public var force = false
    /// Say what would change, and change nothing.
    public var dryRun = false

    /// An update of `loops` (none: every loop installed from a server).
    public init(loops: [String] = [], force: Bool = false, dryRun: Bool = false) {
        (self.loops, self.force, self.dryRun) = (loops, force, dryRun)
    }
}

/// What updating one installed loop found.
public enum LoopUpdate: Sendable {
    case unchanged(LoopOrigin)
    /// `reviewsRestarted`: groups being reviewed whose text changed (their reviews start anew).
    case updated(LoopOrigin, from: Int, to: Int, reviewsRestarted: Int = 0)
    case refused(LoopOrigin, reason: FailureSummary)
}

/// A page of a Loop Library's catalog to browse.
public struct BrowseRequest: Sendable {
    /// The orders a Loop Library lists its loops in.
    public enum Order: String, Sendable, CaseIterable {
        /// Newest update first.
        case latest
        /// Most downloads in the last seven days first.
        case hot
    }

    /// Words to search for (none: every loop).
    public var words = ""
    public var language: String?, translation: String?, tag: String?, author: String?
    /// Only loops the server features.
    public var featured = false
    /// Latest first, or hot (most downloaded of late).
    public var order: Order = .latest
    /// From 1.
    public var page = 1
    /// Loops a page (at most 100).
    public var limit = 20
    /// The server (nil: the configured one).
    public var server: String?

    /// A request for the catalog's first page of latest loops.
    public init() {}

    /// Refuses a page before the first, a limit past 100, or a language tag that is not one.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(page < 1, RequestProblem("{page} counts from 1"))
        try RequestProblem.check(!(1...100).contains(limit), RequestProblem("{limit} must be from 1 to 100"))
    }
}

/// A page of a Loop Library's catalog: its JSON is the server's page with each loop's link.
public struct CatalogBrowse: Sendable, Encodable {
    /// One loop of the page.
    public struct Entry: Sendable, Encodable {
        let loop: CatalogLoop
        /// Its preview page on the server.
        public let link: String

        /// A loop of a catalog's page, and its preview page.
        public init(loop: CatalogLoop, link: String) { (self.loop, self.link) = (loop, link) }

        /// The loop's title.
        public var title: String { loop.title }
        /// The language its text is in.
        public var language: String? { loop.language }
        /// The language of its translations.
        public var translationLanguage: String? { loop.translationLanguage }
        /// How many phrases it has.
        public var phraseCount: Int { loop.phraseCount }
        /// Its author's display name, if they gave one.
        public var author: String? { loop.author }
        /// The fingerprint of its author's key.
        public var authorFingerprint: String { loop.authorFingerprint }
        /// Its tags.
        public var tags: [String] { loop.tags }
    }

    /// How many loops match.
    public let total: Int
    /// How many come before this page.
    public let offset: Int
    /// The most on a page.
    public let limit: Int
    /// True when more loops match than `total` (a search with words counts up to 1,000).
    public let totalIsLowerBound: Bool?
    /// This page's loops.
    public let loops: [Entry]

    /// The total as a person reads it: `1000+` when more match.
    public var totalText: String { "\(total)" + (totalIsLowerBound == true ? "+" : "") }
}

extension Library {
    /// Whether `text` is a server's address rather than a file or a folder.
    public static func isAddress(_ text: String) -> Bool { text.hasPrefix("http://") || text.hasPrefix("https://") }

    /// The address meant by `text` when it is a server's address written without its scheme
    /// (`localhost:8080/9ddbb9` → `http://localhost:8080/9ddbb9`), else nil.
    public static func suggestedAddress(for text: String) -> String? { LibraryClient.suggestedAddress(for: text) }

    /// The server to use: `address`, else `LOOP_SERVER`, else the `server = URL` line of the
    /// config file; an error says how to name one.
    static func server(_ address: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> LibraryClient
    {
        let configured =
            address ?? environment["LOOP_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
            ?? configuredServer(environment: environment)
        guard let configured else {
            throw WorkflowError(
                .noServer, path: nil,
                message:
                    "no Loop Library server named: give its address (http://HOST:PORT), set LOOP_SERVER, or write `server = URL` in \(configFile(environment: environment))"
            )
        }
        return try LibraryClient(server: configured)
    }

    /// `$XDG_CONFIG_HOME/loop/config`, else `~/.config/loop/config`: lines `key = value`.
    public static func configFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/loop/config" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/loop/config"
    }

    static func configuredServer(environment: [String: String]) -> String? {
        guard let text = try? String(contentsOfFile: configFile(environment: environment), encoding: .utf8) else {
            return nil
        }
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == "server", !parts[1].isEmpty { return parts[1] }
        }
        return nil
    }

    /// Publishes a loop's newest revision: to a server's address (nil: the configured server),
    /// or into a shared folder (then nil comes back). Only its author may publish it; the server
    /// refuses a revision it has already. `asCopy` first makes a copy of the loop here with a new
    /// id, owned by this library, and publishes that.
    public func publish(_ request: PublishRequest) async throws -> Published? {
        let id = try resolve(request.loop)
        guard let folder = request.destination, !Self.isAddress(folder) else {
            return try await publish(loop: id, to: try Self.server(request.destination), asCopy: request.asCopy)
        }
        // `--to localhost:8080` means a server, unless such a folder is there.
        if !FileManager.default.fileExists(atPath: folder), let suggested = Self.suggestedAddress(for: folder) {
            throw WorkflowError(
                .refused, "not a folder, nor a Loop Library address: did you mean \(suggested)?", path: folder)
        }
        if request.asCopy {
            throw WorkflowError(.refused, "--as-copy publishes to a server; `loop export` shares a copy in a file")
        }
        _ = try await publish(loop: id, toFolder: folder)
        return nil
    }

    /// Publishes the loop's newest revision to `client`'s server, signed with this library's
    /// identity, under its author name.
    func publish(loop id: String, to client: LibraryClient, asCopy: Bool = false) async throws -> Published {
        let identity = try Self.identity(of: store)
        let id = asCopy ? try await copy(loop: id) : id
        // In flight until it is sent: `gc` never takes the bundle being uploaded.
        return try await store.whileInFlight { try await publishNewest(of: id, signedBy: identity, to: client) }
    }

    private func publishNewest(of id: String, signedBy identity: AuthorIdentity, to client: LibraryClient)
        async throws -> Published
    {
        let (bundle, written, revision) = try await work("loop publish") {
            store throws -> (String, BundleWriter.Written, Int) in
            if let owner = try store.ownerKey(ofLoop: id), owner != identity.publicKey.base64EncodedString() {
                throw ShareError(
                    .notTheAuthor,
                    "only its author can publish this loop (it is signed by \(AuthorIdentity.fingerprint(of: Data(base64Encoded: owner) ?? Data())))"
                )
            }
            let scratch = store.scratchFolder(named: "publish")
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            let path = scratch + "/loop.loop"
            let loop = try store.loop(id: id)
            let written = try BundleWriter(identity: identity, authorName: Self.authorName(of: store))
                .writeToSend([loop], to: path)
            return (path, written, loop.summary.revision)
        }
        defer { try? FileManager.default.removeItem(atPath: (bundle as NSString).deletingLastPathComponent) }
        TestStop.reached("publish.written")
        let signer = RequestSigner(publicKey: identity.publicKey, authorName: Self.authorName(of: store)) {
            try identity.sign($0)
        }
        let result = try await client.publish(
            bundle: bundle, sha256: written.sha256, length: written.bytes, loopID: id, revision: revision,
            signer: signer)
        let link = client.previewLink(shortID: result.shortID)
        return Published(
            id: result.id, shortID: result.shortID, revision: result.revision,
            previousRevision: result.previousRevision, link: link, install: "loop import \(link)")
    }

    /// A copy of the loop with a new id, owned by this library (its study history stays with the
    /// original): exported and imported as a copy, under the same checks as any import.
    private func copy(loop id: String) async throws -> String {
        let scratch = store.scratchFolder(named: "copy")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try await exportBundle(loops: [id], to: scratch + "/loop.loop")
        let results = try await importBundles(at: [scratch + "/loop.loop"], options: ImportOptions(asCopy: true))
        guard let outcome = results.first?.loops.first?.outcome else {
            throw ShareError(.corrupt, "the copy holds no loop", path: scratch)
        }
        return outcome.id
    }

    /// Takes the loop off the server (nil: the configured one; its author only); the loop stays
    /// in this library.
    public func unpublish(_ reference: String, from server: String?) async throws {
        let id = try resolve(reference)
        let client = try Self.server(server)
        let identity = try Self.identity(of: store)
        try await client.unpublish(
            id: id, signer: RequestSigner(publicKey: identity.publicKey, authorName: nil) { try identity.sign($0) })
    }

    /// Installs the loop a link names (`https://HOST/9ddbb9`): downloads its bundle, imports it
    /// as an import would, and remembers the server for updates.
    func install(link: String, options: ImportOptions) async throws -> ImportedBundle {
        guard let (server, ref) = LibraryClient.parseLink(link) else {
            throw WorkflowError(
                .noServer, path: link, message: "not a link to a loop on a Loop Library (https://HOST/<id>)")
        }
        let client = try LibraryClient(server: server)
        guard let (result, etag) = try await downloadAndImport(ref, from: client, ifNoneMatch: nil, options: options)
        else {
            throw ShareError(.corrupt, "the server sent no bundle", path: link)
        }
        // A copy is a loop of this library's own: the server's updates are not for it.
        if !options.dryRun && !options.asCopy {
            for case (_, let outcome) in result.loops {
                try store.setOrigin(ofLoop: outcome.id, server: client.server.absoluteString, etag: etag)
            }
        }
        return result
    }

    /// Asks each installed loop's server for a newer revision (all installed loops, or those the
    /// request names) and imports it under the import rules: study history stays; a loop edited
    /// here is not overwritten unless forced. A loop that cannot be updated is reported, and the
    /// others go on. A loop named that was not installed from a server is refused.
    public func update(_ request: UpdateRequest) async throws -> [LoopUpdate] {
        let ids = request.loops.isEmpty ? nil : try request.loops.map { try resolve($0) }
        let options = ImportOptions(force: request.force, dryRun: request.dryRun)
        let origins = try store.origins(ofLoops: ids)
        if let ids, origins.count < Set(ids).count {
            throw WorkflowError(
                .refused,
                "\(Set(ids).count - origins.count) of these loops were not installed from a Loop Library server: nothing to update them from"
            )
        }
        var updates: [LoopUpdate] = []
        for origin in origins {
            do {
                let client = try LibraryClient(server: origin.server)
                guard
                    let (result, etag) = try await downloadAndImport(
                        origin.loopId, from: client, ifNoneMatch: origin.etag, options: options)
                else {
                    updates.append(.unchanged(origin))
                    continue
                }
                if !options.dryRun { try store.setOrigin(ofLoop: origin.loopId, server: origin.server, etag: etag) }
                switch result.loops.first?.outcome {
                case .updated(_, let from, let to, let restarted):
                    updates.append(.updated(origin, from: from, to: to, reviewsRestarted: restarted))
                default: updates.append(.unchanged(origin))
                }
            } catch {
                updates.append(.refused(origin, reason: FailureSummary(error)))
            }
        }
        return updates
    }

    /// Downloads a loop's bundle (nil when the server's is the one `ifNoneMatch` names) and
    /// imports it; the bundle's ETag comes back for the next update.
    private func downloadAndImport(
        _ ref: String, from client: LibraryClient, ifNoneMatch: String?, options: ImportOptions
    ) async throws -> (ImportedBundle, String?)? {
        let scratch = store.scratchFolder(named: "download")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/loop.loop"
        guard case .downloaded(let etag) = try await client.downloadBundle(ref, to: path, ifNoneMatch: ifNoneMatch)
        else { return nil }
        let results: [ImportedBundle]
        do {
            results = try await importBundles(at: [path], options: options)
        } catch let error as ShareError {
            // Named by what the person asked for, not by the download's scratch file (gone by
            // the time the message is read).
            let link = client.server.absoluteString + "/" + ref
            var named = error.naming(path, as: link)
            if named.kind == .corrupt {
                named.message = "the server's answer is not a loop bundle (" + named.message + ")"
            }
            throw named
        }
        guard var result = results.first else {
            throw ShareError(.corrupt, "the server's bundle holds no loop", path: client.server.absoluteString)
        }
        result.bundle = client.server.absoluteString + "/" + ref
        return (result, etag)
    }

    /// A page of the catalog of a Loop Library server (the request's, or the configured one),
    /// each loop with its link there.
    public static func browse(_ request: BrowseRequest) async throws -> CatalogBrowse {
        try request.check()
        let client = try server(request.server)
        let query = CatalogQuery(
            text: request.words, language: request.language, translationLanguage: request.translation,
            tag: request.tag, author: request.author, featuredOnly: request.featured,
            sort: request.order == .hot ? .hot : .latest, offset: (request.page - 1) * request.limit,
            limit: request.limit)
        let page = try await client.catalog(query)
        return CatalogBrowse(
            total: page.total, offset: page.offset, limit: page.limit, totalIsLowerBound: page.totalIsLowerBound,
            loops: page.loops.map { .init(loop: $0, link: client.previewLink(shortID: $0.shortID)) })
    }

    /// Runs `loop-server`, the Loop Library server installed beside this program, with
    /// `arguments`, in place of this process: returns only by throwing, when it cannot.
    public static func runServer(arguments: [String]) throws {
        let server = ThisProgram.sibling(named: "loop-server")
        guard FileManager.default.isExecutableFile(atPath: server) else {
            throw WorkflowError(
                .refused,
                "no such program: the Loop Library server is built with `swift build --product loop-server` and installed beside `loop`",
                path: server)
        }
        let failure = ThisProgram.replace(with: server, arguments: arguments)
        throw WorkflowError(.refused, "cannot run it (\(failure))", path: server)
    }
}
