import Foundation
import LoopFoundation
import LoopLibraryAPI
import LoopLibraryClient
import LoopModel
import LoopShare
import LoopStore

/// Sharing through a Loop Library server (`loop serve`): publishing a loop, taking it off,
/// installing one by its link, and pulling the updates of installed loops. What the server
/// accepts is what ``BundleImporter`` accepts; an install is an import of the downloaded bundle,
/// under the same rules (ownership, revisions, edits made here), keeping study history.
public struct LoopLibrarySharing: Sendable {
    let store: LibraryStore

    package init(store: LibraryStore) {
        self.store = store
    }

    /// The server to use: `address`, else `LOOP_SERVER`, else the `server = URL` line of the
    /// config file (``configFile(environment:)``); an error says how to name one.
    public static func server(_ address: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
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

    /// The author name this library shows on a Loop Library, if one was set.
    package static func authorName(of store: LibraryStore) -> String? {
        (try? String(contentsOfFile: store.layout.authorName, encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines
        ).nilIfEmpty
    }

    /// Sets the author name a Loop Library shows for this library's identity (bound to the key
    /// by the server at the next publish; another key's name is refused there).
    package static func setAuthorName(_ name: String, of store: LibraryStore) throws {
        guard let trimmed = AuthorName.validated(name) else {
            throw WorkflowError(
                .badName, path: nil, message: "an author name is 1 to 40 letters, digits, spaces, '.', '-' or '_'")
        }
        _ = try LibraryIdentity.loadOrCreate(store)
        try DurableFile.write(Data((trimmed + "\n").utf8), to: store.layout.authorName, permissions: 0o644)
    }

    /// What publishing did.
    public struct Published: Sendable, Encodable {
        public var result: PublishResult
        /// The loop's preview page (its link to send).
        public var link: String
        /// The line that installs it.
        public var install: String
        /// With `asCopy`: the id of the copy made here.
        public var copied: String?
    }

    /// Publishes the loop's newest revision, signed with this library's identity, under the
    /// author name set with ``setAuthorName(_:of:)``. Only its author may publish it; the server
    /// refuses a revision it has already. `asCopy` first makes a copy of the loop here with a new
    /// id, owned by this library, and publishes that (for a loop another author owns).
    public func publish(loop id: String, to client: LibraryClient, asCopy: Bool = false) async throws -> Published {
        let store = self.store
        let identity = try LibraryIdentity.loadOrCreate(store)
        let id = asCopy ? try await copy(loop: id, identity: identity) : id
        let (bundle, written, revision) = try await BlockingWork.run("loop publish") {
            () throws -> (String, BundleWriter.Written, Int) in
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
            let written = try BundleWriter(identity: identity, authorName: LoopLibrarySharing.authorName(of: store))
                .writeToSend([loop], to: path)
            return (path, written, loop.summary.revision)
        }
        defer { try? FileManager.default.removeItem(atPath: (bundle as NSString).deletingLastPathComponent) }
        let signer = RequestSigner(publicKey: identity.publicKey, authorName: Self.authorName(of: store)) {
            try identity.sign($0)
        }
        let result = try await client.publish(
            bundle: bundle, sha256: written.sha256, length: written.bytes, loopID: id, revision: revision,
            signer: signer)
        let link = client.previewLink(shortID: result.shortID)
        return Published(result: result, link: link, install: "loop import \(link)", copied: asCopy ? id : nil)
    }

    /// A copy of the loop with a new id, owned by this library (its study history stays with
    /// the original): exported and imported as a copy, under the same checks as any import.
    private func copy(loop id: String, identity: AuthorIdentity) async throws -> String {
        let scratch = store.scratchFolder(named: "copy")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try await BundleExporter(store: store).export(loops: [id], to: scratch + "/loop.loop")
        let results = try await BundleImporter(store: store).importBundles(
            at: [scratch + "/loop.loop"], options: ImportOptions(asCopy: true))
        guard let outcome = results.first?.loops.first?.outcome else {
            throw ShareError(.corrupt, "the copy holds no loop", path: scratch)
        }
        return outcome.id
    }

    /// Takes the loop off the server (its author only); the loop stays in this library.
    public func unpublish(loop id: String, from client: LibraryClient) async throws {
        let identity = try LibraryIdentity.loadOrCreate(store)
        try await client.unpublish(
            id: id, signer: RequestSigner(publicKey: identity.publicKey, authorName: nil) { try identity.sign($0) })
    }

    /// Installs the loop a link names (`https://HOST/9ddbb9`): downloads its bundle, imports it
    /// as `loop import` would, and remembers the server for `loop update`.
    public func install(link: String, options: ImportOptions) async throws -> BundleImporter.Result {
        guard let (server, ref) = LibraryClient.parseLink(link) else {
            throw WorkflowError(
                .noServer, path: link, message: "not a link to a loop on a Loop Library (https://HOST/<id>)")
        }
        let client = try LibraryClient(server: server)
        let (result, etag) = try await downloadAndImport(ref, from: client, ifNoneMatch: nil, options: options)!
        // A copy is a loop of this library's own: the server's updates are not for it.
        if !options.dryRun && !options.asCopy {
            for case let (_, outcome) in result.loops {
                try store.setOrigin(ofLoop: outcome.id, server: client.server.absoluteString, etag: etag)
            }
        }
        return result
    }

    /// What updating one installed loop found.
    public enum Update: Sendable {
        case unchanged(LoopOrigin)
        /// `reviewsRestarted`: groups being reviewed whose text changed (their reviews start anew).
        case updated(LoopOrigin, from: Int, to: Int, reviewsRestarted: Int = 0)
        case refused(LoopOrigin, reason: any Error)
    }

    /// Asks each installed loop's server for a newer revision (all installed loops, or those of
    /// `ids`) and imports it under the import rules: study history stays; a loop edited here is
    /// not overwritten unless `options.force`. A loop that cannot be updated is reported, and
    /// the others go on. A loop of `ids` not installed from a server is refused.
    public func update(loops ids: [String]?, options: ImportOptions) async throws -> [Update] {
        let origins = try store.origins(ofLoops: ids)
        if let ids, origins.count < Set(ids).count {
            throw WorkflowError(
                .refused,
                "\(Set(ids).count - origins.count) of these loops were not installed from a Loop Library server: nothing to update them from"
            )
        }
        var updates: [Update] = []
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
                updates.append(.refused(origin, reason: error))
            }
        }
        return updates
    }

