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
    public enum Kind: String, Sendable, CaseIterable {
        /// A signed loop bundle.
        case bundle = "loop"
        /// A take, FLAC.
        case take = "flac"
        /// A picture, by its format (checked by the bundle reader).
        case png, jpg, webp, gif

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
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// Where uploads are received and checked before they are stored.
    public var incoming: String { root + "/incoming" }

    /// The blob's path, or nil when `sha256` is not 64 lowercase hex digits (a hostile name
    /// never reaches the file system).
    public func path(_ sha256: String, kind: Kind) -> String? {
        guard Self.isSHA256(sha256) else { return nil }
        return root + "/blobs/" + sha256.prefix(2) + "/" + sha256 + "." + kind.rawValue
    }

    /// Whether the blob is stored.
    public func contains(_ sha256: String, kind: Kind) -> Bool {
        path(sha256, kind: kind).map { FileManager.default.fileExists(atPath: $0) } ?? false
    }

    /// Moves a verified file (whose SHA-256 is `sha256`) into the store, durably. A blob already
    /// stored stays as it is, and the file is removed.
    public func store(_ file: String, sha256: String, kind: Kind) throws {
        guard let destination = path(sha256, kind: kind) else { throw FileSystemError(code: EINVAL, path: sha256) }
        if FileManager.default.fileExists(atPath: destination) {
            try? FileManager.default.removeItem(atPath: file)
            return
        }
        let folder = (destination as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // The file lies in `incoming`, on the same file system: a copy would only be needed if
        // `incoming` were elsewhere, which this layout never does.
        try DurableFile.syncAndRename(file, to: destination)
    }

    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
