import Foundation

/// Atomic, durable file replacement: temporary file, fsync, rename, directory fsync.
public enum DurableFile {
    /// A unique temporary path in the same folder as `path`, so a rename is atomic.
    public static func temporaryPath(besides path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        return folder + "/." + name + ".tmp-" + String(UInt32.random(in: .min ... .max), radix: 36)
    }

    /// Writes `data` to `path` atomically and durably, with `permissions` (e.g. 0o600).
    public static func write(_ data: Data, to path: String, permissions: mode_t = 0o644) throws {
        try checkReplaceable(path)
        let temporary = temporaryPath(besides: path)
        do {
            let file = try NewFile(creating: temporary, permissions: permissions, naming: path)
            try data.withUnsafeBytes { try file.write($0) }
        } catch {
            unlink(temporary)
            throw error
        }
        do {
            try syncAndRename(temporary, to: path)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// A file created new (never one that exists, never through a link) and written in pieces,
    /// each write whole (retried on EINTR and short writes); closed when it goes. A durable
    /// file is one of these, then ``syncAndRename(_:to:)``.
    public struct NewFile: ~Copyable {
        private let descriptor: Int32
        /// Where it is.
        public let path: String

        /// A new file at `path`; when it cannot be made, the error names `named` (the file the
        /// person gave, where `path` is a hidden temporary file beside it) and says why.
        public init(creating path: String, permissions: mode_t = 0o644, naming named: String? = nil) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, permissions)
            guard descriptor >= 0 else {
                guard let named else { throw FileSystemError.current(path: path) }
                throw FileSystemError(FileSystemFailure(errno: errno), path: named, message: whyNotCreatable(named))
            }
            self.descriptor = descriptor
            self.path = path
        }

        /// Appends `bytes`, all of them.
        public func write(_ bytes: UnsafeRawBufferPointer) throws {
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw FileSystemError.current(path: path)
                }
                offset += written
            }
        }

        deinit { close(descriptor) }
    }

    /// Syncs the closed file at `temporary`, renames it to `path`, and syncs the folder.
    public static func syncAndRename(_ temporary: String, to path: String) throws {
        try checkReplaceable(path)
        try sync(path: temporary, flags: O_RDONLY)
        guard rename(temporary, path) == 0 else { throw FileSystemError.current(path: path) }
        try syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Only a regular file is ever replaced: a device (`/dev/full`), a FIFO, a socket or a folder
    /// at `path` is refused, and so is a symbolic link (loop does not write through links).
    public static func checkReplaceable(_ path: String) throws {
        guard !path.isEmpty else {
            throw FileSystemError(
                FileSystemFailure(errno: ENOENT), path: path, message: "an empty path names no file: give a file's path"
            )
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { return } // nothing there yet
        let kind = status.st_mode & S_IFMT
        guard kind != S_IFREG else { return }
        let what: String
        switch kind {
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { " (\($0))" } ?? ""
            what = "is a symbolic link\(target): loop does not write through links; give the path of the file itself"
        case S_IFDIR: what = "is a folder: give a file's path"
        case S_IFCHR, S_IFBLK: what = "is a device, not a file: loop writes only regular files"
        case S_IFIFO: what = "is a FIFO, not a file: loop writes only regular files"
        default: what = "is not a regular file: loop writes only regular files"
        }
        throw FileSystemError(FileSystemFailure(errno: EEXIST), path: path, message: what)
    }

    /// Why a file cannot be created at `path`, in the words of its folder: missing, not a
    /// folder, not writable, or the reason the system gives.
    public static func whyNotCreatable(_ path: String) -> String {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            return "cannot create the file: there is no folder \(folder)"
        }
        guard isFolder.boolValue else { return "cannot create the file: \(folder) is not a folder" }
        guard access(folder, W_OK) == 0 else { return "cannot create the file: the folder \(folder) is not writable" }
        return "cannot create the file (\(String(cString: strerror(errno))))"
    }

    /// Writes the file at `path` to disk (what ``syncAndRename(_:to:)`` would wait for), so
    /// that it can be done beside other work.
    public static func syncFile(_ path: String) throws {
        try sync(path: path, flags: O_RDONLY)
    }

    /// Makes renames and new entries in `folder` durable.
    public static func syncDirectory(_ folder: String) throws {
        try sync(path: folder, flags: O_RDONLY | O_DIRECTORY)
    }

    private static func sync(path: String, flags: Int32) throws {
        let descriptor = open(path, flags | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemError.current(path: path) }
        defer { close(descriptor) }
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw FileSystemError.current(path: path) }
        }
    }
}

/// A failed system call: its `errno` value.
public struct FileSystemFailure: LoopErrorKind {
    /// The `errno` value.
    public var errno: Int32

    /// The failure of a call that set `errno`.
    public init(errno: Int32) { self.errno = errno }

    /// Where these errors come from: the file system.
    public static let domain = ErrorDomain.file
    /// Its name: `system`.
    public var name: String { "system" }
}

/// A failed system call, with the file it concerned.
public typealias FileSystemError = LoopError<FileSystemFailure>

extension LoopError where Kind == FileSystemFailure {
    /// The failure `errno` names, about `path`, in the system's words.
    public init(code: Int32, path: String) {
        self.init(FileSystemFailure(errno: code), String(cString: strerror(code)), path: path)
    }

    static func current(path: String) -> FileSystemError { FileSystemError(code: errno, path: path) }

    /// The `errno` value.
    public var code: Int32 { kind.errno }

    /// A short reason for a failed file operation, from our calls or from Foundation's: the
    /// system's words where there are some ("No such file or directory"), never an NSError dump.
    public static func reason(_ error: any Error) -> String {
        if let error = error as? FileSystemError { return String(cString: strerror(error.code)) }
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(bridged.code))) }
        if let underlying = (bridged.userInfo[NSUnderlyingErrorKey] as? any Error).map({ $0 as NSError }),
            underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return bridged.domain == NSCocoaErrorDomain ? bridged.localizedDescription : "\(error)"
    }
}
