import Foundation

/// Named steps of long work where a test can stop the process, to prove that a crash at that
/// exact point loses nothing (`LOOP_TEST_STOP_AT=step`), or hold it there while another
/// process runs (`LOOP_TEST_STOP_AT=step:pause`). Unset (always, outside tests), a step costs
/// one comparison.
///
/// Killed: the process sends itself SIGKILL, as `kill -9` would. Paused: it creates the file
/// `$LOOP_TEST_STOP_FILE`, then waits (up to a minute) until the test removes it.
public enum TestStop {
    private static let request: (step: String, pause: Bool)? = {
        guard let value = ProcessInfo.processInfo.environment["LOOP_TEST_STOP_AT"], !value.isEmpty else { return nil }
        return value.hasSuffix(":pause") ? (String(value.dropLast(6)), true) : (value, false)
    }()

    /// Marks the step `name`; stops here if a test asked to.
    public static func reached(_ name: String) {
        guard let request, request.step == name else { return }
        guard request.pause, let marker = ProcessInfo.processInfo.environment["LOOP_TEST_STOP_FILE"] else {
            kill(getpid(), SIGKILL)
            return
        }
        _ = FileManager.default.createFile(atPath: marker, contents: Data(name.utf8))
        for _ in 0..<6_000 where FileManager.default.fileExists(atPath: marker) { usleep(10_000) }
    }
}
