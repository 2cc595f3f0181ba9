import Foundation

/// A folder for one command's work in progress: removed when the work is done and, if the
/// process is killed first, by the next command that makes one with the same prefix in the same
/// place.
///
/// The folder holds an owner file that its process keeps locked (`flock`) while it lives; the
/// kernel releases the lock when the process dies, however it dies. A folder whose owner file
/// can be locked by someone else is abandoned, and is removed.
public struct ScratchFolder: ~Copyable, Sendable {
    /// The folder, absolute or as given.
    public let path: String
    private let owner: Int32

    static let ownerFile = ".owner"

    /// Makes `<parent>/<prefix><random>`, first removing the abandoned folders of that prefix.
    public init(in parent: String, prefix: String) throws {
        let parent = parent.hasSuffix("/") ? String(parent.dropLast()) : parent
        Self.removeAbandoned(in: parent, prefix: prefix)
        let path = parent + "/" + prefix + UUID().uuidString.lowercased().prefix(12)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            // One line naming the folder (and TMPDIR when it is the system's temporary folder),
            // never Foundation's error dump.
            let bridged = error as NSError
            let underlying = (bridged.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
            let code =
                bridged.domain == NSPOSIXErrorDomain ? Int32(bridged.code) : underlying.map { Int32($0.code) } ?? EIO
            let hint = parent == TemporaryFolder.path ? "; set TMPDIR to a folder you can write" : ""
            throw FileSystemError(
                FileSystemFailure(errno: code),
                "cannot make a work folder in it (\(String(cString: strerror(code))))\(hint)", path: parent)
        }
        let owner = open(path + "/" + Self.ownerFile, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard owner >= 0, flock(owner, LOCK_EX | LOCK_NB) == 0 else {
            let failure = FileSystemError.current(path: path)
            if owner >= 0 { close(owner) }
            try? FileManager.default.removeItem(atPath: path)
            throw failure
        }
        self.path = path
        self.owner = owner
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        close(owner)
    }

    /// Removes the folders `<parent>/<prefix>*` whose process is gone.
    public static func removeAbandoned(in parent: String, prefix: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
            let folder = parent + "/" + name
            if isAbandoned(folder) { try? FileManager.default.removeItem(atPath: folder) }
        }
    }

    /// Whether `folder` is a scratch folder no living process owns.
    public static func isAbandoned(_ folder: String) -> Bool {
        var status = stat()
        guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return false }
        let owner = open(folder + "/" + ownerFile, O_RDWR | O_CLOEXEC)
        // A folder with no owner file was killed before it could make one, unless it is so
        // young that its maker is still about to.
        guard owner >= 0 else { return errno == ENOENT && time(nil) - status.st_mtim.tv_sec > 60 }
        defer { close(owner) }
        return flock(owner, LOCK_EX | LOCK_NB) == 0
    }
}
