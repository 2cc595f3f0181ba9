import Foundation
import LoopFoundation
import LoopLibraryAPI
import LoopPictures
import LoopShare

/// The ways a publish or unpublish request can be refused before the catalog judges it.
public enum PublishFailure: String, LoopErrorKind {
    /// Not signed, signed wrong, replayed, or its clock too far off.
    case unauthorized
    /// Larger than the server takes.
    case tooLarge
    /// Without the length of its body.
    case lengthRequired
    /// Too many changes from this key or address of late.
    case rateLimited
    /// Past the key's quota (loops listed, bytes a day) or the address's bytes a day.
    case quota
    /// As many uploads as the server receives at once are under way: try again shortly.
    case busy
    /// Not one loop, or signed by another key than the request.
    case badRequest
    /// The bundle failed a check `loop import` makes.
    case badBundle

    /// Where these errors come from: publishing.
    public static let domain = ErrorDomain.publish
}

/// Why a publish or unpublish was refused before the catalog judged it: the request itself.
public typealias PublishError = LoopError<PublishFailure>

/// An author's signed request, as its headers carry it (read by ``SignedRequest/Received``,
/// which checks each header's form and range before any use).
public struct RequestSignature: Sendable {
    /// The headers as read and checked.
    public var received: SignedRequest.Received
    /// The author's Ed25519 public key.
    public var key: Data { received.key }
    /// The key in base64, as the catalog stores it.
    public var keyBase64: String
    /// The body's SHA-256 as signed: what the body received must hash to.
    public var bodySHA256: String { received.bodySHA256 }
    /// The loop a publish carries, and its revision.
    public var loopID: String? { received.loopID }
    /// See ``loopID``.
    public var revision: Int? { received.revision }
    /// The author's display name, when given.
    public var authorName: String? { received.authorName }
    /// The request's nonce, used once.
    public var nonce: String { received.nonce }
    /// The request's time, in seconds since 1970.
    public var timestamp: Int { received.timestamp }

    /// Reads the headers (by name), refusing any that is missing or malformed.
    public init(header: (String) -> String?) throws(PublishError) {
        do {
            received = try SignedRequest.Received(header: header)
        } catch {
            throw PublishError(error.isUnsigned ? .unauthorized : .badRequest, error.message)
        }
        keyBase64 = received.key.base64EncodedString()
    }

    /// Checks the signature over the request as this server received it (addressed to
    /// `authority`, with a body of `bodyLength` bytes), and that its time is near `now`.
    public func verify(method: String, authority: String, path: String, bodyLength: Int, now: Date) throws(PublishError)
    {
        let content = received.content(method: method, authority: authority, path: path, bodyLength: bodyLength)
        guard AuthorIdentity.verify(received.signature, of: content.canonicalText, publicKey: received.key) else {
            throw PublishError(
                .unauthorized,
                "the request's signature does not match it: signed by another key, for another Loop Library than \(authority), or changed on the way"
            )
        }
        let skew = received.skew(from: now)
        guard skew <= Int(SignedRequest.allowedSkew) else {
            throw PublishError(
                .unauthorized,
                "the request's time is \(skew) s away from the server's clock (at most \(Int(SignedRequest.allowedSkew)) s): set the clock right"
            )
        }
    }
}

/// Turns an uploaded bundle into a catalog entry: every check `loop import` makes (the same
/// ``BundleReader``), then the takes and the bundle stored as blobs. Nothing is visible until
/// the catalog's transaction, which comes last.
struct BundleIntake: Sendable {
    let blobs: BlobStore

    /// Verifies `file` (the upload, whose SHA-256 is `sha256`, in `scratch`) as signed by `key`
    /// and holding the revision of the loop the request named, stores its blobs, and returns the
    /// entry to publish.
    func take(
        _ file: String, sha256: String, in scratch: String, signedBy key: Data, expected: (id: String, revision: Int)
    ) throws -> CatalogEntry {
        // The upload goes to disk while it is checked, so that storing it waits on no write
        // (a failure shows again as it is stored).
        let written = DispatchGroup()
        DispatchQueue.global(qos: .utility).async(group: written) { try? DurableFile.syncFile(file) }
        defer { written.wait() }
        let bundle: VerifiedBundle
        do {
            bundle = try BundleReader().read(file, extractingTo: scratch + "/audio")
        } catch {
            // The message without the temporary path: the author knows which bundle they sent.
            throw PublishError(.badBundle, "the bundle was refused: \(error.message)")
        }
        guard bundle.signerKey == key else {
            throw PublishError(
                .badRequest, "the bundle is signed by another key than the request (\(bundle.signerFingerprint))")
        }
        guard bundle.manifest.loops.count == 1, let loop = bundle.manifest.loops.first else {
            throw PublishError(
                .badRequest, "a published bundle holds one loop; this one holds \(bundle.manifest.loops.count)")
        }
        guard loop.id == expected.id, loop.revision == expected.revision else {
            throw PublishError(
                .badRequest,
                "the bundle holds revision \(loop.revision) of loop \(loop.id), not the revision \(expected.revision) of \(expected.id) the request names"
            )
        }
        let entry = try Self.entry(for: loop, in: bundle, bundleSHA256: sha256, bundleBytes: Self.size(of: file))
        for take in bundle.manifest.audio {
            guard let extracted = bundle.audioFiles[take.sha256] else { continue }
            try blobs.store(extracted, sha256: take.sha256, kind: .take)
        }
        for (hash, picture) in bundle.pictureFiles {
            guard let kind = BlobStore.Kind(rawValue: picture.info.format.fileExtension) else { continue }
            try blobs.store(picture.path, sha256: hash, kind: kind)
        }
        written.wait()
        try blobs.store(file, sha256: sha256, kind: .bundle)
        return entry
    }

