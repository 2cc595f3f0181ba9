import Foundation
import LoopStore

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

    /// Imports bundle files, and every `.loop` file of the folders given: newest revision first.
    public func importBundles(at paths: [String], options: ImportOptions) throws -> [Result] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw ShareError(.corrupt, "no such file", path: path) }
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.filter { $0.hasSuffix(".loop") }.sorted().map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        let scratch = library.root + "/audio/.incoming/bundles-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var verified: [(String, VerifiedBundle)] = []
        for (index, file) in files.enumerated() {
            verified.append((file, try BundleReader().read(file, extractingTo: scratch + "/\(index)")))
        }
        // Newest revision first, so an older copy of the same loop finds nothing to do.
        verified.sort { ($0.1.manifest.loops.map(\.revision).max() ?? 0) > ($1.1.manifest.loops.map(\.revision).max() ?? 0) }
        let localKey = try AuthorIdentity.load(library: library.root)?.publicKey.base64EncodedString()
        return try verified.map { file, bundle in
            let shared = bundle.manifest.loops.map(Self.sharedLoop)
            let takes = bundle.manifest.audio.compactMap { audio in
                bundle.audioFiles[audio.sha256].map { SharedTake(sha256: audio.sha256, path: $0, byteCount: audio.bytes, sampleRate: audio.sampleRate, channelCount: audio.channels, frameCount: audio.frames) }
            }
            let outcomes = try library.importShared(shared, takes: takes, signerKey: bundle.manifest.authorKey, signerFingerprint: bundle.signerFingerprint,
                                                    localKey: localKey, options: options)
            return Result(bundle: file, signer: bundle.signerFingerprint, loops: zip(shared.map(\.title), outcomes).map { ($0, $1) })
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
            throw ShareError(.identity, "only its author can publish this loop (it is signed by \(AuthorIdentity.fingerprint(of: Data(base64Encoded: owner) ?? Data()))); `loop export` shares a copy")
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
        return path
    }
}
