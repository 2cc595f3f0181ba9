import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows
import Synchronization

/// `loop edit LOOP --phrases`: the loop's text full screen, the phrase at the cursor
/// highlighted with its clip's times and a waveform strip; keys play, nudge, record again,
/// split, merge, undo and redo. Nothing is written until the editor saves (`w`, or on leaving,
/// confirmed), and then in one transaction.
public enum PhraseEditorScreen {
    /// The keys, wrapped to the screen's width under the editor.
    static let help = [
        "↑↓ phrase", "[ ] group", "←→ split point", "space play", "a auto-play on/off", "d next doubtful cut",
        ", . start −/+10 ms", "< > start −/+100 ms", "- = end −/+10 ms", "_ + end −/+100 ms",
        "b n the second before / after the end", "B N before / after the start", "r record again",
        "x split at the split point", "m merge with the next", "u undo", "U redo", "w save", "q quit",
    ]

    /// What the screen is doing besides editing.
    enum Mode: Equatable {
        case editing
        /// Asking whether to save before leaving.
        case confirmingQuit
        /// Recording the phrase at the cursor again.
        case recording
    }

    /// The screen's state, shared by the key handler, the renderer and the background work.
    struct State {
        var editor: PhraseEditor
        var mode = Mode.editing
        var autoplay = true
        var message: String?
        var recorder: (any RecordingControls)?
        /// How the screen ended: save on the way out, or not.
        var saveOnExit = false
    }

