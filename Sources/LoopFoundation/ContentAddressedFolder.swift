import Foundation

/// Files named by their SHA-256, in folders named by its first two hex digits: the library's
/// audio and pictures (`audio/ab/cdef…`) and a Loop Library's blobs (`blobs/ab/abcdef….flac`).
///
/// A file's name is its content, so a file is stored once and never changed. A file comes in
/// already written and verified (its hash known), in a folder on the same file system; it is
/// synced and renamed into its place, and the folders it created are synced, so that a crash
/// leaves it whole or absent, never half there. Two writers storing the same content write the
/// same bytes under the same name: the folder is safe to share between processes.
public struct ContentAddressedFolder: Sendable {
    /// How a file is named inside its two-digit folder.
    public enum Naming: Sendable, Equatable {
        /// The hash less its first two digits, no extension (`ab/cdef…`): the library's.
        case restOfHash
        /// The whole hash and an extension that says what the file is (`ab/abcdef….flac`).
        case hashAndExtension
    }

    /// A stored file.
    public struct Entry: Sendable, Equatable {
        /// Relative to the folder.
        public var relativePath: String
        /// Nil for a name that is no SHA-256 of this folder's naming (a stray file).
        public var sha256: String?
        /// The extension (``Naming/hashAndExtension``), or "".
        public var fileExtension: String
    }

    /// The folder, absolute.
    public let root: String
    /// How a hash names its file.
    public let naming: Naming

    /// The folder at `root`, its files named by `naming`.
    public init(root: String, naming: Naming) {
        self.root = root
        self.naming = naming
    }

    /// Whether `text` is a SHA-256 as a file is named by: 64 lowercase hex digits. Any other
    /// name (a hostile one: `../`, a slash, upper case) never reaches the file system.
    public static func isSHA256(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The file's path relative to the folder, or nil when `sha256` is not a SHA-256.
    public func relativePath(sha256: String, fileExtension: String = "") -> String? {
        guard Self.isSHA256(sha256) else { return nil }
        switch naming {
        case .restOfHash: return sha256.prefix(2) + "/" + sha256.dropFirst(2)
        case .hashAndExtension:
            return sha256.prefix(2) + "/" + sha256 + (fileExtension.isEmpty ? "" : "." + fileExtension)
        }
    }

    /// The file's absolute path, or nil when `sha256` is not a SHA-256.
    public func path(sha256: String, fileExtension: String = "") -> String? {
        relativePath(sha256: sha256, fileExtension: fileExtension).map { root + "/" + $0 }
    }

    /// Moves `file` (written, closed and verified to hold `sha256`, on this folder's file
    /// system) into its place, durably: synced, renamed, and every folder it made synced. When
    /// the content is stored already, `file` is removed and the stored one touched (its time is
    /// then the time it was last stored, which a collection's grace period counts from). The
    /// stored file's time is the time it is stored, never the time `file` carried.
    /// Returns the path relative to the folder.
    @discardableResult
    public func adopt(_ file: String, sha256: String, fileExtension: String = "") throws -> String {
        guard let relative = relativePath(sha256: sha256, fileExtension: fileExtension) else {
            throw FileSystemError(code: EINVAL, path: sha256)
        }
        let destination = root + "/" + relative
        let manager = FileManager.default
        if manager.fileExists(atPath: destination) {
            _ = utimensat(AT_FDCWD, destination, nil, 0)
            try? manager.removeItem(atPath: file)
            return relative
        }
        let shard = (destination as NSString).deletingLastPathComponent
        if !manager.fileExists(atPath: shard) {
            let newRoot = !manager.fileExists(atPath: root)
            try manager.createDirectory(atPath: shard, withIntermediateDirectories: true)
            try DurableFile.syncDirectory(root)
            if newRoot { try DurableFile.syncDirectory((root as NSString).deletingLastPathComponent) }
        }
        _ = utimensat(AT_FDCWD, file, nil, 0)
        try DurableFile.syncAndRename(file, to: destination)
        return relative
    }

    /// Every file in the two-digit folders, stray names included (their `sha256` nil), sorted.
    public func entries() -> [Entry] {
        let manager = FileManager.default
        var entries: [Entry] = []
        for shard in (try? manager.contentsOfDirectory(atPath: root)) ?? []
        where shard.utf8.count == 2 && !shard.hasPrefix(".") {
            for name in (try? manager.contentsOfDirectory(atPath: root + "/" + shard)) ?? [] {
                var hash: String
                var fileExtension = ""
                switch naming {
                case .restOfHash:
                    hash = shard + name
                case .hashAndExtension:
                    let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
                    hash = parts.first ?? ""
                    fileExtension = parts.count == 2 ? parts[1] : ""
                }
                let valid = Self.isSHA256(hash) && hash.hasPrefix(shard)
                entries.append(
                    Entry(relativePath: shard + "/" + name, sha256: valid ? hash : nil, fileExtension: fileExtension))
            }
        }
        return entries.sorted { $0.relativePath < $1.relativePath }
    }
}
