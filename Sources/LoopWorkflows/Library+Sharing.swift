import Foundation
import LoopCutting
import LoopExchange
import LoopFFmpeg
import LoopFoundation
import LoopLibraryAPI
import LoopModel
import LoopPictures
import LoopShare
import LoopStore
import LoopText

// Sharing as files: loops into a signed bundle and bundles imported (who may update a loop,
// which revision wins, what becomes of local edits), the library's identity, a bundle
// inspected, and one loop as subtitles, labels or an Anki deck.

/// Bundles to import: files, folders of them, and links to loops on a Loop Library server.
public struct ImportRequest: Sendable {
    /// Bundle files, folders of them, or links to loops on a server.
    public var paths: [String]
    /// Import as new loops, with new ids, whoever signed them.
    public var asCopy = false
    /// Update loops even when they were edited here since their import.
    public var force = false
    /// Show what would change, and change nothing.
    public var dryRun = false

    /// An import of `paths`.
    public init(paths: [String], asCopy: Bool = false, force: Bool = false, dryRun: Bool = false) {
        (self.paths, self.asCopy, self.force, self.dryRun) = (paths, asCopy, force, dryRun)
    }
}

/// What became of one bundle of several: imported, or refused with the reason.
public enum BundleImport: Sendable {
    case imported(ImportedBundle)
    case refused(bundle: String, reason: FailureSummary)
}

/// What importing one bundle did, loop by loop.
public struct ImportedBundle: Sendable {
    /// The bundle, as named.
    public var bundle: String
    /// Who signed it: the name the bundle gives with the key's fingerprint, or the fingerprint.
    public var signer: String
    /// Each loop it holds, by title, and what importing it did.
    public var loops: [(title: String, outcome: ImportOutcome)]
}

/// What to write of the library's loops, and where.
public struct ExportRequest: Sendable {
    /// What to write.
    public enum Format: String, Sendable, CaseIterable {
        /// A signed bundle of the loops (`loop import` reads it).
        case bundle
        /// SubRip subtitles over the take (or over the clips joined).
        case srt
        /// WebVTT subtitles, likewise.
        case vtt
        /// An Audacity label track, likewise.
        case labels
        /// An Anki package (.apkg): a note a phrase.
        case anki
    }

    /// The loops (references).
    public var loops: [String]
    /// What to write: a bundle, subtitles, labels, an Anki package or a book.
    public var format: Format = .bundle
    /// The file to write.
    public var output: String
    /// With subtitles or labels: the clips joined into one FLAC file beside, which the times follow.
    public var clips = false
    /// With subtitles or labels: each phrase's translation as a second line.
    public var translations = false

    /// An export of `loops` to `output`, as a bundle.
    public init(loops: [String], output: String) { (self.loops, self.output) = (loops, output) }

    /// Refuses options that do not go with the format.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(
            format != .bundle && loops.count != 1,
            RequestProblem("{format} \(format.rawValue) writes one loop, not \(loops.count)"))
        try RequestProblem.check(
            (format == .bundle || format == .anki) && (clips || translations),
            RequestProblem("{clips} and {translations} go with {format} srt, vtt or labels"))
    }
}

/// What a bundle holds, verified as an import verifies it.
public struct BundleSummary: Sendable {
    /// A loop the bundle holds: its id, revision, title, language and size.
    public struct Loop: Sendable {
        public var id: String, revision: Int, title: String, language: String?
        public var groups: Int, phrases: Int
    }
    /// An audio file the bundle holds: its name, size and hash.
    public struct Audio: Sendable {
        public var file: String, bytes: Int, sha256: String
    }

    /// The bundle format's version.
    public var version: Int
    /// When it was made, as the bundle says (ISO 8601).
    public var created: String
    /// Who signed it: its name with the key's fingerprint, or the fingerprint.
    public var signer: String
    /// The fingerprint of the key that signed it.
    public var signerFingerprint: String
    /// The author's name the bundle gives (format version 4).
    public var signerName: String?
    /// The loops it holds.
    public var loops: [Loop]
    /// The audio files it holds.
    public var audio: [Audio]
}

