import Foundation
import LoopCutting
import LoopFFmpeg
import LoopFoundation
import LoopModel
import LoopPictures
import LoopShare
import LoopStore
import LoopStudy

/// The library as an interface reaches it: opened, its loops found, listed, searched and
/// maintained here; every change of a loop goes through a workflow (``Authoring``,
/// ``EditingWorkflow``, ...), each made from this. An interface never calls the store itself.
public struct Library: Sendable {
    /// The store behind it: the workflows' and the package's tests', never an interface's.
    package let store: LibraryStore

    /// Why this command cannot change the library (it is read-only, or its disk is full), when
    /// it was opened for reading only for that reason (``openForStudy(at:onUpdate:)``).
    public let readOnlyReason: String?

    /// The library over an open store (tests and benchmarks).
    package init(store: LibraryStore, readOnlyReason: String? = nil) {
        self.store = store
        self.readOnlyReason = readOnlyReason
    }

    /// How a picture is checked before the library keeps it: its header, then decoded.
    static let checkPicture: @Sendable (String) throws(PictureError) -> PictureInfo = { path throws(PictureError) in
        try PictureDecoder.check(path)
    }

    /// The library folder, absolute.
    public var path: String { store.layout.root }

    /// The library at `path` for a command that changes it, created or brought up to date
    /// first (`onUpdate` is called before a migration that may take a while).
    public static func open(at path: String, onUpdate: (() -> Void)? = nil) throws -> Library {
        try Library(
            store: LibraryStore(at: path, access: .readWrite, onUpdate: onUpdate, checkPicture: Self.checkPicture))
    }

    /// The library at `path` for a command that frees space (`rm`, `gc`): as ``open(at:onUpdate:)``,
    /// and on a full disk the room the library holds back is given up first, so that it can change.
    public static func openFreeingSpace(at path: String, onUpdate: (() -> Void)? = nil) throws -> Library {
        try Library(
            store: LibraryStore(at: path, access: .freeingSpace, onUpdate: onUpdate, checkPicture: Self.checkPicture))
    }

    /// The library at `path` for a command that only reads it: one read-only connection, no
    /// write and no lock (unless it must first be created or brought up to date).
    public static func openForReading(at path: String, onUpdate: (() -> Void)? = nil) throws -> Library {
        try Library(
            store: LibraryStore(at: path, access: .readOnly, onUpdate: onUpdate, checkPicture: Self.checkPicture))
    }

    /// The library at `path` for a command that reads it and would keep what it did (a study
    /// session's time): opened for writing, or, where the library cannot be written (a
    /// read-only mount, a full disk), for reading, with ``readOnlyReason`` saying why.
    public static func openForStudy(at path: String, onUpdate: (() -> Void)? = nil) throws -> Library {
        do {
            return try open(at: path, onUpdate: onUpdate)
        } catch let error as LibraryError where LibraryStore.cannotWriteBeside(root: path) {
            let full = (DiskSpace.available(at: path) ?? .max) < 1 << 20
            guard let reader = try? openForReading(at: path, onUpdate: onUpdate) else { throw error }
            return Library(
                store: reader.store,
                readOnlyReason: full ? "no space is left on the disk holding the library" : "the library is read-only")
        }
    }

    /// The library folder a command uses: `flag` (`--library`), else `$LOOP_LIBRARY`, else
    /// `$XDG_DATA_HOME/loop`, else `~/.local/share/loop`.
    public static func path(flag: String?) -> String { LibraryLocation.resolve(flag: flag) }

    /// The id of the loop `reference` names: an id, its start, or the start of a title.
    public func resolve(_ reference: String) throws -> String { try store.resolve(reference) }
    /// The ids of the loops titled `title`, case and accents aside.
    public func loopIDs(titled title: String) throws -> [String] { try store.loopIDs(titled: title) }

    /// The loop `id`, whole.
    public func loop(id: String) throws -> LoopDetail { try store.loop(id: id) }

    /// The loops, filtered and sorted, up to `limit`.
    public func loops(language: String? = nil, tag: String? = nil, sort: LoopSort = .title, limit: Int? = nil) throws
        -> [LoopSummary]
    {
        try store.loops(language: language, tag: tag, sort: sort, limit: limit)
    }

    /// How many loops match.
    public func loopCount(language: String? = nil, tag: String? = nil) throws -> Int {
        try store.loopCount(language: language, tag: tag)
    }

    /// The phrases that hold every word of `query` (case and diacritics folded), best first.
    public func search(_ query: String, inLoop loopId: String? = nil, limit: Int = 50) throws -> [SearchHit] {
        try store.search(query, inLoop: loopId, limit: limit)
    }