    static func entry(for loop: BundleManifest.Loop, in bundle: VerifiedBundle, bundleSHA256: String, bundleBytes: Int)
        throws -> CatalogEntry
    {
        let audio = Dictionary(bundle.manifest.audio.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        var seconds = 0.0
        var used: [String: BundleManifest.Audio] = [:]
        let groups = loop.groups.map { group in
            group.phrases.map { phrase -> CatalogLoopDetail.Phrase in
                let clip = phrase.clip.flatMap { clip -> CatalogLoopDetail.Clip? in
                    guard let take = audio[clip.audio] else { return nil }
                    used[take.sha256] = take
                    let rate = Double(take.sampleRate)
                    seconds += Double(clip.end - clip.start) / rate
                    return CatalogLoopDetail.Clip(
                        take: take.sha256, start: Double(clip.start) / rate, end: Double(clip.end) / rate)
                }
                return CatalogLoopDetail.Phrase(
                    text: phrase.text, translation: phrase.translation, clip: clip,
                    recordedText: clip == nil ? nil : phrase.recordedText)
            }
        }
        let takes = used.values.sorted { $0.sha256 < $1.sha256 }.map {
            CatalogLoopDetail.Take(
                sha256: $0.sha256, bytes: $0.bytes, sampleRate: $0.sampleRate, channels: $0.channels, frames: $0.frames)
        }
        struct Content: Encodable {
            var groups: [[CatalogLoopDetail.Phrase]]
            var takes: [CatalogLoopDetail.Take]
            var pictures: StoredPictures?
        }
        // The pages' pictures: blob names (`<sha256>.<ext>`) and sizes, from the manifest.
        let listed = Dictionary(
            (bundle.manifest.pictures ?? []).map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        func picture(_ file: String?) -> StoredPictures.Picture? {
            file.flatMap { listed[$0] }.map {
                .init(blob: BundleLayout.pictureBlob($0.file), width: $0.width, height: $0.height)
            }
        }
        let pictures = StoredPictures(
            loop: picture(loop.picture), groups: loop.groups.map { picture($0.picture) },
            phrases: loop.groups.flatMap { $0.phrases.map { picture($0.picture) } })
        let searchText = CatalogText.searchField(
            [loop.title] + loop.tags + groups.flatMap { $0.flatMap { [$0.text, $0.translation ?? ""] } })
        return CatalogEntry(
            authored: CatalogLoop.Authored(
                id: loop.id, revision: loop.revision, authorFingerprint: bundle.signerFingerprint, title: loop.title,
                language: loop.language, translationLanguage: loop.translationLanguage, tags: loop.tags,
                groupCount: loop.groups.count, phraseCount: groups.reduce(0) { $0 + $1.count }, seconds: seconds),
            authorKey: bundle.signerKey.base64EncodedString(),
            content: try CatalogText.encoder.encode(
                Content(groups: groups, takes: takes, pictures: listed.isEmpty ? nil : pictures)),
            bundleSHA256: bundleSHA256, bundleBytes: bundleBytes,
            searchTitle: CatalogText.searchField([loop.title]), searchText: searchText)
    }

    /// The pictures a loop's preview page shows, as the catalog keeps them.
    struct StoredPictures: Codable {
        struct Picture: Codable {
            /// `<sha256>.<png|jpg|webp|gif>`: served at `/blobs/<blob>`.
            var blob: String
            var width: Int
            var height: Int
        }

        var loop: Picture?
        var groups: [Picture?]
        /// By phrase, in order across the loop.
        var phrases: [Picture?]
    }

    private static func size(of file: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0
    }
}

extension ErrorDomain {
    /// A publish refused by a Loop Library.
    public static let publish = ErrorDomain(rawValue: "publish")
}
