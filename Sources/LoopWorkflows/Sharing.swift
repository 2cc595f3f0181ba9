import Foundation
import LoopCutting
import LoopFFmpeg
import LoopFoundation
import LoopModel
import LoopPictures
import LoopShare
import LoopStore
import LoopText

/// How to treat a shared loop that already exists here.
public struct ImportOptions: Sendable {
    /// Import as a new loop with a new id, whoever signed it.
    public var asCopy = false
    /// Update even a loop edited here since it was imported.
    public var force = false
    public var dryRun = false
    public init(asCopy: Bool = false, force: Bool = false, dryRun: Bool = false) {
        self.asCopy = asCopy
        self.force = force
        self.dryRun = dryRun
    }
}

/// The rules of sharing: who may update a loop, which revision wins, and what becomes of
/// local edits. The library runs them inside its write transaction (and first, reading only,
/// to know which audio to store), so they judge what is there when the import is written.
public struct ImportRules: Sendable {
    public var options: ImportOptions
    /// This library's own identity (base64), the owner of loops made here.
    public var localKey: String?
    /// The signer's fingerprint, for messages.
    public var signerFingerprint: String

    public init(options: ImportOptions, localKey: String?, signerFingerprint: String) {
        self.options = options
        self.localKey = localKey
        self.signerFingerprint = signerFingerprint
    }

