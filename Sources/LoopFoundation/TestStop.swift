import Foundation
import Synchronization

/// Named steps of long work where a test can stop the process, to prove that a crash at that
/// exact point loses nothing (`LOOP_TEST_STOP_AT=step`), or hold it there while another
/// process or request runs (`LOOP_TEST_STOP_AT=step:pause`). Unset (always, outside tests), a
/// step costs one comparison.
///
/// Killed: the process sends itself SIGKILL, as `kill -9` would. Paused: the first time the step
/// is reached, it creates the file `$LOOP_TEST_STOP_FILE`, then waits (up to a minute) until the
/// test removes it; later arrivals pass. With `LOOP_TEST_TRACE=FILE`, every step reached is
/// appended to FILE, a line each, so a test can see where concurrent work has got to.
public enum TestStop {
    private static let request: (step: String, pause: Bool)? = {
        guard let value = ProcessInfo.processInfo.environment["LOOP_TEST_STOP_AT"], !value.isEmpty else { return nil }
        return value.hasSuffix(":pause") ? (String(value.dropLast(6)), true) : (value, false)
    }()

    private static let trace: Int32? = {
        guard let path = ProcessInfo.processInfo.environment["LOOP_TEST_TRACE"], !path.isEmpty else { return nil }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        return descriptor >= 0 ? descriptor : nil
    }()

    private static let paused = Atomic<Bool>(false)

    /// Marks the step `name`; stops here if a test asked to. A pause blocks the calling thread.
    public static func reached(_ name: String) {
        guard let marker = stop(at: name) else { return }
        for _ in 0..<6_000 where FileManager.default.fileExists(atPath: marker) { usleep(10_000) }
    }

    /// Marks the step `name` in async code; a pause suspends the task rather than blocking a
    /// thread that other work (an event loop) needs.
    public static func reachedWithoutBlocking(_ name: String) async {
        guard let marker = stop(at: name) else { return }
        for _ in 0..<6_000 where FileManager.default.fileExists(atPath: marker) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Traces the step, kills the process if asked, and returns the marker file of a pause to
    /// wait on (nil: go on).
    private static func stop(at name: String) -> String? {
        if let trace {
            let line = Array((name + "\n").utf8)
            _ = line.withUnsafeBytes { write(trace, $0.baseAddress, $0.count) }
        }
        guard let request, request.step == name else { return nil }
        guard request.pause, let marker = ProcessInfo.processInfo.environment["LOOP_TEST_STOP_FILE"] else {
            kill(getpid(), SIGKILL)
            return nil
        }
        guard !paused.exchange(true, ordering: .relaxed) else { return nil }
        _ = FileManager.default.createFile(atPath: marker, contents: Data(name.utf8))
        return marker
    }
}
