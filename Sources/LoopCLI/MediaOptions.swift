import ArgumentParser
import Foundation
import LoopTerminal
import LoopText
import LoopWorkflows
import Synchronization

/// How a command reads its take: any audio or video file (FFmpeg's libraries decode what
/// libsndfile does not), and which of its audio streams.
struct MediaOptions: ParsableArguments {
    @Option(
        name: .customLong("stream"), parsing: .unconditional,
        help: ArgumentHelp(
            "Of a video or a file with several audio streams, the audio stream to read, counted from 0 (default: the main one).",
            valueName: "n"))
    var stream: Int?

    func validate() throws {
        if let stream, !(0...99).contains(stream) {
            throw ValidationError("--stream takes an audio stream number from 0, not \(stream)")
        }
    }

    /// The file at `path` as the workflows read it. Decoding runs in a `loop decode-media`
    /// process (this program), so that FFmpeg's memory is not added to what follows.
    func file(_ path: String) -> MediaFile {
        let own =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let decoder =
            FileManager.default.isExecutableFile(atPath: own) && (own as NSString).lastPathComponent == "loop"
            ? own : nil
        return MediaFile(path, stream: stream, decoder: decoder)
    }
}

/// A progress bar for each step of a workflow, named as the command names it; a step's bar is
/// cleared when the next step begins.
final class StepProgressBars: Sendable {
    private let names: [WorkStep: String]
    private let current = Mutex<(step: WorkStep, bar: ProgressBar)?>(nil)

    init(_ names: [WorkStep: String] = [:]) {
        self.names = names
    }

    /// The callback a workflow reports to.
    var callback: WorkProgress {
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
    func finish() {
        current.withLock { $0?.bar.finish() }
    }

    private static func defaultName(_ step: WorkStep) -> String {
        switch step {
        case .decoding: "decoding"
        case .importing: "importing"
        case .cutting: "segmenting"
        case .writing: "writing clips"
        }
    }
}

/// The check every `--language` option makes: a language code (``LanguageCode``), never a path
/// or anything else that would reach the synthesizer's data folder.
enum LanguageOption {
    static func check(_ value: String?, option: String = "--language") throws {
        guard let value, let problem = LanguageCode.problem(value) else { return }
        throw ValidationError("\(option) \(problem)")
    }
}
