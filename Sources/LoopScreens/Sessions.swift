import Foundation
import LoopFoundation
import LoopModel
import LoopPlayback
import LoopRecording
import LoopStudy
import LoopTerminal
import LoopWorkflows

extension StudySessionRunner {
    /// A session of `player` over `prepared`: the full-screen view when `fullScreen` (with the
    /// loop's pictures unless `images` is false), else a line a step (none unless `printing`).
    /// What was studied comes back, phrase by phrase.
    public static func run(
        player: StudyPlayer, prepared: PreparedStudy, fullScreen: Bool, images: Bool, printing: Bool,
        rating: Rating = .atTheEnd, title: String? = nil, shadowing: ShadowingSession? = nil
    ) async throws -> StudyOutcome {
        guard fullScreen else {
            return try await runPlain(
                player: player, groups: prepared.groups, printing: printing, shadowing: shadowing)
        }
        let choice = PictureChoice(prepared.loop)
        let pictures = images ? (choice, await PictureShelf.decode(choice.files)) : nil
        return try await runFullScreen(
            player: player, title: title ?? prepared.loop.summary.title, groups: prepared.groups, pictures: pictures,
            rating: rating, shadowing: shadowing)
    }
}

/// A take recorded for `loop record`: on the recording view at a terminal, else straight
/// through its input (to its end, or Ctrl-C).
public enum RecordingSession {
    /// Records `plan` with `recorder`; whether the take is to be saved. A take quit is deleted;
    /// an interrupted one is kept, and the line says how to save it.
    public static func run(
        _ recorder: TakeRecorder, plan: RecordingWorkflow.Plan, fullScreen: Bool, images: Bool
    ) async throws -> Bool {
        let stop: TakeRecording.Stop
        if fullScreen {
            let choice = PictureChoice(plan.loop)
            let pictures = images ? (choice, await PictureShelf.decode(choice.files)) : nil
            stop = try await RecordingView.run(
                recorder: recorder, title: plan.loop.summary.title, phrases: plan.phrases, pictures: pictures)
        } else {
            stop = try await runPlain(recorder)
        }
        switch stop {
        case .finish: break
        case .quit:
            recorder.delete()
            return false
        case .interrupt:
            StandardError.write(
                String(
                    format: "interrupted: the take (%.1f s) is kept; `loop record %@ --recover` saves it\n",
                    recorder.status.seconds, String(plan.loop.summary.id.prefix(8))))
            return false
        }
        let overruns = recorder.status.overruns
        if overruns > 0 {
            StandardError.write(
                "warning: the input overran \(overruns) time\(overruns == 1 ? "" : "s"): this machine fell behind and some audio was lost; listen to the cuts\n"
            )
        }
        return true
    }

    /// No terminal: run to the end of the input (or Ctrl-C), no keys.
    static func runPlain(_ recorder: TakeRecorder) async throws -> TakeRecording.Stop {
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

extension PhraseEditorScreen {
    /// The phrase editor on loop `id` of `library`, then the save asked for: the loop as saved
    /// (and how many groups being reviewed changed their text), or nil when nothing was. Playing on `playbackDevice`, recording again from
    /// `captureDevice` at `captureRate`.
    public static func edit(
        loop id: String, of library: Library, playbackDevice: String, captureDevice: String, captureRate: Int
    ) async throws -> (loop: LoopDetail, reviewsRestarted: Int)? {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(
                .notATerminal,
                "the phrase editor needs a terminal (edit the text with `loop edit` and clip times with `loop adjust`)")
        }
        let workflow = try PhraseEditingWorkflow(library: library, loop: id)
        defer { workflow.close() }
        let progress = ProgressBar("reading the takes")
        try await workflow.measureTakes(progress: progress.callback)
        progress.finish()
        let (editor, save) = try await run(
            workflow: workflow, title: try library.title(ofLoop: id), playbackDevice: playbackDevice,
            captureDevice: captureDevice, captureRate: captureRate)
        guard save, editor.hasUnsavedChanges else { return nil }
        let saved = try await workflow.save(editor)
        return (saved, workflow.reviewsRestartedSoFar)
    }
}

extension EditingWorkflow {
    /// Opens the text of loop `id` in the person's editor, then takes what they saved: what
    /// changed, or nil when nothing did. What they typed before an editor failed is kept, and
    /// the error names where.
    public func editText(ofLoop id: String, dropChangedAudio: Bool) throws -> EditOutcome? {
        let draft = try beginTextEdit(loop: id)
        do {
            try ExternalEditor.open(draft.path)
        } catch let error as TerminalError where !draft.isUnchanged {
            throw TerminalError(error.kind, error.message + "; your text is kept in \(draft.keep())")
        }
        guard case .edited(let outcome) = try finishTextEdit(draft, dropChangedAudio: dropChangedAudio) else {
            return nil
        }
        return outcome
    }
}
