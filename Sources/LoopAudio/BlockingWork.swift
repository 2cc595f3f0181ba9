import Foundation

/// The one way blocking work runs (decoding, segmenting, file and database I/O, a device's
/// reads and writes): on a thread of its own, so that neither the main thread nor Swift's
/// cooperative pool ever waits on it. The result comes back through `async`.
public enum BlockingWork {
    /// Runs `work` on a new thread and returns its result. `name` shows in debuggers and crash
    /// reports.
    public static func run<Result: Sendable>(
        _ name: String = "loop blocking work", _ work: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
            }
            thread.name = name
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
