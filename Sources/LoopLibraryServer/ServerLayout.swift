import LoopFoundation

/// A Loop Library's data folder (`loop serve --data`): what lies where. Every server sharing
/// the folder reads it the same way; nothing else spells these paths.
///
///     catalog.sqlite           the SQLite catalog (unless the catalog is PostgreSQL)
///     blobs/ab/<sha256>.<kind> bundles, takes and pictures, content-addressed (``BlobStore``)
///     incoming/upload-*        uploads being received and checked
///     clips/ab/<take>-<a>-<b>.flac  the preview pages' clips, a cache (``ClipStore``)
public struct ServerLayout: Sendable {
    /// The data folder, absolute or as given.
    public let root: String

    /// The layout of the data folder at `root`.
    public init(root: String) {
        self.root = root
    }

    /// The SQLite catalog.
    public var catalog: String { root + "/catalog.sqlite" }
    /// The blobs: named by their SHA-256 and their kind.
    public var blobs: ContentAddressedFolder {
        ContentAddressedFolder(root: root + "/blobs", naming: .hashAndExtension)
    }
    /// Where uploads are received and checked before they are stored.
    public var incoming: String { root + "/incoming" }
    /// The preview pages' clips.
    public var clips: String { root + "/clips" }
}
