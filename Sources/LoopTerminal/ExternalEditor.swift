import Foundation
import LoopFoundation

/// The user's editor, run on a file in the foreground.
public enum ExternalEditor {
    /// Runs `$VISUAL`, else `$EDITOR`, else `vi` on `path`, and waits for it.
    public static func open(_ path: String) throws {
        let environment = ProcessInfo.processInfo.environment
        let command = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The editor command may carry arguments ("code --wait"): let the shell split it.
        process.arguments = ["-c", command + " \"$1\"", "editor", path]
        do {
            try process.run()
        } catch {
            throw TerminalError(
                .editorFailed, "cannot start the editor '\(command)': \(error.localizedDescription); set $EDITOR")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TerminalError(
                .editorFailed,
                "the editor '\(command)' exited with status \(process.terminationStatus); the loop is unchanged")
        }
    }
}
