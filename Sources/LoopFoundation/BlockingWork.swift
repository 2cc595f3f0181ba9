import Foundation
import Synchronization

/// The one way blocking work runs (decoding, segmenting, file and database I/O, a device's
/// reads and writes): on a thread of its own, started at once, so that neither the main thread
/// nor Swift's cooperative pool ever waits on it (and it never waits for a free thread of the
/// pool to begin). The result comes back through `async`.
public enum BlockingWork {
    /// Runs `work` on a new thread and returns its result. `name` shows in debuggers and crash
    /// reports.
    public static func run<Result: Sendable>(
        _ name: String = "loop blocking work", _ work: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        try await start(name, work).value
    }

    /// Starts `work` on a new thread now; its result is the task's ``BlockingTask/value``.
    public static func start<Result: Sendable>(
        _ name: String = "loop blocking work", _ work: @escaping @Sendable () throws -> Result
    ) -> BlockingTask<Result> {
        let task = BlockingTask<Result>()
        let thread = Thread { task.complete(Swift.Result { try work() }) }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
        return task
    }
}

/// Work running on a thread of its own, and its result once it is done.
public final class BlockingTask<Success: Sendable>: Sendable {
    private struct State {
        var result: Result<Success, any Error>?
        var waiting: [CheckedContinuation<Success, any Error>] = []
    }
    private let state = Mutex(State())

    fileprivate init() {}

    fileprivate func complete(_ result: Result<Success, any Error>) {
        let waiting = state.withLock { state in
            state.result = result
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(with: result) }
    }

    /// The work's result, once it is done.
    public var value: Success {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let done = state.withLock { state -> Result<Success, any Error>? in
                    if state.result == nil { state.waiting.append(continuation) }
                    return state.result
                }
                if let done { continuation.resume(with: done) }
            }
        }
    }

    /// Whether the work has ended.
    public var isDone: Bool { state.withLock { $0.result != nil } }
}
