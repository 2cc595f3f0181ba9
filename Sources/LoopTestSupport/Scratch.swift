import Foundation

/// Scratch space for tests: one folder per test process in the system's temporary folder,
/// removed when the process exits, and swept by a later run if the process never got that far.
public enum Scratch {
    private static let prefix = "loop-tests."

    /// `$TMPDIR/loop-tests.<pid>`, made on first use.
    public static let folder: String = {
        let temporary = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        sweep(temporary)
        let folder = temporary + prefix + "\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.folder) }
        return folder
    }()

    /// A new path in the scratch folder, `name-<uuid>` with `ext` when given; nothing is created there.
    public static func path(_ name: String, extension ext: String? = nil) -> String {
        folder + "/\(name)-\(UUID().uuidString)" + (ext.map { ".\($0)" } ?? "")
    }

    /// Removes the folders of earlier test processes that are no longer running.
    private static func sweep(_ temporary: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for entry in entries where entry.hasPrefix(prefix) {
            guard let pid = pid_t(entry.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH { try? FileManager.default.removeItem(atPath: temporary + entry) }
        }
    }
}
