import Foundation
import LoopModel
import LoopTerminal

/// The full-screen study view, drawn from the engine's display.
public struct StudyView {
    var title: String
    var groups: [[StudyPhrase]]
    var display: StudyDisplay
    var showTranslation: Bool
    var hideText: Bool
    var showHelp: Bool
    var terminal: Terminal
    var rows: Int
    var columns: Int
    /// The pictures to show (nil: none, as with `--no-images`) and the one for this moment.
    var pictures: PictureShelf? = nil
    var picture: String? = nil
    /// A question in place of the keys' line (the ratings asked after studying).
    var prompt: String? = nil
    /// Shadowing: the last attempt's score at the current phrase (nil: none yet), and whether
    /// attempts are recorded at all (the key to hear the model, then the attempt).
    var attemptLine: String? = nil
    var shadowing = false

    /// The keys, for `?`: laid out in as many columns as the screen holds.
    static let help = [
        "space  play / pause", "←/→  previous / next phrase", "↑/↓  previous / next group",
        "1-9  study that group", "shift+1-9 (!@#…)  add or remove a group", "a  all groups",
        "m  switch mode", "t  translation on/off", "h  hide the text (listening drill)",
        "+/-  faster / slower", "c  the model, then your last attempt (--shadow)", "?  this help", "q  quit",
    ]

    /// The keys' short line under the study, wrapped to the screen's width.
    static let keys = [
        "space pause", "←→ phrase", "↑↓ group", "1-9 select", "m mode", "t translation", "+/- speed", "? help",
        "q quit",
    ]

    /// The screen, as lines.
    var lines: [String] { layout().lines }

    /// The screen's lines, and where a pixel picture goes among them.
    func layout() -> (lines: [String], placement: PixelPlacement?) {
        var lines: [String] = []
        let status =
            "\(display.mode.title) · speed \(String(format: "%.1f", display.speed))x · repeats \(display.repeats) · round \(display.round)"
        lines.append(terminal.paint(title, .bold) + "  " + terminal.paint(status, .dim))

        // The groups as numbered blocks: selected ones marked, the current one pointed at.
        var blocks = ""
        for index in groups.indices {
            let selected = display.selection.contains(index)
            let current = index == display.group
            let label = (current ? "▸" : " ") + String(index + 1) + " "
            let block =
                selected
                ? (terminal.usesColor ? terminal.paint(label, .inverse) : "[" + label + "]")
                : (terminal.usesColor ? label : " " + label + " ")
            blocks += block + " "
        }
        lines.append("")
        lines.append(blocks)
        lines.append("")

        let group = groups[display.group]
        lines.append(terminal.paint("Group \(display.group + 1)", .cyan))
        for phrase in group {
            // A single phrase is pointed at; while a whole group plays, the one sounding; in the
            // silence to repeat the group aloud, every phrase with audio.
            let highlighted =
                display.phrase == phrase.number
                || (display.phrase == nil
                    && (display.sounding.map { $0 == phrase.number }
                        ?? (phrase.duration != nil && display.phase != .finished)))
            let marker = highlighted ? "▶ " : "  "
            var text = hideText ? String(repeating: "·", count: min(phrase.text.count, 40)) : phrase.text
            if phrase.duration == nil {
                text += "  (no audio)"
            } else if phrase.clipIsForEarlierText && !hideText {
                text += "  (recorded for an earlier text)"
            }
            var line = marker + (highlighted ? terminal.paint(text, .bold) : text)
            if showTranslation, let translation = phrase.translation, !hideText {
                line += terminal.paint("  · " + translation, .dim)
            }
            lines.append(line)
        }
        lines.append("")
        var footer: [String] = []
        let phase: String
        switch display.phase {
        case .listening: phase = "● listening"
        case .speakAlong: phase = "◆ your turn: say it along"
        case .repeatAloud: phase = "◆ your turn: repeat the group aloud"
        case .paused: phase = "‖ paused (space to go on)"
        case .finished: phase = "■ finished"
        }
        let position = display.phrase.map { number in "phrase \(number)" } ?? "whole group"
        footer.append(
            terminal.paint(phase, display.phase == .listening ? .green : .yellow) + "  " + position
                + " · play \(display.repetition) of \(display.repeats)")
        if shadowing {
            footer.append(
                "🎙 "
                    + (attemptLine.map { terminal.paint($0, .bold) }
                        ?? terminal.paint("say it along: you are recorded", .dim)))
        }
        footer.append("")
        if let prompt {
            footer += DisplayWidth.wrap(prompt.components(separatedBy: " · "), columns: columns).map {
                terminal.paint($0, .bold)
            }
        } else if showHelp {
            footer += DisplayWidth.table(Self.help, columns: columns)
        } else {
            let keys = shadowing ? Self.keys.dropLast(2) + ["c model, then mine"] + Self.keys.suffix(2) : Self.keys[...]
            footer += DisplayWidth.wrap(Array(keys), columns: columns).map { terminal.paint($0, .dim) }
        }
        // The picture in the rows the text leaves (at most 16), then the footer.
        var placement: PixelPlacement?
        if let pictures {
            let free = min(16, rows - lines.count - footer.count - 1)
            placement = pictures.place(picture, in: &lines, rows: free, columns: columns)
            if lines.last != "" { lines.append("") }
        }
        lines += footer
        // Every line cut to the screen's width, by the columns its characters take.
        return (lines.prefix(max(rows, 1)).map(fit), placement)
    }

    /// The whole frame, ready to write: home, each line cleared to its end, the rest cleared.
    var frame: String {
        let (lines, placement) = layout()
        if let pictures { return pictures.frame(lines, placement: placement) }
        return "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }

    /// Cuts a line to the screen width, by the columns its characters take.
    private func fit(_ line: String) -> String { DisplayWidth.fit(line, columns: columns) }
}
