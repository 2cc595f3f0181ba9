import Foundation
import LoopFoundation

/// Bundles, takes and pictures as files named by their SHA-256: `blobs/<first two hex digits>/<sha256>.<kind>`.
///
/// A file's name is its content, so a blob is written once and never changed: two servers (or
/// two publishes) storing the same blob write the same bytes under the same name, each through
/// its own temporary file and an atomic rename, so a reader sees the whole file or none. That is
/// what makes the folder safe to share between several servers (NFS or any POSIX file system
/// with atomic rename). A blob no listed loop names is harmless, and is never served unasked.
public struct BlobStore: Sendable {
    /// What a blob holds, which names its file's extension.
    public enum Kind: String, Sendable, CaseIterable {
        /// A signed loop bundle.
        case bundle = "loop"
        /// A take, FLAC.
        case take = "flac"
        /// A picture, by its format (checked by the bundle reader).
        case png, jpg, webp, gif

        /// The `Content-Type` a blob of this kind is served with.
        public var contentType: String {
            switch self {
            case .bundle: "application/vnd.looplearn.loop+zip"
            case .take: "audio/flac"
            case .png: "image/png"
            case .jpg: "image/jpeg"
            case .webp: "image/webp"
            case .gif: "image/gif"
            }
        }
    }

    /// The data folder (`loop serve --data`).
    public let layout: ServerLayout
    private var files: ContentAddressedFolder { layout.blobs }

    /// The blobs of a server's data folder.
    public init(layout: ServerLayout) {
        self.layout = layout
    }

    /// The blob's path, or nil when `sha256` is not 64 lowercase hex digits (a hostile name
    /// never reaches the file system).
    public func path(_ sha256: String, kind: Kind) -> String? {
        files.path(sha256: sha256, fileExtension: kind.rawValue)
    }

    /// Whether the blob is stored.
    public func contains(_ sha256: String, kind: Kind) -> Bool {
        path(sha256, kind: kind).map { FileManager.default.fileExists(atPath: $0) } ?? false
    }

    /// Moves a verified file (whose SHA-256 is `sha256`) into the store, durably. A blob already
    /// stored stays as it is, and the file is removed.
    public func store(_ file: String, sha256: String, kind: Kind) throws {
        // Touched when it is there already: a collection running now sees it as new, and keeps
        // it for its grace period, by when the publish that stores it has committed. The file
        // lies in `incoming`, on the same file system, so a rename puts it in place.
        try files.adopt(file, sha256: sha256, fileExtension: kind.rawValue)
    }

    /// What a collection found and removed.
    public struct Collection: Sendable, Equatable {
        /// Blobs no listed loop refers to, older than the grace period: removed (or, in a dry
        /// run, to be removed).
        public var removed = 0
        /// Their bytes.
        public var removedBytes = 0
        /// Blobs kept: referred to, or younger than the grace period.
        public var kept = 0
    }

    /// Removes the blobs that no listed loop refers to and that were stored (or stored again)
    /// before `storedBefore`. `referenced` is asked after the folder is read, so a blob a
    /// publish stores meanwhile is either young (kept) or referred to (kept); each file is
    /// looked at again just before it goes. Safe while servers run, from any of them.
    public func collect(storedBefore: Date, dryRun: Bool, referenced: () async throws -> Set<String>) async throws
        -> Collection
    {
        let limit = storedBefore.timeIntervalSince1970
        var candidates: [(path: String, sha256: String)] = []
        var collection = Collection()
        for entry in files.entries() {
            guard let sha256 = entry.sha256, Kind(rawValue: entry.fileExtension) != nil else { continue }
            let path = files.root + "/" + entry.relativePath
            guard let modified = Self.modified(path) else { continue }
            if modified < limit { candidates.append((path, sha256)) } else { collection.kept += 1 }
        }
        let keep = try await referenced()
        for candidate in candidates {
            guard !keep.contains(candidate.sha256), let modified = Self.modified(candidate.path), modified < limit
            else {
                collection.kept += 1
                continue
            }
            let bytes = Self.size(candidate.path)
            if !dryRun {
                guard unlink(candidate.path) == 0 else { continue }
            }
            collection.removed += 1
            collection.removedBytes += bytes
        }
        return collection
    }

    private static func modified(_ path: String) -> TimeInterval? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1e9
    }

    private static func size(_ path: String) -> Int {
        var status = stat()
        return lstat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    static func isSHA256(_ text: String) -> Bool { ContentAddressedFolder.isSHA256(text) }
}
