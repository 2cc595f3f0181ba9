import Foundation
import LoopModel
import LoopTerminal

/// The full-screen recording view: the text with the phrase to read next highlighted, a level
/// meter with a clipping warning, and the keys. The terminal is put back however it ends.
public enum RecordingView {
    /// `pictures` are the decoded pictures and which to show where (nil: none).
    public static func run(
        recorder: any RecordingControls, title: String, phrases: [StoredPhrase],
        pictures: (choice: PictureChoice, decoded: DecodedPictures)? = nil
    ) async throws -> RecordingStop {
        var confirmingQuit = false
        let style = Terminal.standardOutput()
        var shelf: PictureShelf?
        try await FullScreen.run(updates: recorder.start()) { terminal in
            shelf = pictures.map { PictureShelf(terminal: terminal, decoded: $0.decoded) }
        } render: { rows, columns in
            let status = recorder.status
            let next = phrases.indices.contains(status.phrase) ? phrases[status.phrase] : phrases.last
            let picture = next.flatMap { pictures?.choice.path(group: $0.group - 1, phrase: $0.number) }
            return frame(
                status, title: title, phrases: phrases, confirmingQuit: confirmingQuit, terminal: style, rows: rows,
                columns: columns,
                pictures: shelf, picture: picture)
        } handle: { key in
            if confirmingQuit {
                if key == .character("y") || key == .character("Y") { recorder.quit() }
                confirmingQuit = false
                return
            }
            switch key {
            case .character("r"): recorder.rerecord()
            case .character("b"): recorder.back()
            case .character(" "): recorder.togglePause()
            case .character("\r"), .character("\n"): recorder.finish()
            case .character("q"): confirmingQuit = true
            case .interrupt: recorder.interrupt()
            default: break
            }
        }
        return try await recorder.stopped()
    }

    static func frame(
        _ status: RecordingStatus, title: String, phrases: [StoredPhrase], confirmingQuit: Bool, terminal: Terminal,
        rows: Int = 24, columns: Int,
        pictures: PictureShelf? = nil, picture: String? = nil
    ) -> String {
        var lines: [String] = []
        let state = status.paused ? "paused" : (status.speaking ? "hearing you" : "recording")
        lines.append(
            terminal.paint(title, .bold)
                + String(
                    format: "  %@ · %d of %d phrases done · %d:%04.1f", state, min(status.phrase, status.phraseCount),
                    status.phraseCount,
                    Int(status.seconds) / 60, status.seconds.truncatingRemainder(dividingBy: 60)))
        let width = max(10, min(40, columns - 30))
        let share = Double(max(0, min(1, (status.level + 60) / 60)))
        let bar =
            String(repeating: "█", count: Int(share * Double(width)))
            + String(repeating: "░", count: width - Int(share * Double(width)))
        var meter =
            "level " + terminal.paint(bar, status.clipping ? .red : .green) + String(format: " %4.0f dB", status.level)
        if status.clipping {
            meter += "  " + terminal.paint("CLIPPING: move back from the microphone or lower the input", .red)
        }
        lines.append(meter)
        if status.overruns > 0 {
            lines.append(terminal.paint("the input overran \(status.overruns)×: audio was lost", .yellow))
        }
        lines.append("")
        // The group of the phrase expected next, whole, with that phrase highlighted.
        let current =
            phrases.indices.contains(status.phrase) ? phrases[status.phrase].group : (phrases.last?.group ?? 1)
        lines.append(terminal.paint("Group \(current)", .cyan))
        for (index, phrase) in phrases.enumerated() where phrase.group == current {
            let marker = index < status.phrase ? "✓ " : (index == status.phrase ? "▶ " : "  ")
            lines.append(marker + (index == status.phrase ? terminal.paint(phrase.text, .bold) : phrase.text))
        }
        lines.append("")
        var placement: PixelPlacement?
        if let pictures {
            placement = pictures.place(picture, in: &lines, rows: min(16, rows - lines.count - 2), columns: columns)
            if lines.last != "" { lines.append("") }
        }
        if confirmingQuit {
            lines.append(terminal.paint("Quit without saving this take? y to quit, any other key to go on", .yellow))
        } else if status.paused && status.phrase < status.phraseCount {
            lines.append(terminal.paint("Paused: space records the next phrase · enter finish and save", .yellow))
        } else if status.phrase >= status.phraseCount {
            lines.append(terminal.paint("All phrases read: enter saves, b goes back one", .green))
        } else {
            lines.append(
                terminal.paint("r read it again · b back one · space pause · enter finish and save · q quit", .dim))
        }
        let fitted = lines.prefix(max(rows, 1)).map { DisplayWidth.fit($0, columns: columns) }
        if let pictures { return pictures.frame(fitted, placement: placement) }
        return "\u{1B}[H" + fitted.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }
}