/// The library's author identity: shown, backed up, restored, or given a name.
public struct IdentityRequest: Sendable {
    /// Write the private key to this file (owner-only), for a backup.
    public var export: String?
    /// Restore the private key from this backup file.
    public var restore: String?
    /// The author name a Loop Library shows for this library's loops.
    public var name: String?

    /// A request to export the identity to `export`, restore one from `restore`, or set the author `name` (none: show it).
    public init(export: String? = nil, restore: String? = nil, name: String? = nil) {
        (self.export, self.restore, self.name) = (export, restore, name)
    }

    /// Refuses an export and a restore at once.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(
            [export, restore, name].compactMap { $0 }.count > 1,
            RequestProblem("give one of {export}, {import} and {name}"))
    }
}

/// What an identity request did.
public enum IdentityOutcome: Sendable {
    /// The key's fingerprint, and the author name set, if any.
    case shown(fingerprint: String, name: String?)
    case exported(to: String)
    case restored(fingerprint: String)
    case named(String)
}

extension Library {
    // MARK: Import

    /// Imports every bundle it can of `request`'s paths (each folder's `.loop` files, each link
    /// downloaded), newest revision first, and refuses the others, each with its reason; each
    /// bundle goes in whole or not at all. Throws only when a path names nothing to import.
    public func importBundles(_ request: ImportRequest) async throws -> [BundleImport] {
        let paths = request.paths
        let rules = ImportOptions(asCopy: request.asCopy, force: request.force, dryRun: request.dryRun)
        let mistaken = paths.filter {
            !Self.isAddress($0) && !FileManager.default.fileExists(atPath: $0) && Self.suggestedAddress(for: $0) != nil
        }
        let links = paths.filter(Self.isAddress)
        let files = paths.filter { !Self.isAddress($0) && !mistaken.contains($0) }
        var outcomes = files.isEmpty ? [] : try await importEach(at: files, options: rules)
        for path in mistaken {
            let suggested = Self.suggestedAddress(for: path) ?? path
            let reason = WorkflowError(.refused, "no such file, nor a link: did you mean \(suggested)?", path: path)
            outcomes.append(.refused(bundle: path, reason: FailureSummary(reason)))
        }
        for link in links {
            do {
                outcomes.append(.imported(try await install(link: link, options: rules)))
            } catch {
                outcomes.append(.refused(bundle: link, reason: FailureSummary(error)))
            }
        }
        return outcomes
    }

    /// Imports bundle files (and the `.loop` files of folders), newest revision first; the first
    /// refusal is thrown.
    func importBundles(at paths: [String], options: ImportOptions) async throws -> [ImportedBundle] {
        try await work("loop import") { store in
            try Self.importEach(at: paths, options: options, into: store, stoppingAtFirstRefusal: true)
        }.map { outcome in
            switch outcome {
            case .imported(let result): return result
            case .refused(_, let reason): throw reason.error
            }
        }
    }

    private func importEach(at paths: [String], options: ImportOptions) async throws -> [BundleImport] {
        try await work("loop import") { store in
            try Self.importEach(at: paths, options: options, into: store, stoppingAtFirstRefusal: false)
        }.map { outcome in
            switch outcome {
            case .imported(let result): .imported(result)
            case .refused(let bundle, let reason): .refused(bundle: bundle, reason: FailureSummary(reason.error))
            }
        }
    }

    /// What became of a bundle, its refusal's error kept (to throw it, or to say it).
    private enum Imported: Sendable {
        case imported(ImportedBundle)
        case refused(bundle: String, reason: Refusal)
    }

    /// An import's error, carried to its caller.
    struct Refusal: Sendable {
        let error: any Error
    }

