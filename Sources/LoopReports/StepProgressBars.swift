import LoopTerminal
import LoopWorkflows
import Synchronization

/// A progress bar for each step of a workflow, named as the command names it; a step's bar is
/// cleared when the next step begins.
public final class StepProgressBars: Sendable {
    private let names: [WorkStep: String]
    private let current = Mutex<(step: WorkStep, bar: ProgressBar)?>(nil)

    /// Bars named by `names` (a step not named shows its own name).
    public init(_ names: [WorkStep: String] = [:]) {
        self.names = names
    }

    /// The callback a workflow reports to.
    public var callback: WorkProgress {
        { [self] step, fraction in
            let bar = current.withLock { current -> ProgressBar in
                if let current, current.step == step { return current.bar }
                current?.bar.finish()
                let bar = ProgressBar(names[step] ?? Self.defaultName(step))
                current = (step, bar)
                return bar
            }
            bar.update(fraction)
        }
    }

    /// Clears the bar shown, if any.
    public func finish() {
        current.withLock { $0?.bar.finish() }
    }

    private static func defaultName(_ step: WorkStep) -> String {
        switch step {
        case .decoding: "decoding"
        case .importing: "importing"
        case .cutting: "segmenting"
        case .writing: "writing clips"
        case .saving: "saving"
        case .loading: "loading audio"
        }
    }
}
