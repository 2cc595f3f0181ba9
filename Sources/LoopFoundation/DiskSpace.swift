import Foundation

/// A full disk, told apart from damaged input, and worded as what it is: which device is
/// full, how much the work needed and how much there is.
public enum DiskSpace {
    /// Bytes free for an unprivileged writer on the file system holding `path` (or its nearest
    /// existing parent), or nil when it cannot be told.
    public static func available(at path: String) -> Int? {
        fileSystem(holding: path).map { Int($0.f_bavail) * Int($0.f_frsize) }
    }

    /// Whether the file system holding `path` (or its nearest existing parent) stores nothing:
    /// a pseudo file system such as /proc or /sys, which has no blocks at all.
    public static func isPseudoFileSystem(at path: String) -> Bool {
        fileSystem(holding: path)?.f_blocks == 0
    }

    /// The file system holding `path`, or its nearest existing parent.
    private static func fileSystem(holding path: String) -> statvfs? {
        var folder = path
        var status = statvfs()
        while statvfs(folder, &status) != 0 {
            guard folder != "/", !folder.isEmpty else { return nil }
            folder = (folder as NSString).deletingLastPathComponent
            if folder.isEmpty { folder = "/" }
        }
        return status
    }

    /// Whether `error`, from any layer (a system call, Foundation, libsndfile, SQLite's words),
    /// says the disk is full.
    public static func isOutOfSpace(_ error: any Error) -> Bool {
        if let error = error as? FileSystemError { return error.code == ENOSPC || error.code == EDQUOT }
        if let error = error as? any DescribedError, let cause = error.cause, cause.contains("No space left") {
            return true
        }
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain, bridged.code == Int(ENOSPC) || bridged.code == Int(EDQUOT) {
            return true
        }
        if bridged.domain == NSCocoaErrorDomain, bridged.code == NSFileWriteOutOfSpaceError { return true }
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? any Error, isOutOfSpace(underlying) {
            return true
        }
        let text = "\(error)"
        return text.contains("No space left on device") || text.contains("database or disk is full")
            || text.contains("SQLITE_FULL")
    }

    /// "no space left on the device holding PATH (mounted at /data; 2.1 MB needed, 12 KB free)".
    public static func message(at path: String, needing bytes: Int?) -> String {
        var figures: [String] = []
        if let bytes { figures.append(size(bytes) + " needed") }
        if let free = available(at: path) { figures.append(size(free) + " free") }
        let mount = mountPoint(of: path).map { "mounted at \($0)" }
        let details = ([mount].compactMap { $0 } + [figures.joined(separator: ", ")]).filter { !$0.isEmpty }.joined(
            separator: "; ")
        return "no space left on the device holding \(path)" + (details.isEmpty ? "" : " (" + details + ")")
    }

    /// The folder where the file system holding `path` (or its nearest existing parent) is mounted.
    public static func mountPoint(of path: String) -> String? {
        var current = path
        var status = stat()
        while stat(current, &status) != 0 {
            guard current != "/" else { return nil }
            current = (current as NSString).deletingLastPathComponent
        }
        let device = status.st_dev
        while current != "/" {
            let parent = (current as NSString).deletingLastPathComponent
            var above = stat()
            guard stat(parent, &above) == 0, above.st_dev == device else { return current }
            current = parent
        }
        return "/"
    }

    private static func size(_ bytes: Int) -> String {
        bytes < 1_000_000 ? "\(bytes / 1_000) KB" : String(format: "%.1f MB", Double(bytes) / 1e6)
    }
}
