import Foundation
import LoopModel
import LoopTerminal

/// The human view of a stored loop.
public struct LoopView {
    /// The loop shown.
    public var loop: LoopDetail
    /// The terminal it is shown on.
    public var terminal: Terminal

    /// The view of `loop` on `terminal`.
    public init(loop: LoopDetail, terminal: Terminal) {
        self.loop = loop
        self.terminal = terminal
    }

    /// The view as lines of text.
    public var text: String {
        let summary = loop.summary
        var heading =
            terminal.paint(Terminal.inert(summary.title), .bold) + "  "
            + terminal.paint(String(summary.id.prefix(8)), .dim)
        if let language = summary.language {
            heading += "  " + Terminal.inert(language + (summary.translationLanguage.map { " → " + $0 } ?? ""))
        }
        var lines = [heading]
        if !summary.tags.isEmpty { lines.append("tags: " + Terminal.inert(summary.tags.joined(separator: ", "))) }
        if let picture = loop.picture { lines.append("picture: " + Self.describe(picture)) }
        let width = String(summary.phraseCount).count
        for (index, group) in loop.groups.enumerated() {
            lines.append("")
            var heading = terminal.paint("Group \(index + 1)", .cyan)
            if loop.groupPictures.indices.contains(index), let picture = loop.groupPictures[index] {
                heading += terminal.paint("  picture: " + Self.describe(picture), .dim)
            }
            lines.append(heading)
            for phrase in group {
                let number = String(repeating: " ", count: width - String(phrase.number).count) + String(phrase.number)
                let times =
                    phrase.audio.map { String(format: "%7.2f – %7.2f", $0.startSeconds, $0.endSeconds) }
                    ?? terminal.paint("  needs audio    ", .yellow)
                var line = "  \(number)  \(times)  \(Terminal.inert(phrase.text))"
                if let translation = phrase.translation {
                    line += terminal.paint("  · " + Terminal.inert(translation), .dim)
                }
                if phrase.clipIsForEarlierText, let recorded = phrase.recordedText {
                    line += terminal.paint("  (recorded as “\(Terminal.inert(recorded))”)", .yellow)
                }
                if let picture = phrase.picture {
                    line += terminal.paint("  [picture: " + Self.describe(picture) + "]", .dim)
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// "PNG 640×480".
    public static func describe(_ picture: StoredPicture) -> String {
        "\(picture.formatName) \(picture.width)×\(picture.height)"
    }
}