    private static func importEach(
        at paths: [String], options: ImportOptions, into store: LibraryStore, stoppingAtFirstRefusal: Bool
    ) throws -> [Imported] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ShareError(.corrupt, "no such file", path: path)
            }
            if isFolder.boolValue {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter {
                    $0.hasSuffix(".loop")
                }.sorted()
                guard !names.isEmpty else {
                    throw ShareError(.corrupt, "no bundles (.loop files) in this folder", path: path)
                }
                files += names.map { (path.hasSuffix("/") ? path : path + "/") + $0 }
            } else {
                files.append(path)
            }
        }
        // Held throughout, so that `gc` never takes the extracted audio while it is in use.
        return try store.whileInFlight {
            let scratch = store.scratchFolder(named: "bundles")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            var outcomes: [Int: Imported] = [:]
            var verified: [(index: Int, file: String, bundle: VerifiedBundle)] = []
            for (index, file) in files.enumerated() {
                do {
                    verified.append(
                        (index, file, try BundleReader.forLibrary.read(file, extractingTo: scratch + "/\(index)")))
                } catch {
                    if stoppingAtFirstRefusal { throw error }
                    outcomes[index] = .refused(bundle: file, reason: Refusal(error: error))
                }
            }
            // Newest revision first, so an older copy of the same loop finds nothing to do.
            verified.sort {
                ($0.bundle.manifest.loops.map(\.revision).max() ?? 0)
                    > ($1.bundle.manifest.loops.map(\.revision).max() ?? 0)
            }
            let localKey = try AuthorIdentity.load(from: store.layout.identityKey)?.publicKey.base64EncodedString()
            TestStop.reached("import.verified")
            for (index, file, bundle) in verified {
                let shared = bundle.manifest.loops.map { sharedLoop($0, signerKey: bundle.manifest.authorKey) }
                let takes = bundle.manifest.audio.compactMap { audio in
                    bundle.audioFiles[audio.sha256].map {
                        SharedTake(
                            sha256: audio.sha256, path: $0, byteCount: audio.bytes, sampleRate: audio.sampleRate,
                            channelCount: audio.channels, frameCount: audio.frames)
                    }
                }
                do {
                    let rules = ImportRules(
                        options: options, localKey: localKey, signerFingerprint: bundle.signerFingerprint)
                    let pictures = bundle.pictureFiles.map {
                        SharedPicture(sha256: $0.key, path: $0.value.path, info: $0.value.info)
                    }
                    let results = try store.importShared(
                        shared, takes: takes, pictures: pictures, dryRun: options.dryRun
                    ) { try rules.decide($0, existing: $1) }
                    outcomes[index] = .imported(
                        ImportedBundle(
                            bundle: file, signer: bundle.signer,
                            loops: zip(shared.map(\.title), results).map { ($0, $1) }))
                } catch {
                    if stoppingAtFirstRefusal { throw error }
                    outcomes[index] = .refused(bundle: file, reason: Refusal(error: error))
                }
            }
            // In the order imported: newest first, then the refusals in the order given.
            let imported = verified.compactMap { outcomes[$0.index] }
            let refusedFirst = files.indices.filter { index in !verified.contains { $0.index == index } }.compactMap {
                outcomes[$0]
            }
            return imported + refusedFirst
        }
    }

    static func sharedLoop(_ loop: BundleManifest.Loop, signerKey: String) -> SharedLoop {
        let hashes = BundleLayout.sha256(ofAudioFile:)
        let pictureHash = { (file: String?) in file.map(BundleLayout.sha256(ofPictureFile:)) }
        return SharedLoop(
            id: loop.id, revision: loop.revision, title: loop.title, language: loop.language,
            translationLanguage: loop.translationLanguage,
            tags: loop.tags, sourceText: loop.sourceText,
            groups: loop.groups.map { group in
                group.phrases.map { phrase in
                    SharedLoop.Phrase(
                        text: phrase.text, translation: phrase.translation,
                        clip: phrase.clip.map { (hashes($0.audio), $0.start..<$0.end) },
                        recordedText: phrase.recordedText,
                        picture: pictureHash(phrase.picture))
                }
            },
            signerKey: signerKey, picture: pictureHash(loop.picture),
            groupPictures: loop.groups.map { pictureHash($0.picture) })
    }

    // MARK: Export

    /// Writes the request's loops: a bundle signed with the library's identity (created on first
    /// use), or one loop as subtitles, labels or an Anki deck. `progress` follows a bundle's
    /// writing (0...1).
    public func export(_ request: ExportRequest, progress: (@Sendable (Double) -> Void)? = nil) async throws {
        try request.check()
        let ids = try request.loops.map { try resolve($0) }
        let path = request.output
        switch request.format {
        case .bundle:
            _ = try await exportBundle(loops: ids, to: path, progress: progress)
        case .srt, .vtt, .labels:
            let timed = TimedTextExport.Format(rawValue: request.format.rawValue) ?? .srt
            let export = TimedTextExport(format: timed, joinedClips: request.clips, translations: request.translations)
            _ = try await work("loop export") { try export.write(try $0.loop(id: ids[0]), to: path) }
        case .anki:
            try await work("loop export") { try AnkiPackage().write(try $0.loop(id: ids[0]), to: path) }
        }
    }

    /// Writes the loops with these ids into a bundle at `path`, signed with the library's
    /// identity (created on first use).
    @discardableResult
    func exportBundle(loops ids: [String], to path: String, progress: (@Sendable (Double) -> Void)? = nil)
        async throws -> BundleManifest
    {
        try await work("loop export") { store in
            let details = try ids.map { try store.loop(id: $0) }
            let identity = try Self.identity(of: store)
            return try BundleWriter(identity: identity, authorName: Self.authorName(of: store)).write(
                details, to: path, progress: progress)
        }
    }

    /// Writes the loop's bundle into `folder` as `<title>-<id>.loop`, replacing the previous
    /// revision atomically. Only the loop's author may publish it.
    func publish(loop id: String, toFolder folder: String) async throws -> String {
        try await work("loop publish") { store in
            let identity = try Self.identity(of: store)
            if let owner = try store.ownerKey(ofLoop: id), owner != identity.publicKey.base64EncodedString() {
                throw ShareError(
                    .notTheAuthor,
                    "only its author can publish this loop (it is signed by \(AuthorIdentity.fingerprint(of: Data(base64Encoded: owner) ?? Data())))"
                )
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ShareError(.writeFailed, "no such folder", path: folder)
            }
            let detail = try store.loop(id: id)
            let slug = Slug.make(detail.summary.title, length: 40)
            let path = folder + "/" + (slug.isEmpty ? "" : slug + "-") + detail.summary.id.prefix(8) + ".loop"
            try BundleWriter(identity: identity, authorName: Self.authorName(of: store)).write([detail], to: path)
            // A renamed loop's earlier file goes once the new one is in place: one file per loop.
            let suffix = "-" + detail.summary.id.prefix(8) + ".loop"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            where name.hasSuffix(suffix) {
                let earlier = folder + "/" + name
                guard earlier != path, BundleReader.loopIds(inBundleAt: earlier) == [detail.summary.id] else {
                    continue
                }
                try? FileManager.default.removeItem(atPath: earlier)
            }
            return path
        }
    }

    /// The bundle at `path`, verified in full (signature, every file, every picture decoded);
    /// what it extracted to check is removed (by the next inspection, if this one is killed).
    public static func inspect(bundle path: String) async throws -> BundleSummary {
        let verified = try await BlockingWork.run("loop inspect") {
            let scratch = try ScratchFolder(in: NSTemporaryDirectory(), prefix: "loop-inspect-")
            return try BundleReader.forLibrary.read(path, extractingTo: scratch.path + "/bundle")
        }
        let manifest = verified.manifest
        return BundleSummary(
            version: manifest.version, created: manifest.created, signer: verified.signer,
            signerFingerprint: verified.signerFingerprint, signerName: manifest.authorName,
            loops: manifest.loops.map {
                .init(
                    id: $0.id, revision: $0.revision, title: $0.title, language: $0.language,
                    groups: $0.groups.count, phrases: $0.groups.reduce(0) { $0 + $1.phrases.count })
            },
            audio: manifest.audio.map { .init(file: $0.file, bytes: $0.bytes, sha256: $0.sha256) })
    }

    // MARK: Identity

    /// The library's identity, created on first use.
    static func identity(of store: LibraryStore) throws -> AuthorIdentity {
        try AuthorIdentity.loadOrCreate(at: store.layout.identityKey)
    }

    /// The author name this library shows on a Loop Library, if one was set.
    static func authorName(of store: LibraryStore) -> String? {
        guard let text = try? String(contentsOfFile: store.layout.authorName, encoding: .utf8) else { return nil }
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }

    /// Shows the library's identity (created on first use), backs its key up, restores it from a
    /// backup, or sets the author name a Loop Library shows (bound to the key by the server at
    /// the next publish; another key's name is refused there).
    public func identity(_ request: IdentityRequest) throws -> IdentityOutcome {
        try request.check()
        if let path = request.restore {
            // A key's backup is a few hundred bytes: a file past 64 KiB is not one, and is not
            // read whole; a FIFO, a device or a folder is none, and is not opened.
            if let problem = RegularFile.problem(at: path) { throw WorkflowError(.refused, problem, path: path) }
            guard let file = FileHandle(forReadingAtPath: path), let data = try? file.read(upToCount: 65_536) else {
                throw WorkflowError(.refused, "cannot read the file", path: path)
            }
            try? file.close()
            let restored = try AuthorIdentity.restore(data, into: store.layout.identityKey, source: path)
            return .restored(fingerprint: restored.fingerprint)
        }
        if let name = request.name {
            guard let trimmed = AuthorName.validated(name) else {
                throw WorkflowError(
                    .badName, path: nil, message: "an author name is 1 to 40 letters, digits, spaces, '.', '-' or '_'")
            }
            _ = try Self.identity(of: store)
            try DurableFile.write(Data((trimmed + "\n").utf8), to: store.layout.authorName, permissions: 0o644)
            return .named(trimmed)
        }
        if let path = request.export {
            try DurableFile.write(Data(try Self.identity(of: store).exported.utf8), to: path, permissions: 0o600)
            return .exported(to: path)
        }
        return .shown(fingerprint: try Self.identity(of: store).fingerprint, name: Self.authorName(of: store))
    }
}

