import Foundation

/// Where the library lives: `--library`, else `LOOP_LIBRARY`, else `$XDG_DATA_HOME/loop`, else
/// `~/.local/share/loop`.
public enum LibraryLocation {
    /// The library folder, from the `--library` flag when given, else the environment.
    public static func resolve(flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        if let flag, !flag.isEmpty { return absolute(flag) }
        if let variable = environment["LOOP_LIBRARY"], !variable.isEmpty { return absolute(variable) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/loop" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/loop"
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