    /// Downloads a loop's bundle (nil when the server's is the one `ifNoneMatch` names) and
    /// imports it; the bundle's ETag comes back for the next update.
    private func downloadAndImport(
        _ ref: String, from client: LibraryClient, ifNoneMatch: String?, options: ImportOptions
    ) async throws -> (BundleImporter.Result, String?)? {
        let scratch = store.scratchFolder(named: "download")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/loop.loop"
        guard case .downloaded(let etag) = try await client.downloadBundle(ref, to: path, ifNoneMatch: ifNoneMatch)
        else { return nil }
        let results: [BundleImporter.Result]
        do {
            results = try await BundleImporter(store: store).importBundles(at: [path], options: options)
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

    /// A page of the catalog of the server at `address` (or the configured one), and each
    /// loop's link there (its short id → the page that studies and installs it).
    public static func browse(_ query: CatalogQuery, server address: String?) async throws
        -> (page: CatalogPage, link: @Sendable (String) -> String)
    {
        let client = try server(address)
        return (try await client.catalog(query), { client.previewLink(shortID: $0) })
    }

    /// Publishes a loop to the server at `address` (or the configured one).
    public func publish(loop id: String, server address: String?, asCopy: Bool = false) async throws -> Published {
        try await publish(loop: id, to: try Self.server(address), asCopy: asCopy)
    }

    /// Takes a loop off the server at `address` (or the configured one).
    public func unpublish(loop id: String, server address: String?) async throws {
        try await unpublish(loop: id, from: try Self.server(address))
    }

    /// Imports each of `paths`: bundle files, folders of them, and links to loops on a Loop
    /// Library server (`https://HOST/9ddbb9`). One that cannot be imported is refused with its
    /// reason, and the others go on; a path that is no file but reads as a link without its
    /// scheme (`localhost:8080/9ddbb9`) is refused with the link it may mean.
    public func importEach(_ paths: [String], options: ImportOptions) async throws -> [BundleImporter.Outcome] {
        let mistaken = paths.filter {
            !Self.isAddress($0) && !FileManager.default.fileExists(atPath: $0) && Self.suggestedAddress(for: $0) != nil
        }
        let links = paths.filter(Self.isAddress)
        let files = paths.filter { !Self.isAddress($0) && !mistaken.contains($0) }
        var outcomes =
            files.isEmpty ? [] : try await BundleImporter(store: store).importEach(at: files, options: options)
        for path in mistaken {
            let suggested = Self.suggestedAddress(for: path) ?? path
            let reason = WorkflowError(.refused, "no such file, nor a link: did you mean \(suggested)?", path: path)
            outcomes.append(.refused(bundle: path, reason: reason))
        }
        for link in links {
            do {
                outcomes.append(.imported(try await install(link: link, options: options)))
            } catch {
                outcomes.append(.refused(bundle: link, reason: error))
            }
        }
        return outcomes
    }

    /// Publishes a loop to `destination`: a server's address (nil: the configured server), or
    /// a shared folder, into which its bundle is written (then nil comes back).
    public func publish(loop id: String, to destination: String?, asCopy: Bool) async throws -> Published? {
        guard let folder = destination, !Self.isAddress(folder) else {
            return try await publish(loop: id, server: destination, asCopy: asCopy)
        }
        // `--to localhost:8080` means a server, unless such a folder is there.
        if !FileManager.default.fileExists(atPath: folder), let suggested = Self.suggestedAddress(for: folder) {
            throw WorkflowError(
                .refused, "not a folder, nor a Loop Library address: did you mean \(suggested)?", path: folder)
        }
        if asCopy {
            throw WorkflowError(.refused, "--as-copy publishes to a server; `loop export` shares a copy in a file")
        }
        _ = try await LoopPublisher(store: store).publish(loop: id, to: folder)
        return nil
    }

    /// The address meant by `text` when it is a server's address written without its scheme
    /// (`localhost:8080/9ddbb9` → `http://localhost:8080/9ddbb9`), else nil.
    public static func suggestedAddress(for text: String) -> String? { LibraryClient.suggestedAddress(for: text) }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension ImportOutcome {
    /// The id of the loop this outcome concerns.
    public var id: String {
        switch self {
        case .added(let id), .updated(let id, _, _, _), .unchanged(let id, _), .older(let id, _, _): id
        }
    }
}