/// How to treat a shared loop that already exists here.
struct ImportOptions: Sendable {
    /// Import as a new loop with a new id, whoever signed it.
    var asCopy = false
    /// Update even a loop edited here since it was imported.
    var force = false
    var dryRun = false
}

/// The rules of sharing: who may update a loop, which revision wins, and what becomes of
/// local edits. The library runs them inside its write transaction (and first, reading only,
/// to know which audio to store), so they judge what is there when the import is written.
struct ImportRules: Sendable {
    var options: ImportOptions
    /// This library's own identity (base64), the owner of loops made here.
    var localKey: String?
    /// The signer's fingerprint, for messages.
    var signerFingerprint: String

    /// What becomes of `shared`, given what the library holds of its id: a loop already here is
    /// updated in place only when the same key signed it and its revision is higher, and not
    /// over edits made here (unless forced).
    func decide(_ shared: SharedLoop, existing: ExistingLoop?) throws -> ImportOutcome {
        if options.asCopy { return .added(id: UUID().uuidString.lowercased()) }
        guard let existing else { return .added(id: shared.id) }
        guard (existing.ownerKey ?? localKey) == shared.signerKey else {
            throw LibraryError(
                .notTheAuthor,
                "'\(existing.title)' is already in this library, and this bundle is signed by another key (\(signerFingerprint)): only its author can update it"
            )
        }
        // For a loop imported here, revisions are its author's: compare with the one imported
        // (local edits count their own revisions, which the author never saw).
        let current = existing.ownerKey == nil ? existing.revision : (existing.originRevision ?? existing.revision)
        if shared.revision == current { return .unchanged(id: shared.id, revision: shared.revision) }
        if shared.revision < current { return .older(id: shared.id, have: current, offered: shared.revision) }
        if existing.editedLocally && existing.ownerKey != nil && !options.force {
            throw LibraryError(
                .editedHere,
                "'\(existing.title)' was edited here since it was imported; revision \(shared.revision) would overwrite those edits"
            )
        }
        return .updated(id: shared.id, from: current, to: shared.revision)
    }
}

extension BundleReader {
    /// A reader for what a library keeps: each picture is decoded as well as checked.
    static var forLibrary: BundleReader {
        BundleReader(checkPicture: { path throws(PictureError) in try PictureDecoder.check(path) })
    }
}

extension ImportOutcome {
    /// The id of the loop this outcome concerns.
    public var id: String {
        switch self {
        case .added(let id), .updated(let id, _, _, _), .unchanged(let id, _), .older(let id, _, _): id
        }
    }
}
