import Foundation

/// Runs blocking work (decoding, segmenting, file I/O) on a thread of its own, so neither the
/// main thread nor Swift's cooperative pool waits on it.
enum BlockingWork {
    static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do { continuation.resume(returning: try work()) } catch { continuation.resume(throwing: error) }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