    /// The state behind a lock, shared by the key handler, the renderer and the tasks.
    final class Shared: Sendable {
        private let state: Mutex<State>
        init(_ initial: State) { state = Mutex<State>(initial) }
        func withLock<T>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }
    }

    /// Runs the screen; returns the editor as left, and whether to save it.
    public static func run(_ workflow: PhraseEditingSession) async throws -> (PhraseEditor, save: Bool) {
        let title = workflow.title
        let state = Shared(State(editor: try workflow.editor()))
        let (updates, continuation) = AsyncStream.makeStream(of: Void.self)
        let style = Terminal.standardOutput()
        let finish = { continuation.finish() }
        if let clip = state.withLock({ $0.editor.current.clip }) { workflow.play(clip) }

        try await FullScreen.run(updates: updates) { rows, columns in
            let snapshot = state.withLock { $0 }
            return frame(
                snapshot, title: title, workflow: workflow, terminal: style, rows: rows, columns: columns,
                playerFailure: workflow.playbackFailure())
        } handle: { key in
            let recording = state.withLock { $0.mode == .recording }
            if recording {
                // Escape (or q) throws the new recording away; Ctrl-C too.
                if key == .escape || key == .character("q") || key == .interrupt {
                    state.withLock { $0.recorder?.quit() }
                }
                return
            }
            var play: EditorClip?
            var listen: EditorClip?
            var startRecording = false
            state.withLock { state in
                state.message = nil
                if state.mode == .confirmingQuit {
                    switch key {
                    case .character("y"), .character("Y"):
                        state.saveOnExit = true
                        finish()
                    case .character("n"), .character("N"): finish()
                    default: state.mode = .editing
                    }
                    return
                }
                let before = state.editor.cursor
                do {
                    switch key {
                    case .down, .character("j"): state.editor.move(phrases: 1)
                    case .up, .character("k"): state.editor.move(phrases: -1)
                    case .character("d"):
                        if state.editor.moveToNextDoubtfulClip() {
                            play = state.editor.current.clip
                        } else {
                            state.message =
                                "no doubtful cut left: every clip the cutter was unsure of has been moved, or none was"
                        }
                    case .character("]"): state.editor.move(groups: 1)
                    case .character("["): state.editor.move(groups: -1)
                    case .right: state.editor.moveInText(1)
                    case .left: state.editor.moveInText(-1)
                    case .character(" "), .character("p"): play = state.editor.current.clip
                    case .character("a"):
                        state.autoplay.toggle()
                        state.message = "auto-play " + (state.autoplay ? "on" : "off")
                    case .character(","):
                        try state.editor.nudge(.start, milliseconds: -10)
                        play = state.editor.current.clip
                    case .character("."):
                        try state.editor.nudge(.start, milliseconds: 10)
                        play = state.editor.current.clip
                    case .character("<"):
                        try state.editor.nudge(.start, milliseconds: -100)
                        play = state.editor.current.clip
                    case .character(">"):
                        try state.editor.nudge(.start, milliseconds: 100)
                        play = state.editor.current.clip
                    case .character("-"):
                        try state.editor.nudge(.end, milliseconds: -10)
                        play = state.editor.current.clip
                    case .character("="):
                        try state.editor.nudge(.end, milliseconds: 10)
                        play = state.editor.current.clip
                    case .character("_"):
                        try state.editor.nudge(.end, milliseconds: -100)
                        play = state.editor.current.clip
                    case .character("+"):
                        try state.editor.nudge(.end, milliseconds: 100)
                        play = state.editor.current.clip
                    case .character("b"), .character("n"), .character("B"), .character("N"):
                        let before = key == .character("b") || key == .character("B")
                        let edge: PhraseEditor.Edge = key == .character("b") || key == .character("n") ? .end : .start
                        if let second = state.editor.second(before, edge) {
                            listen = second
                            state.message =
                                (before ? "the second before the " : "the second after the ")
                                + (edge == .end ? "end" : "start")
                        } else {
                            state.message = "phrase \(state.editor.cursor + 1) has no audio: record it (r)"
                        }
                    case .character("x"):
                        let frame = try workflow.splitFrame(for: state.editor)
                        try state.editor.split(atFrame: frame)
                        let rate = Double(state.editor.current.clip?.sampleRate ?? 1)
                        state.message =
                            "split in two"
                            + (frame.map { String(format: " (audio at %.2f s)", Double($0) / rate) } ?? "")
                        play = state.editor.current.clip
                    case .character("m"):
                        try state.editor.mergeWithNext(joined: try workflow.joinedClip(for: state.editor))
                        state.message = "merged with the next phrase"
                        play = state.editor.current.clip
                    case .character("u"):
                        guard state.editor.canUndo else {
                            state.message = "nothing to undo"
                            break
                        }
                        state.editor.undo()
                        state.message = "undone"
                    case .character("U"), .character("\u{12}"):
                        guard state.editor.canRedo else {
                            state.message = "nothing to redo"
                            break
                        }
                        state.editor.redo()
                        state.message = "redone"
                    case .character("r"): startRecording = true
                    case .character("w"): state.message = "saving…"
                    case .character("q"), .interrupt, .escape:
                        if state.editor.hasUnsavedChanges { state.mode = .confirmingQuit } else { finish() }
                    default: break
                    }
                } catch {
                    state.message = "\(error)"
                }
                if state.editor.cursor != before, state.autoplay { play = state.editor.current.clip }
            }
            if let play { workflow.play(play) }
            if let listen { workflow.play(listen) }
            if key == .character("w") { save(state: state, workflow: workflow, continuation: continuation) }
            if startRecording {
                record(state: state, workflow: workflow, continuation: continuation)
            }
        }
        workflow.stopPlaying()
        let ended = state.withLock { $0 }
        return (ended.editor, ended.saveOnExit)
    }

    /// Saves now (`w`), off the terminal's loop; the screen says how it went.
    private static func save(
        state: Shared, workflow: PhraseEditingSession, continuation: AsyncStream<Void>.Continuation
    ) {
        let editor = state.withLock { $0.editor }
        guard editor.hasUnsavedChanges else {
            state.withLock { $0.message = "nothing to save" }
            return
        }
        Task {
            do {
                _ = try await workflow.save(editor)
                state.withLock {
                    $0.editor.markSaved(as: editor)
                    $0.message = "saved"
                }
            } catch {
                state.withLock { $0.message = "not saved: \(error)" }
            }
            continuation.yield()
        }
    }

    /// Records the phrase at the cursor again: capture until the phrase ends (its pause heard),
    /// then cut by its silences; the new clip replaces the old (undoable).
    private static func record(
        state: Shared, workflow: PhraseEditingSession, continuation: AsyncStream<Void>.Continuation
    ) {
        workflow.stopPlaying()
        let recorder: any RecordingControls
        do {
            let editor = state.withLock { $0.editor }
            recorder = try workflow.rerecord(editor)
        } catch {
            state.withLock { $0.message = "cannot record: \(error)" }
            return
        }
        state.withLock {
            $0.mode = .recording
            $0.recorder = recorder
        }
        Task {
            for await status in recorder.start() {
                // One phrase read and its pause heard: that is the take.
                if status.phrase >= 1 && !status.finished { recorder.finish() }
                continuation.yield()
            }
            var clip: EditorClip?
            var problem: String?
            do {
                if try await recorder.stopped() == .finish {
                    clip = try await workflow.rerecordedClip()
                } else {
                    recorder.delete()
                }
            } catch {
                problem = "\(error)"
            }
            state.withLock { state in
                state.mode = .editing
                state.recorder = nil
                if let clip {
                    state.editor.replaceClip(clip)
                    state.message = String(
                        format: "recorded again (%.2f s)", Double(clip.frames.count) / Double(clip.sampleRate))
                } else {
                    state.message = problem.map { "not recorded: \($0)" } ?? "recording thrown away"
                }
            }
            if let clip { workflow.play(clip) }
            continuation.yield()
        }
    }

    // MARK: Drawing

    static func frame(
        _ state: State, title: String, workflow: PhraseEditingSession, terminal: Terminal, rows: Int, columns: Int,
        playerFailure: String?
    ) -> String {
        let editor = state.editor
        var lines: [String] = []
        let current = editor.current
        let (group, _) = editor.place(of: editor.cursor)
        var status = ["phrase \(editor.cursor + 1) of \(editor.phrases.count)", "group \(group + 1)"]
        if let clip = current.clip {
            status.append(
                String(
                    format: "%.3f – %.3f s (%.2f s)", clip.startSeconds, clip.endSeconds,
                    clip.endSeconds - clip.startSeconds))
            if clip.sha256 == nil { status.append("new take") }
            if let confidence = clip.confidence, clip.isDoubtful {
                status.append(String(format: "doubtful cut (%.2f)", confidence))
            }
        } else {
            status.append("needs audio")
        }
        status.append("auto-play " + (state.autoplay ? "on" : "off"))
        if editor.hasUnsavedChanges { status.append("unsaved changes") }
        // The title, then the status wrapped to the screen's width beside it (under it when the
        // title is long): nothing of it cut off.
        let title = Terminal.inert(title)
        let indent = DisplayWidth.of(title) + 2 <= columns / 2 ? DisplayWidth.of(title) + 2 : 0
        let statusLines = DisplayWidth.wrap(status, columns: columns - indent)
        if indent == 0 { lines.append(terminal.paint(title, .bold)) }
        for (index, line) in statusLines.enumerated() {
            let start =
                indent == 0
                ? "" : index == 0 ? terminal.paint(title, .bold) + "  " : String(repeating: " ", count: indent)
            lines.append(start + terminal.paint(line, .dim))
        }
        lines.append("")

        // The text, around the cursor: every group, the phrase at the cursor marked.
        let help = DisplayWidth.wrap(Self.help, separator: "   ", columns: columns)
        let footerRows = 4 + help.count + 4
        let room = max(3, rows - lines.count - footerRows)
        var body: [(line: String, phrase: Int?)] = []
        var index = 0
        for (number, phrases) in editor.groups.enumerated() {
            if number > 0 { body.append(("", nil)) }
            body.append((terminal.paint("Group \(number + 1)", .cyan), nil))
            for phrase in phrases {
                let marker = index == editor.cursor ? "▶ " : "  "
                var text = Terminal.inert(phrase.text)
                if phrase.clip == nil { text += terminal.paint("  (needs audio)", .yellow) }
                if phrase.clip?.isDoubtful == true { text += terminal.paint("  (doubtful cut)", .yellow) }
                body.append((marker + (index == editor.cursor ? terminal.paint(text, .inverse) : text), index))
                index += 1
            }
        }
        let at = body.firstIndex { $0.phrase == editor.cursor } ?? 0
        let first = max(0, min(at - room / 2, body.count - room))
        lines += body[first..<min(body.count, first + room)].map(\.line)
        lines.append("")

        // The split point in the text, and the clip's waveform with its edges.
        let characters = Array(current.text)
        let split =
            Terminal.inert(String(characters[..<min(editor.textCursor, characters.count)]))
            + terminal.paint("│", .yellow)
            + Terminal.inert(String(characters[min(editor.textCursor, characters.count)...]))
        lines.append("split point: " + split)
        if let clip = current.clip, let envelope = try? workflow.levels(of: clip.take) {
            lines += waveform(envelope, clip: clip, width: max(20, min(columns - 2, 120)), terminal: terminal)
        } else {
            lines += ["", ""]
        }
        lines.append("")
        switch state.mode {
        case .confirmingQuit:
            lines.append(
                terminal.paint(
                    "Save your changes? y save and quit · n quit without saving · any other key to go on", .yellow))
        case .recording:
            let status = state.recorder?.status
            let level = status.map { String(format: "%4.0f dB", $0.level) } ?? ""
            lines.append(
                terminal.paint(
                    "● recording phrase \(editor.cursor + 1): read it, then pause · \(level) · esc throws it away", .red
                ))
        case .editing:
            lines.append(
                state.message.map { terminal.paint($0, .green) } ?? playerFailure.map { terminal.paint($0, .yellow) }
                    ?? "")
        }
        lines += help.map { terminal.paint($0, .dim) }
        let fitted = lines.prefix(max(rows, 1)).map { DisplayWidth.fit($0, columns: columns) }
        return "\u{1B}[H" + fitted.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }

    /// The clip's stretch of its take with 300 ms either side, as levels, and a line under it
    /// marking the clip's start and end (`┃`).
    static func waveform(_ envelope: TakeLevels, clip: EditorClip, width: Int, terminal: Terminal) -> [String] {
        let context = clip.sampleRate * 3 / 10
        let from = max(0, clip.frames.lowerBound - context)
        let to = min(envelope.frameCount, clip.frames.upperBound + context)
        guard to > from, !envelope.levels.isEmpty else { return ["", ""] }
        let hop = envelope.hopFrames
        let blocks = Array(" ▁▂▃▄▅▆▇█")
        let low = envelope.levels.sorted()[envelope.levels.count / 20]
        let high = envelope.levels.max() ?? 0
        var wave = ""
        var marks = ""
        let framesPerColumn = Double(to - from) / Double(width)
        let startColumn = Int(Double(clip.frames.lowerBound - from) / framesPerColumn)
        let endColumn = min(width - 1, Int(Double(clip.frames.upperBound - from) / framesPerColumn))
        for column in 0..<width {
            let a = (from + Int(Double(column) * framesPerColumn)) / hop
            let b = max(a + 1, (from + Int(Double(column + 1) * framesPerColumn)) / hop)
            let level = envelope.levels[min(a, envelope.levels.count - 1)..<min(b, envelope.levels.count)].max() ?? low
            let share = high > low ? Double((level - low) / (high - low)) : 0
            wave.append(blocks[min(blocks.count - 1, max(0, Int((share * Double(blocks.count - 1)).rounded())))])
            marks +=
                column == startColumn || column == endColumn
                ? "┃" : (startColumn < column && column < endColumn ? "─" : " ")
        }
        return [terminal.paint(wave, .cyan), terminal.paint(marks, .yellow)]
    }
}
