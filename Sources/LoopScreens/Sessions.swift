import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows

extension StudySessionRunner {
    /// Shows `run`: the full-screen view when `fullScreen` (with the loop's pictures unless
    /// `images` is false), else a line a step (none unless `printing`); a review of one group
    /// (`run.reviewGroup`) asks its rating to go on. Each attempt shadowing scores is shown in
    /// `attemptWords`. What was studied comes back, phrase by phrase.
    public static func run(
        _ run: StudyRun, fullScreen: Bool, images: Bool, printing: Bool, title: String? = nil,
        attemptWords: @escaping @Sendable (AttemptScore?) -> String
    ) async throws -> StudyResult {
        guard fullScreen else {
            return try await runPlain(
                player: run.controls, groups: run.groups, printing: printing, shadowing: run.shadowing,
                attemptWords: attemptWords)
        }
        let choice = PictureChoice(run.loop)
        let pictures = images ? (choice, await PictureShelf.decode(choice.files)) : nil
        return try await runFullScreen(
            player: run.controls, title: title ?? run.loop.summary.title, groups: run.groups, pictures: pictures,
            rating: run.reviewGroup.map { .reviewing(group: $0) } ?? .atTheEnd, shadowing: run.shadowing,
            attemptWords: attemptWords)
    }
}

/// A take recorded for `loop record`: on the recording view at a terminal, else straight
/// through its input (to its end, or Ctrl-C).
public enum RecordingScreen {
    /// Records `session`'s phrases; how it ended.
    public static func run(_ session: RecordingSession, fullScreen: Bool, images: Bool) async throws
        -> RecordingStop
    {
        guard fullScreen else { return try await runPlain(session.controls) }
        let choice = PictureChoice(session.loop)
        let pictures = images ? (choice, await PictureShelf.decode(choice.files)) : nil
        return try await RecordingView.run(
            recorder: session.controls, title: session.loop.summary.title, phrases: session.phrases,
            pictures: pictures)
    }

    /// No terminal: run to the end of the input (or Ctrl-C), no keys.
    static func runPlain(_ recorder: any RecordingControls) async throws -> RecordingStop {
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        interrupt.setEventHandler { recorder.interrupt() }
        interrupt.resume()
        defer {
            interrupt.cancel()
            signal(SIGINT, SIG_DFL)
        }
        for await _ in recorder.start() {}
        return try await recorder.stopped()
    }
}
