import ArgumentParser
import Foundation
import LoopModel
import LoopPictures
import LoopTerminal
import LoopWorkflows

/// `--library`, shared by every command that uses the library.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The library folder.", discussion: "Default: $LOOP_LIBRARY, else $XDG_DATA_HOME/loop, else ~/.local/share/loop.", valueName: "path"))
    var library: String?

    var path: String { Library.path(flag: library) }

    func validate() throws {
        if let library, library.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--library is empty: name the library folder, or leave the option out for the default")
        }
    }

    /// The library, for a command that changes it.
    func open() throws -> Library {
        prepare()
        return try Library.open(at: path, onUpdate: Self.sayUpdating)
    }

    /// The library, for a command that only reads it: one read-only connection, no write and
    /// no lock (unless the library must first be created or brought up to date).
    func openForReading() throws -> Library {
        prepare()
        return try Library.openForReading(at: path, onUpdate: Self.sayUpdating)
    }

    /// SQLite's own temporary files (large sorts during an import) stay in the library's folder
    /// rather than /var/tmp; read once, when SQLite starts.
    private func prepare() { setenv("SQLITE_TMPDIR", path, 0) }

    /// Quiet unless someone is watching: a migration may take a few seconds, once.
    private static func sayUpdating() {
        if Terminal.standardError().isInteractive {
            StandardError.write("Updating the library for this version of loop...\n")
        }
    }
}

/// The human view of a stored loop.
struct LoopView {
    var loop: LoopDetail
    var terminal: Terminal

    var text: String {
        let summary = loop.summary
        var heading = terminal.paint(Terminal.inert(summary.title), .bold) + "  " + terminal.paint(String(summary.id.prefix(8)), .dim)
        if let language = summary.language { heading += "  " + Terminal.inert(language + (summary.translationLanguage.map { " → " + $0 } ?? "")) }
        var lines = [heading]
        if !summary.tags.isEmpty { lines.append("tags: " + Terminal.inert(summary.tags.joined(separator: ", "))) }
        if let picture = loop.picture { lines.append("picture: " + Self.describe(picture)) }
        let width = String(summary.phraseCount).count
        for (index, group) in loop.groups.enumerated() {
            lines.append("")
            var heading = terminal.paint("Group \(index + 1)", .cyan)
            if loop.groupPictures.indices.contains(index), let picture = loop.groupPictures[index] { heading += terminal.paint("  picture: " + Self.describe(picture), .dim) }
            lines.append(heading)
            for phrase in group {
                let number = String(repeating: " ", count: width - String(phrase.number).count) + String(phrase.number)
                let times = phrase.audio.map { String(format: "%7.2f – %7.2f", $0.startSeconds, $0.endSeconds) } ?? terminal.paint("  needs audio    ", .yellow)
                var line = "  \(number)  \(times)  \(Terminal.inert(phrase.text))"
                if let translation = phrase.translation { line += terminal.paint("  · " + Terminal.inert(translation), .dim) }
                if phrase.clipIsForEarlierText, let recorded = phrase.recordedText {
                    line += terminal.paint("  (recorded as “\(Terminal.inert(recorded))”)", .yellow)
                }
                if let picture = phrase.picture { line += terminal.paint("  [picture: " + Self.describe(picture) + "]", .dim) }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// "PNG 640×480".
    static func describe(_ picture: StoredPicture) -> String {
        "\(picture.format.displayName) \(picture.width)×\(picture.height)"
    }
}
