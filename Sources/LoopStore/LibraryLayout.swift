import Foundation
import LoopFoundation

/// Where everything of a library lives. The one place that spells the library's paths: no
/// other type joins a library folder with a file name.
///
/// ```
/// library.sqlite      loops, groups, phrases, tags, study history
/// library.lock        held shared by work in flight, exclusive by `gc`
/// audio/ab/cdef...    every take, named by the SHA-256 of its bytes
/// audio/.incoming/    copies in progress, and scratch folders of work in flight
/// pictures/ab/cdef... every picture, named by the SHA-256 of its bytes
/// recordings/         recordings being captured, and their drafts
/// identity/           the author's key pair
/// room                1 MiB held back: given up on a full disk so that `rm` and `gc` can
///                     change the database and free space (made again once there is room)
/// ```
public struct LibraryLayout: Sendable, Equatable {
    /// The library folder, absolute.
    public let root: String

    /// The layout of the library folder at `root` (a trailing slash dropped).
    public init(root: String) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// The takes, content-addressed: `audio/ab/cdef...`.
    public var audioFiles: ContentAddressedFolder { ContentAddressedFolder(root: audioFolder, naming: .restOfHash) }
    /// The pictures, content-addressed: `pictures/ab/cdef...`.
    public var pictureFiles: ContentAddressedFolder {
        ContentAddressedFolder(root: picturesFolder, naming: .restOfHash)
    }

    /// Relative to the library folder, as paths are stored in the database.
    public enum Relative {
        /// The database.
        public static let database = "library.sqlite"
        /// The lock every process that opens the library holds.
        public static let lock = "library.lock"
        /// The takes.
        public static let audio = "audio"
        /// Takes being received, not yet in the database.
        public static let incoming = "audio/.incoming"
        /// The pictures.
        public static let pictures = "pictures"
        /// The learner's recordings of themselves.
        public static let recordings = "recordings"
        /// The author identity's private key.
        public static let identityKey = "identity/ed25519.key"
        /// The author name a Loop Library shows for this identity.
        public static let authorName = "identity/name"
        /// Space held back for freeing space on a full disk.
        public static let room = "room"

        /// A picture's place in the store: `pictures/ab/cdef...`.
        public static func pictureFile(sha256: String) -> String {
            pictures + "/" + sha256.prefix(2) + "/" + sha256.dropFirst(2)
        }
    }

    /// The database, absolute.
    public var database: String { absolute(Relative.database) }
    /// The lock file, absolute.
    public var lockFile: String { absolute(Relative.lock) }
    /// The takes' folder, absolute.
    public var audioFolder: String { absolute(Relative.audio) }
    /// The folder of takes being received, absolute.
    public var incomingFolder: String { absolute(Relative.incoming) }
    /// The pictures' folder, absolute.
    public var picturesFolder: String { absolute(Relative.pictures) }
    /// The recordings' folder, absolute.
    public var recordingsFolder: String { absolute(Relative.recordings) }
    /// The identity key, absolute.
    public var identityKey: String { absolute(Relative.identityKey) }
    /// The author name's file, absolute.
    public var authorName: String { absolute(Relative.authorName) }
    /// The held-back space's file, absolute.
    public var room: String { absolute(Relative.room) }

    /// A path stored in the database (relative to the library folder), made absolute.
    public func absolute(_ relative: String) -> String { root + "/" + relative }

    /// A new scratch folder's path for work in flight, inside the library (on the same file
    /// system as the audio, so that its files move into place by renaming).
    public func scratchFolder(named prefix: String) -> String {
        incomingFolder + "/" + prefix + "-" + UUID().uuidString.lowercased()
    }

    /// Whether `path` lies in the library's incoming folder (verified there, it moves into
    /// place by renaming rather than copying).
    public func isIncoming(_ path: String) -> Bool { path.hasPrefix(incomingFolder + "/") }

    /// Where `loop edit` puts a loop's text for the editor: in `folder` (the system's temporary
    /// folder), named from the id's letters and digits only, so an id never reaches a path.
    public static func editDraft(loopId: String, in folder: String = NSTemporaryDirectory()) -> String {
        let name = String(
            loopId.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) && $0.isASCII }.prefix(8))
        let parent = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return parent + "/loop-edit-\(name)-\(UUID().uuidString.prefix(6)).txt"
    }
}
