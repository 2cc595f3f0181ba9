import Crypto
import Foundation
import LoopFoundation
import LoopModel

/// The library's audio files and pictures: content-addressed by SHA-256 under
/// `audio/ab/cdef...` and `pictures/ab/cdef...`.
///
/// A file is copied into `audio/.incoming/`, hashed on the way, synced, then renamed into its
/// place and the folders synced, all before any row refers to it. Identical audio is stored
/// once. Nothing here deletes a file that a row refers to: removal is ``LibraryStore``'s `gc`.
struct AudioStore: Sendable {
    let layout: LibraryLayout

    struct StoredFile: Sendable {
        var sha256: String
        /// Relative to the library folder.
        var path: String
        var byteCount: Int
    }

    /// What a stored file is, which says the folder it goes in.
    enum Kind: Sendable {
        case audio, picture

        /// Its folder, and the folder's path relative to the library's.
        func folder(in layout: LibraryLayout) -> (files: ContentAddressedFolder, relative: String) {
            switch self {
            case .audio: (layout.audioFiles, LibraryLayout.Relative.audio)
            case .picture: (layout.pictureFiles, LibraryLayout.Relative.pictures)
            }
        }
    }

    func absolute(_ relativePath: String) -> String { layout.absolute(relativePath) }

    /// Copies the file at `source` into the store; returns where it is.
    func store(copyOf source: String, as kind: Kind = .audio, progress: (@Sendable (Double) -> Void)? = nil) throws
        -> StoredFile
    {
        let incoming = try receive(copyOf: source, progress: progress)
        do {
            return try adopt(
                verifiedFile: incoming.path, sha256: incoming.sha256, byteCount: incoming.byteCount, as: kind)
        } catch {
            try? FileManager.default.removeItem(atPath: incoming.path)
            throw error
        }
    }

    /// A file copied into `audio/.incoming/`, hashed and synced, not yet in its place.
    struct IncomingFile: Sendable {
        var path: String
        var sha256: String
        var byteCount: Int
    }

    /// Copies the file at `source` into `audio/.incoming/`, hashing it on the way, and syncs it.
    /// ``adopt(verifiedFile:sha256:byteCount:)`` then puts it in its place, or the caller removes it.
    func receive(copyOf source: String, progress: (@Sendable (Double) -> Void)? = nil) throws -> IncomingFile {
        try FileManager.default.createDirectory(atPath: layout.incomingFolder, withIntermediateDirectories: true)
        let temporary = layout.incomingFolder + "/" + UUID().uuidString
        do {
            let (digest, bytes) = try copyHashing(from: source, to: temporary, progress: progress)
            TestStop.reached("take.received")
            return IncomingFile(path: temporary, sha256: digest, byteCount: bytes)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }

    /// Moves a file already verified to have `sha256` (and already inside the library folder, so
    /// a rename suffices) into its place; returns where it is. The file is synced first.
    func adopt(verifiedFile path: String, sha256: String, byteCount: Int, as kind: Kind = .audio) throws -> StoredFile {
        let folder = kind.folder(in: layout)
        let relative = folder.relative + "/" + (try folder.files.adopt(path, sha256: sha256))
        TestStop.reached("audio.renamed")
        return StoredFile(sha256: sha256, path: relative, byteCount: byteCount)
    }

    /// The SHA-256 of a stored file, or nil when it is missing.
    func hash(of relativePath: String) throws -> String? {
        let path = absolute(relativePath)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Self.sha256(ofFileAt: path)
    }

    /// Every content file in the store (relative paths, audio and pictures), and the leftovers
    /// of interrupted copies.
    func inventory() -> (files: [String], leftovers: [String]) {
        let manager = FileManager.default
        var files: [String] = []
        var leftovers: [String] = []
        for kind in [Kind.picture, .audio] {
            let folder = kind.folder(in: layout)
            files += folder.files.entries().map { folder.relative + "/" + $0.relativePath }
        }
        let incoming = LibraryLayout.Relative.incoming
        leftovers += ((try? manager.contentsOfDirectory(atPath: layout.incomingFolder)) ?? []).map {
            incoming + "/" + $0
        }
        // A recording killed while it was saved: its scratch folder (or, from versions before
        // those folders, the FLAC files it was writing), never the draft `--recover` needs.
        let hourAgo = Date().addingTimeInterval(-3_600)
        let recordings = LibraryLayout.Relative.recordings
        for name in (try? manager.contentsOfDirectory(atPath: layout.recordingsFolder)) ?? [] {
            let path = absolute(recordings + "/" + name)
            let abandoned =
                name.hasPrefix(".saving-")
                ? ScratchFolder.isAbandoned(path)
                : (name.hasSuffix(".flac") || name.contains(".flac.tmp-"))
                    && ((try? manager.attributesOfItem(atPath: path)[.modificationDate] as? Date).map { $0 < hourAgo }
                        ?? false)
            if abandoned { leftovers.append(recordings + "/" + name) }
        }
        return (files.sorted(), leftovers.sorted())
    }

    static func sha256(ofFileAt path: String) throws -> String {
        guard let digest = try ContentAddress.sha256(ofFileAt: path) else {
            throw LibraryError(.audioMissing, "\(path): cannot read the audio file")
        }
        return digest
    }

    private func copyHashing(from source: String, to destination: String, progress: (@Sendable (Double) -> Void)?)
        throws -> (String, Int)
    {
        guard let input = FileHandle(forReadingAtPath: source) else {
            throw LibraryError(.storageFailed, "cannot read the file", path: source)
        }
        defer { try? input.close() }
        let total = (try? FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) ?? nil
        guard FileManager.default.createFile(atPath: destination, contents: nil),
            let output = FileHandle(forWritingAtPath: destination)
        else {
            throw LibraryError(.storageFailed, "cannot write to the library at \(destination)")
        }
        var hasher = SHA256()
        var bytes = 0
        do {
            defer { try? output.close() }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                try output.write(contentsOf: chunk)
                bytes += chunk.count
                if let total, total > 0 { progress?(Double(bytes) / Double(total)) }
            }
            try output.synchronize()
        }
        return (ContentAddress.hex(hasher.finalize()), bytes)
    }
}

/// An advisory lock on the library (`library.lock`): imports hold it shared from storing
/// audio until its rows commit; `gc` holds it exclusive, so it never removes audio that an
/// import in flight is about to refer to. The kernel drops it if the process dies.
struct LibraryLock: ~Copyable {
    private let descriptor: Int32

    init(_ layout: LibraryLayout, exclusive: Bool) throws {
        let path = layout.lockFile
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LibraryError(.cannotOpen, "\(path): \(String(cString: strerror(errno)))") }
        while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno != EINTR {
                close(descriptor)
                throw LibraryError(
                    .cannotOpen, "\(path): cannot lock the library (\(String(cString: strerror(errno))))")
            }
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
