import Foundation
import LoopFoundation
import Synchronization

/// The driver of the full-screen views (study, record): the terminal in raw mode on the
/// alternate screen, keys read on a thread of their own, and a redraw whenever the model
/// changes, a key is pressed or the window is resized. The terminal is put back however the
/// view ends (the model's stream ends, an error, SIGTERM).
public enum FullScreen {
    /// What wakes the view.
    public enum Event: Sendable {
        case key(Key)
        case update
        case resize
        case terminate
    }

    /// Runs the view until `updates` ends. `prepare` may ask the terminal something before the
    /// keys are read; `render` draws a frame for the screen's size; `handle` reacts to a key
    /// (or to SIGTERM: `.interrupt`).
    public static func run<Update: Sendable>(
        updates: AsyncStream<Update>, prepare: (RawTerminal) -> Void = { _ in },
        render: (_ rows: Int, _ columns: Int) -> String, handle: (Key) -> Void
    ) async throws {
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        prepare(terminal)
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let stopKeys = StopSignal()
        defer { stopKeys.stop() }
        // Keys: read on a thread of their own, in 50 ms polls so the thread notices the end.
        _ = BlockingWork.start("loop keys") {
            var pending: [UInt8] = []
            while !stopKeys.isStopped {
                if let key = RawTerminal.readKey(from: &pending, timeout: 50) { continuation.yield(.key(key)) }
            }
        }
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        signal(SIGWINCH, SIG_IGN)
        resize.setEventHandler { continuation.yield(.resize) }
        resize.resume()
        let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        signal(SIGTERM, SIG_IGN)
        termination.setEventHandler { continuation.yield(.terminate) }
        termination.resume()
        defer {
            resize.cancel()
            termination.cancel()
            signal(SIGWINCH, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        let model = Task {
            for await _ in updates { continuation.yield(.update) }
            continuation.finish()
        }
        defer { model.cancel() }

        RawTerminal.write(render(terminal.size.rows, terminal.size.columns))
        for await event in events {
            switch event {
            case .key(let key): handle(key)
            case .terminate: handle(.interrupt)
            case .update, .resize: break
            }
            let size = terminal.size
            RawTerminal.write(render(size.rows, size.columns))
        }
        terminal.restore()
    }
}

/// Tells a thread of its own to stop at its next look.
public final class StopSignal: Sendable {
    private let stopped = Atomic<Bool>(false)
    /// Asks the thread to stop.
    public func stop() { stopped.store(true, ordering: .relaxed) }
    /// Whether it was asked to stop.
    public var isStopped: Bool { stopped.load(ordering: .relaxed) }
}