    /// Study totals of one loop, or of every loop studied (the last studied first, up to `limit`).
    public func studyStats(loop id: String? = nil, limit: Int? = nil) throws -> [LoopStudyStats] {
        try store.studyStats(loop: id, limit: limit)
    }

    /// How many loops were ever studied.
    public func studiedLoopCount() throws -> Int { try store.studiedLoopCount() }

    /// The shadowing attempts kept at the loop `id`'s phrases, oldest first.
    public func attempts(loop id: String) throws -> [ShadowingAttempt] { try store.attempts(loop: id) }

    /// Merges the progress file at `path` (exported from a loop's page) into the study history.
    public func importProgress(from path: String) throws -> ProgressImport.Outcome {
        try ProgressImport(store: store).merge(ProgressImport.read(path))
    }

    /// Removes the loop `id` (its audio goes at the next `collectGarbage`).
    public func remove(loop id: String) throws { try store.remove(loop: id) }

    /// Removes audio and pictures no loop refers to, and leftovers of interrupted work (off
    /// the caller's thread: it walks every file).
    public func collectGarbage() async throws -> GarbageReport {
        try await BlockingWork.run { [store] in try store.collectGarbage() }
    }

    /// Checks the database and every file it refers to (off the caller's thread).
    public func check(progress: (@Sendable (Double) -> Void)? = nil) async throws -> HealthReport {
        try await BlockingWork.run { [store] in try store.check(progress: progress) }
    }

    /// Removes the reviews dated after today, or in no year a library keeps (made while the clock
    /// was wrong), scheduling their groups again: how many reviews, of how many groups.
    public func removeReviewsOutOfTime(now: Date = Date()) throws -> (reviews: Int, groups: Int) {
        try store.removeReviewsOutOfTime(now: now, replay: ReviewSettings.replay)
    }
}

// The workflows, made from the library as an interface holds it.
extension Authoring {
    public init(library: Library, segmenter: SilenceSegmenter = SilenceSegmenter(), language: String? = nil) {
        self.init(store: library.store, segmenter: segmenter, language: language)
    }
}

extension EditingWorkflow {
    public init(library: Library) { self.init(store: library.store) }
}

extension RecordingWorkflow {
    public init(library: Library) { self.init(store: library.store) }
}

extension StudyWorkflow {
    public init(library: Library) { self.init(store: library.store, keepsProgress: library.readOnlyReason == nil) }
}

extension BundleImporter {
    public init(library: Library) { self.init(store: library.store) }
}

extension BundleExporter {
    public init(library: Library) { self.init(store: library.store) }
}

extension LoopPublisher {
    public init(library: Library) throws { try self.init(store: library.store) }
    public init(library: Library, identity: AuthorIdentity) { self.init(store: library.store, identity: identity) }
}

extension LoopLibrarySharing {
    public init(library: Library) { self.init(store: library.store) }
    public static func authorName(of library: Library) -> String? { authorName(of: library.store) }
    public static func setAuthorName(_ name: String, of library: Library) throws {
        try setAuthorName(name, of: library.store)
    }
}

extension PhraseEditingWorkflow {
    public convenience init(library: Library, loop id: String) throws { try self.init(store: library.store, loop: id) }
}

extension LibraryIdentity {
    public static func load(_ library: Library) throws -> AuthorIdentity? { try load(library.store) }
    public static func loadOrCreate(_ library: Library) throws -> AuthorIdentity { try loadOrCreate(library.store) }
    public static func restore(_ backup: Data, into library: Library, source: String) throws -> AuthorIdentity {
        try restore(backup, into: library.store, source: source)
    }

    /// Restores the library's key from the backup file at `path` (a key's backup is a few
    /// hundred bytes: a file past 64 KiB is not one, and is not read whole; a FIFO, a device or
    /// a folder is none, and is not opened).
    public static func restore(from path: String, into library: Library) throws -> AuthorIdentity {
        if let problem = RegularFile.problem(at: path) { throw WorkflowError(.refused, problem, path: path) }
        guard let file = FileHandle(forReadingAtPath: path), let data = try? file.read(upToCount: 65_536) else {
            throw WorkflowError(.refused, "cannot read the file", path: path)
        }
        try? file.close()
        return try restore(data, into: library, source: path)
    }
}

extension EditingWorkflow {
    /// Changes a loop's title, language or tags; returns the loop as it now is.
    @discardableResult
    public func updateMetadata(
        ofLoop id: String, title: String? = nil, language: String? = nil, addTags: [String] = [],
        removeTags: [String] = []
    ) throws -> LoopDetail {
        try store.updateMetadata(ofLoop: id, title: title, language: language, addTags: addTags, removeTags: removeTags)
    }
}