    /// What becomes of `shared`, given what the library holds of its id: a loop already here is
    /// updated in place only when the same key signed it and its revision is higher, and not
    /// over edits made here (unless forced).
    public func decide(_ shared: SharedLoop, existing: ExistingLoop?) throws -> ImportOutcome {
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

/// Imports bundles into a library: each is verified in full (``BundleReader``) before anything
/// changes, and each bundle goes in whole or not at all.
public struct BundleImporter: Sendable {
    let store: LibraryStore

    package init(store: LibraryStore) {
        self.store = store
    }

    /// What importing one bundle did, loop by loop.
    public struct Result: Sendable {
        public var bundle: String
        /// Who signed it: the name the bundle gives with the key's fingerprint, or the fingerprint.
        public var signer: String
        public var loops: [(title: String, outcome: ImportOutcome)]
    }

    /// What became of one bundle of several: imported, or refused with the reason.
    public enum Outcome: Sendable {
        case imported(Result)
        case refused(bundle: String, reason: any Error)
    }

    /// Imports bundle files, and every `.loop` file of the folders given, newest revision first.
    /// Every bundle is verified before any is imported, and the first refusal is thrown:
    /// ``importEach(at:options:)`` goes on past refusals instead.
    public func importBundles(at paths: [String], options: ImportOptions) async throws -> [Result] {
        try await run(paths, options, stoppingAtFirstRefusal: true).map { outcome in
            switch outcome {
            case .imported(let result): return result
            case .refused(_, let reason): throw reason
            }
        }
    }

    /// Imports every bundle it can of the files and folders given (each folder's `.loop` files),
    /// newest revision first, and refuses the others, each with its reason; each bundle goes in
    /// whole or not at all. Throws only when a path names nothing to import (a missing file, a
    /// folder with no bundles).
    public func importEach(at paths: [String], options: ImportOptions) async throws -> [Outcome] {
        try await run(paths, options, stoppingAtFirstRefusal: false)
    }

    private func run(_ paths: [String], _ options: ImportOptions, stoppingAtFirstRefusal: Bool) async throws
        -> [Outcome]
    {
        let importer = self
        return try await BlockingWork.run("loop import") {
            try importer.importEach(at: paths, options: options, stoppingAtFirstRefusal: stoppingAtFirstRefusal)
        }
    }

    private func importEach(at paths: [String], options: ImportOptions, stoppingAtFirstRefusal: Bool) throws
        -> [Outcome]
    {
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
            var outcomes: [Int: Outcome] = [:]
            var verified: [(index: Int, file: String, bundle: VerifiedBundle)] = []
            for (index, file) in files.enumerated() {
                do {
                    verified.append(
                        (index, file, try BundleReader.forLibrary.read(file, extractingTo: scratch + "/\(index)")))
                } catch {
                    if stoppingAtFirstRefusal { throw error }
                    outcomes[index] = .refused(bundle: file, reason: error)
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
                let shared = bundle.manifest.loops.map { Self.sharedLoop($0, signerKey: bundle.manifest.authorKey) }
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
                        Result(
                            bundle: file, signer: bundle.signer,
                            loops: zip(shared.map(\.title), results).map { ($0, $1) }))
                } catch {
                    if stoppingAtFirstRefusal { throw error }
                    outcomes[index] = .refused(bundle: file, reason: error)
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
}

/// Publishing: the newest revision of a loop into a shared folder (a synced folder, a USB stick).
public struct LoopPublisher: Sendable {
    let store: LibraryStore
    public let identity: AuthorIdentity

    package init(store: LibraryStore, identity: AuthorIdentity) {
        self.store = store
        self.identity = identity
    }

    /// A publisher signing with the library's own identity (created on first use).
    package init(store: LibraryStore) throws {
        self.init(store: store, identity: try LibraryIdentity.loadOrCreate(store))
    }

    /// Writes the loop's bundle into `folder` as `<title>-<id>.loop`, replacing the previous
    /// revision atomically. Only the loop's author may publish it.
    public func publish(loop id: String, to folder: String) async throws -> String {
        let publisher = self
        return try await BlockingWork.run("loop publish") { try publisher.publishNow(loop: id, to: folder) }
    }

    private func publishNow(loop id: String, to folder: String) throws -> String {
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
        try BundleWriter(identity: identity, authorName: LoopLibrarySharing.authorName(of: store)).write(
            [detail], to: path)
        // A renamed loop's earlier file goes once the new one is in place: one file per loop.
        let suffix = "-" + detail.summary.id.prefix(8) + ".loop"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(suffix) {
            let earlier = folder + "/" + name
            guard earlier != path, BundleReader.loopIds(inBundleAt: earlier) == [detail.summary.id] else { continue }
            try? FileManager.default.removeItem(atPath: earlier)
        }
        return path
    }
}

/// A library's author identity: its Ed25519 key pair, kept owner-only in the library folder.
public enum LibraryIdentity {
    /// The library's identity, if it has one yet.
    package static func load(_ store: LibraryStore) throws -> AuthorIdentity? {
        try AuthorIdentity.load(from: store.layout.identityKey)
    }

    /// The library's identity, created on first use.
    package static func loadOrCreate(_ store: LibraryStore) throws -> AuthorIdentity {
        try AuthorIdentity.loadOrCreate(at: store.layout.identityKey)
    }

    /// Restores an identity from its backup (`source` names it in errors), replacing the library's.
    package static func restore(_ backup: Data, into store: LibraryStore, source: String) throws -> AuthorIdentity {
        try AuthorIdentity.restore(backup, into: store.layout.identityKey, source: source)
    }

    /// The fingerprint of the library's key (created on first use): what others see as the
    /// signer of its bundles.
    public static func fingerprint(of library: Library) throws -> String { try loadOrCreate(library.store).fingerprint }

    /// Writes a backup of the library's key (created on first use) to `path`, owner-only,
    /// durably.
    public static func backUp(_ library: Library, to path: String) throws {
        try DurableFile.write(Data(try loadOrCreate(library.store).exported.utf8), to: path, permissions: 0o600)
    }
}

extension BundleReader {
    /// A reader for what a library keeps: each picture is decoded as well as checked.
    static var forLibrary: BundleReader {
        BundleReader(checkPicture: { path throws(PictureError) in try PictureDecoder.check(path) })
    }
}

/// Inspecting: what a bundle holds, verified as an import would verify it, nothing kept.
public enum BundleInspection {
    /// The bundle at `path`, verified in full (signature, every file, every picture decoded);
    /// what it extracted to check is removed (by the next inspection, if this one is killed).
    public static func inspect(_ path: String) async throws -> VerifiedBundle {
        try await BlockingWork.run("loop inspect") {
            let scratch = try ScratchFolder(in: NSTemporaryDirectory(), prefix: "loop-inspect-")
            return try BundleReader.forLibrary.read(path, extractingTo: scratch.path + "/bundle")
        }
    }
}

/// Exporting: loops into one signed bundle, with the library's identity.
public struct BundleExporter: Sendable {
    let store: LibraryStore

    package init(store: LibraryStore) {
        self.store = store
    }

    /// Writes the loops with these ids into a bundle at `path`, signed with the library's
    /// identity (created on first use). `progress` receives the share done.
    @discardableResult
    public func export(loops ids: [String], to path: String, progress: (@Sendable (Double) -> Void)? = nil) async throws
        -> BundleManifest
    {
        let store = self.store
        return try await BlockingWork.run("loop export") {
            let details = try ids.map { try store.loop(id: $0) }
            let identity = try LibraryIdentity.loadOrCreate(store)
            return try BundleWriter(identity: identity, authorName: LoopLibrarySharing.authorName(of: store)).write(
                details, to: path, progress: progress)
        }
    }
}
