import Foundation

/// Checks, before anything opens it, that a path names what a command expects: a regular file.
///
/// A folder, a FIFO, a device (`/dev/zero`) or a socket named where a file is expected would
/// make a reader spin, block or grow without bound; each gets a clear reason instead. Symbolic
/// links are followed: a link to a regular file is one.
public enum RegularFile {
    /// Why `path` is not a regular file, or nil when it is one.
    public static func problem(at path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            switch errno {
            case ENOENT, ENOTDIR: return "no such file"
            case EACCES: return "cannot read the file (permission denied)"
            case ELOOP: return "a symbolic link that loops"
            default: return "cannot read the file (\(String(cString: strerror(errno))))"
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a folder, not a file"
        case S_IFIFO: return "is a pipe (FIFO), not a regular file"
        case S_IFCHR, S_IFBLK: return "is a device, not a regular file"
        case S_IFSOCK: return "is a socket, not a regular file"
        default: return "is not a regular file"
        }
    }

    /// The size of the file at `path` in bytes, if it can be told.
    public static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }
}
