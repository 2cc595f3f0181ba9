import Foundation
import Synchronization

/// A progress bar on standard error, shown only on a terminal and only once work has taken
/// more than a second. Safe to update from the worker thread.
public final class ProgressBar: Sendable {
    private struct State {
        var shown = false
        var lastDraw = 0.0
    }

    private let label: String
    private let enabled: Bool
    private let width: Int
    private let started = Date()
    private let state = Mutex(State())

    /// A bar labelled `label` on standard error, drawn only on a terminal.
    public init(_ label: String) {
        let terminal = Terminal.standardError()
        self.label = label
        self.enabled = terminal.isInteractive
        self.width = max(10, min(40, terminal.width - label.count - 12))
    }

    /// Reports the share done (0...1).
    public func update(_ fraction: Double) {
        guard enabled else { return }
        let elapsed = Date().timeIntervalSince(started)
        guard elapsed > 1 else { return }
        state.withLock { state in
            guard elapsed - state.lastDraw > 0.1 || fraction >= 1 else { return }
            state.lastDraw = elapsed
            state.shown = true
            let filled = Int((fraction * Double(width)).rounded())
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            StandardError.write("\r\(label) \(bar) \(Int((fraction * 100).rounded()))%")
        }
    }

    /// Clears the bar, if one was drawn.
    public func finish() {
        state.withLock { state in
            if state.shown { StandardError.write("\r\u{1B}[2K") }
            state.shown = false
        }
    }

    /// A callback for library code.
    public var callback: @Sendable (Double) -> Void { { [self] in update($0) } }
}
