import Foundation

/// The system's temporary folder (`$TMPDIR`, else /tmp), where loop decodes media, writes edit
/// drafts and stages exports.
public enum TemporaryFolder {
    /// Its path, without a trailing slash.
    public static var path: String {
        let folder = NSTemporaryDirectory()
        return folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
    }

    /// What keeps it from being used ("missing", "not a folder"), or nil: loop never makes it.
    public static var problem: String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return "missing" }
        return isFolder.boolValue ? nil : "not a folder"
    }
}
