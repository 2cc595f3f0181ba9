import Foundation
import LoopAudio
import LoopStore
import ZIPFoundation

/// Imports bundles into a library: each is verified in full (``BundleReader``) before anything
/// changes, and each bundle goes in whole or not at all.
public struct BundleImporter: Sendable {
    public let library: LoopLibrary

    public init(library: LoopLibrary) {
        self.library = library
    }

    /// What importing one bundle did, loop by loop.
    public struct Result: Sendable {
        public var bundle: String
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
    public func importBundles(at paths: [String], options: ImportOptions) throws -> [Result] {
        try importEach(at: paths, options: options, stoppingAtFirstRefusal: true).map { outcome in
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
    public func importEach(at paths: [String], options: ImportOptions) throws -> [Outcome] {
        try importEach(at: paths, options: options, stoppingAtFirstRefusal: false)
    }

    private func importEach(at paths: [String], options: ImportOptions, stoppingAtFirstRefusal: Bool) throws -> [Outcome] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw ShareError(.corrupt, "no such file", path: path) }
            if isFolder.boolValue {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".loop") }.sorted()
                guard !names.isEmpty else { throw ShareError(.corrupt, "no bundles (.loop files) in this folder", path: path) }
                files += names.map { (path.hasSuffix("/") ? path : path + "/") + $0 }
            } else {
                files.append(path)
            }
        }
        // Held throughout, so that `gc` never takes the extracted audio while it is in use.
        return try library.whileInFlight {
            let scratch = library.scratchFolder(named: "bundles")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            var outcomes: [Int: Outcome] = [:]
            var verified: [(index: Int, file: String, bundle: VerifiedBundle)] = []
            for (index, file) in files.enumerated() {
                do {
                    verified.append((index, file, try BundleReader().read(file, extractingTo: scratch + "/\(index)")))
                } catch {
                    if stoppingAtFirstRefusal { throw error }
                    outcomes[index] = .refused(bundle: file, reason: error)
                }
            }
            // Newest revision first, so an older copy of the same loop finds nothing to do.
            verified.sort { ($0.bundle.manifest.loops.map(\.revision).max() ?? 0) > ($1.bundle.manifest.loops.map(\.revision).max() ?? 0) }
            let localKey = try AuthorIdentity.load(library: library.root)?.publicKey.base64EncodedString()
            TestStop.reached("import.verified")
            for (index, file, bundle) in verified {
                let shared = bundle.manifest.loops.map(Self.sharedLoop)
                let takes = bundle.manifest.audio.compactMap { audio in
                    bundle.audioFiles[audio.sha256].map { SharedTake(sha256: audio.sha256, path: $0, byteCount: audio.bytes, sampleRate: audio.sampleRate, channelCount: audio.channels, frameCount: audio.frames) }
                }
                do {
                    let results = try library.importShared(shared, takes: takes, signerKey: bundle.manifest.authorKey, signerFingerprint: bundle.signerFingerprint,
                                                           localKey: localKey, options: options)
                    outcomes[index] = .imported(Result(bundle: file, signer: bundle.signerFingerprint, loops: zip(shared.map(\.title), results).map { ($0, $1) }))
                } catch {
                    if stoppingAtFirstRefusal { throw error }
                    outcomes[index] = .refused(bundle: file, reason: error)
                }
            }
            // In the order imported: newest first, then the refusals in the order given.
            let imported = verified.compactMap { outcomes[$0.index] }
            let refusedFirst = files.indices.filter { index in !verified.contains { $0.index == index } }.compactMap { outcomes[$0] }
            return imported + refusedFirst
        }
    }

    static func sharedLoop(_ loop: BundleManifest.Loop) -> SharedLoop {
        let hashes = { (file: String) in String(file.dropFirst("audio/".count).dropLast(".flac".count)) }
        return SharedLoop(
            id: loop.id, revision: loop.revision, title: loop.title, language: loop.language, translationLanguage: loop.translationLanguage,
            tags: loop.tags, sourceText: loop.sourceText,
            groups: loop.groups.map { group in
                group.phrases.map { phrase in
                    SharedLoop.Phrase(text: phrase.text, translation: phrase.translation,
                                      clip: phrase.clip.map { (hashes($0.audio), $0.start..<$0.end) }, recordedText: phrase.recordedText)
                }
            })
    }
}

/// Publishing: the newest revision of a loop into a shared folder (a synced folder, a USB stick).
public struct LoopPublisher: Sendable {
    public let library: LoopLibrary
    public let identity: AuthorIdentity

    public init(library: LoopLibrary, identity: AuthorIdentity) {
        self.library = library
        self.identity = identity
    }

    /// Writes the loop's bundle into `folder` as `<title>-<id>.loop`, replacing the previous
    /// revision atomically. Only the loop's author may publish it.
    public func publish(loop id: String, to folder: String) throws -> String {
        if let owner = try library.ownerKey(ofLoop: id), owner != identity.publicKey.base64EncodedString() {
            throw ShareError(.identity, "only its author can publish this loop (it is signed by \(AuthorIdentity.fingerprint(of: Data(base64Encoded: owner) ?? Data())))")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ShareError(.writeFailed, "no such folder", path: folder)
        }
        let detail = try library.loop(id: id)
        let slug = detail.summary.title.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
            .map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
        let path = folder + "/" + slug.prefix(40) + "-" + detail.summary.id.prefix(8) + ".loop"
        try BundleWriter(identity: identity).write([detail], to: path)
        // A renamed loop's earlier file goes once the new one is in place: one file per loop.
        let suffix = "-" + detail.summary.id.prefix(8) + ".loop"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(suffix) {
            let earlier = folder + "/" + name
            guard earlier != path, Self.bundle(at: earlier, holdsOnly: detail.summary.id) else { continue }
            try? FileManager.default.removeItem(atPath: earlier)
        }
        return path
    }

    /// Whether the bundle at `path` is one this loop's publishing wrote: it holds this loop alone.
    static func bundle(at path: String, holdsOnly id: String) -> Bool {
        guard RegularFile.problem(at: path) == nil, let archive = try? Archive(url: URL(fileURLWithPath: path), accessMode: .read, pathEncoding: nil),
              let entry = archive["manifest.json"], entry.uncompressedSize < 16 << 20 else { return false }
        var data = Data()
        guard (try? archive.extract(entry, skipCRC32: false) { data.append($0) }) != nil,
              let manifest = try? BundleManifest.decode(data) else { return false }
        return manifest.loops.map(\.id) == [id]
    }
}
