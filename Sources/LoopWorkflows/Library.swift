import Foundation
import LoopFFmpeg
import LoopFoundation
import LoopModel
import LoopPictures
import LoopSpeech
import LoopStore

/// The library, the one door an interface goes through: opened once with the access a command
/// needs, every operation a request in and an outcome out (the features live in `Library+*.swift`:
/// loops, authoring, recording, study, reviews, editing, sharing, maintenance). The store behind
/// it is its own; no interface sees it.
public struct Library: Sendable {
    /// The store behind it: the features' and the package's tests', never an interface's.
    package let store: LibraryStore

    /// What a command will do with the library.
    public enum Access: Sendable {
        /// Change it: the library is created or brought up to date if needed.
        case readWrite
        /// Only read it (list, show, search): one read-only connection, no write and no lock
        /// (unless it must first be created or brought up to date).
        case readOnly
        /// Read it, and keep what was done (a study session's time) where it can be written: for
        /// writing, else, on a read-only library or a full disk, for reading, with
        /// ``readOnlyReason`` saying why.
        case study
        /// Free space (`rm`, `gc`): on a full disk the room the library holds back is given up
        /// first, so that it can change.
        case freeingSpace
    }

    /// Why this library cannot keep what is done (it is read-only, or its disk is full), when it
    /// was opened for study and could only be read.
    public let readOnlyReason: String?

    /// The library over an open store (tests and benchmarks).
    package init(store: LibraryStore, readOnlyReason: String? = nil) {
        self.store = store
        self.readOnlyReason = readOnlyReason
    }

    /// The library folder, absolute.
    public var path: String { store.layout.root }

    /// The library at `path`, opened for `access`; `onUpdate` is called before a migration
    /// that may take a while (a search index rebuilt).
    public static func open(at path: String, access: Access, onUpdate: (() -> Void)? = nil) throws -> Library {
        switch access {
        case .readWrite: return try Library(store: store(at: path, .readWrite, onUpdate))
        case .readOnly: return try Library(store: store(at: path, .readOnly, onUpdate))
        case .freeingSpace: return try Library(store: store(at: path, .freeingSpace, onUpdate))
        case .study:
            do {
                return try Library(store: store(at: path, .readWrite, onUpdate))
            } catch let error as LibraryError where LibraryStore.cannotWriteBeside(root: path) {
                let full = (DiskSpace.available(at: path) ?? .max) < 1 << 20
                guard let reader = try? store(at: path, .readOnly, onUpdate) else { throw error }
                return Library(
                    store: reader,
                    readOnlyReason: full
                        ? "no space is left on the disk holding the library" : "the library is read-only")
            }
        }
    }

    private static func store(at path: String, _ access: LibraryStore.Access, _ onUpdate: (() -> Void)?) throws
        -> LibraryStore
    {
        try LibraryStore(at: path, access: access, onUpdate: onUpdate, checkPicture: checkPicture)
    }

    /// What renders a text to follow a take or find a phrase's words: espeak-ng, whose state is
    /// one per process, so the door holds the one there is and passes it to what renders.
    static let synthesizer = SpeechSynthesizer.shared

    /// How a picture is checked before the library keeps it: its header, then decoded.
    static let checkPicture: @Sendable (String) throws(PictureError) -> PictureInfo = { path throws(PictureError) in
        try PictureDecoder.check(path)
    }

    /// The library folder a command uses: `flag` (`--library`), else `$LOOP_LIBRARY`, else
    /// `$XDG_DATA_HOME/loop`, else `~/.local/share/loop`.
    public static func path(flag: String?) -> String { LibraryLocation.resolve(flag: flag) }

    /// Runs blocking library work off the caller's thread.
    func work<T: Sendable>(_ name: String, _ body: @escaping @Sendable (LibraryStore) throws -> T) async throws -> T {
        let store = self.store
        return try await BlockingWork.run(name) { try body(store) }
    }
}
