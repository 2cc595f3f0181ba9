import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows

// What each command prints of the outcome its operation gave back: the commands read none of it.

extension CutClips {
    /// The warnings `loop cut` prints: cuts of low confidence, notes, phrases not found.
    public var warnings: [String] {
        take.doubtfulCutWarnings + take.cuttingLines(phraseCount: take.phraseTexts?.count ?? 0)
    }
}

extension SegmentedTake {
    /// `loop segment`'s table of segments and its waveform strip.
    public func text(on terminal: Terminal) -> String {
        SegmentationTable(take: self, terminal: terminal).text + "\n"
            + (levels.map { WaveformStrip(levels: $0, take: self, terminal: terminal).text } ?? "")
    }
}

/// The human view of a loop's text (`loop split`).
public struct SourceView {
    /// The text as split into groups and phrases.
    public var outline: TextOutline
    /// The terminal it is shown on.
    public var terminal: Terminal

    /// The view of `outline` on `terminal`.
    public init(outline: TextOutline, terminal: Terminal) {
        self.outline = outline
        self.terminal = terminal
    }

    /// The view as lines of text.
    public var text: String {
        let phrases = outline.phraseCount
        let groups = outline.groups.count
        var heading = outline.title ?? "Untitled loop"
        if let language = outline.language {
            heading += " (" + language + (outline.translationLanguage.map { " → " + $0 } ?? "") + ")"
        }
        var lines = [
            terminal.paint(heading, .bold)
                + "  \(groups) group\(groups == 1 ? "" : "s"), \(phrases) phrase\(phrases == 1 ? "" : "s")"
        ]
        if !outline.tags.isEmpty { lines.append("tags: " + outline.tags.joined(separator: ", ")) }
        let width = String(phrases).count
        var number = 0
        for (index, group) in outline.groups.enumerated() {
            lines.append("")
            lines.append(terminal.paint("Group \(index + 1)", .cyan))
            for phrase in group {
                number += 1
                let label = String(repeating: " ", count: width - String(number).count) + String(number)
                var line = "  \(label)  \(phrase.text)"
                if let translation = phrase.translation { line += terminal.paint("  · " + translation, .dim) }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension RecordingOutcome {
    /// What `loop record` says of a recording that ended: a line for standard output (a take
    /// saved, as `loop new --audio` says it), and lines for standard error (the phrases still
    /// waiting for audio, the cuts worth a listen, an input that overran, a take kept to recover).
    public var lines: (output: String?, errors: [String]) {
        switch self {
        case .nothingRecorded: return (nil, ["nothing was recorded; the loop is unchanged\n"])
        case .quit: return (nil, [])
        case .interrupted(let seconds, let loopId):
            return (
                nil,
                [
                    String(
                        format: "interrupted: the take (%.1f s) is kept; `loop record %@ --recover` saves it\n",
                        seconds, String(loopId.prefix(8)))
                ]
            )
        case .saved(let take, let overruns):
            let (summary, warnings) = take.lines()
            let overran =
                overruns > 0
                ? [
                    "warning: the input overran \(overruns) time\(overruns == 1 ? "" : "s"): this machine fell behind and some audio was lost; listen to the cuts\n"
                ] : []
            return (summary, overran + warnings)
        }
    }
}

extension UnsavedRecording {
    /// The note `loop record` gives before recording a loop that has one.
    public var note: String {
        String(
            format:
                "note: an interrupted recording of this loop (%.1f s) is kept; `loop record %@ --recover` saves it\n",
            seconds, String(loopId.prefix(8)))
    }

    /// `an interrupted recording (3.2 s) is kept: loop record 9ddbb9c1 --recover saves it`.
    public var line: String {
        String(
            format: "an interrupted recording (%.1f s) is kept: `loop record %@ --recover` saves it", seconds,
            String(loopId.prefix(8)))
    }
}

/// What `loop rm` asks, and says when it cannot ask.
public enum RemovalPrompt {
    /// The question asked before removing `loop`.
    public static func question(_ loop: LoopDetail) -> String {
        "Remove '\(loop.summary.title)' (\(loop.summary.phraseCount) phrases)? [y/N] "
    }

    /// Why `loop` is not removed when there is no one to ask.
    public static func refusal(_ loop: LoopDetail) -> CommandRefusal {
        CommandRefusal(
            "not removing '\(loop.summary.title)' without asking: there is no terminal to ask on; add --yes")
    }
}

/// What `loop study` says once when the library at `path` cannot keep a session's progress.
public func readOnlyStudyNote(path: String, reason: String) -> String {
    "note: \(path): \(reason): you can study, but this session's time and repetitions will not be kept\n"
}

extension EditOutcomeKind {
    /// What `loop edit` says of what it did.
    public var lines: [String] {
        switch self {
        case .details, .unchangedText, .phrases(nil, _): []
        case .text(let outcome, let loopId):
            textEditLines(
                loopId: loopId, recordedForEarlierText: outcome.recordedForEarlierText,
                needingAudio: outcome.needingAudio)
                + (outcome.reviewsRestarted > 0 ? [ReviewWords.restartedLine(outcome.reviewsRestarted)] : [])
        case .phrases(let loop?, let restarted):
            [
                "Saved '\(loop.summary.title)': \(loop.phrases.count) phrases in \(loop.groups.count) groups (revision \(loop.summary.revision))"
            ] + (restarted > 0 ? [ReviewWords.restartedLine(restarted)] : [])
        }
    }
}

extension Array where Element == BundleImport {
    /// What `loop import` prints: a line for each loop imported (standard output), a line for
    /// each bundle refused and a summary when some were (standard error).
    public func lines(dryRun: Bool) -> (output: [String], errors: [String]) {
        var output: [String] = []
        var errors: [String] = []
        for outcome in self {
            switch outcome {
            case .imported(let result): output += result.lines(dryRun: dryRun)
            case .refused(let bundle, let reason):
                // The libraries' errors name the bundle already; others get it here. Inert: a
                // server's message, a title or a path may hold escapes.
                let message = FailureWords.line(for: reason)
                errors.append(
                    "error: " + Terminal.inert(message.hasPrefix(bundle + ":") ? message : "\(bundle): \(message)")
                        + "\n")
            }
        }
        if !errors.isEmpty && count > 1 {
            errors.append(
                "\(dryRun ? "would import" : "imported") \(count - errors.count) of \(count) bundles; \(errors.count) refused\n"
            )
        }
        return (output, errors)
    }
}

extension LoopUpdate {
    /// `loop update --json`'s object for this loop.
    public var report: UpdateReport {
        switch self {
        case .unchanged(let origin):
            UpdateReport(id: origin.loopId, title: origin.title, server: origin.server, status: "unchanged")
        case .updated(let origin, let from, let to, let restarted):
            UpdateReport(
                id: origin.loopId, title: origin.title, server: origin.server, status: "updated", from: from, to: to,
                reviewsRestarted: restarted)
        case .refused(let origin, let reason):
            UpdateReport(
                id: origin.loopId, title: origin.title, server: origin.server, status: "refused",
                error: FailureWords.line(for: reason))
        }
    }

    /// `Updated 'Au café' from revision 2 to 3`, for a loop updated.
    public func line(dryRun: Bool) -> String? {
        guard case .updated(let origin, let from, let to, let restarted) = self else { return nil }
        return "\(dryRun ? "Would update" : "Updated") '\(Terminal.inert(origin.title))' from revision \(from) to \(to)"
            + ReviewWords.restarted(restarted)
    }

    /// Whether this loop was found up to date.
    var isUnchanged: Bool {
        if case .unchanged = self { return true }
        return false
    }

    /// The error line of a loop that could not be updated.
    public var errorLine: String? {
        guard case .refused(let origin, let reason) = self else { return nil }
        return
            "error: '\(Terminal.inert(origin.title))' (\(Terminal.inert(origin.server))): \(Terminal.inert(FailureWords.line(for: reason)))\n"
    }
}

extension Array where Element == LoopUpdate {
    /// `loop update`'s last line when no loop was updated: that every loop is up to date, or
    /// that none came from a Loop Library (nil when some were updated or refused: their lines
    /// say it).
    public var nothingNewLine: String? {
        guard allSatisfy(\.isUnchanged) else { return nil }
        if isEmpty {
            return "Nothing to update: no loop here came from a Loop Library (`loop import LINK` installs one)"
        }
        if count == 1, case .unchanged(let origin) = self[0] {
            return "Nothing new: '\(Terminal.inert(origin.title))' is up to date"
        }
        return "Nothing new: the \(count) loops from a Loop Library are up to date"
    }
}

extension Published {
    /// What `loop publish` tells a person at a terminal besides the link.
    public var note: String {
        "published revision \(revision)\(previousRevision.map { " (was \($0))" } ?? ""); learners install it with: \(install)\n"
    }
}

extension CatalogBrowse {
    /// `loop browse`: a line for each loop, with its link.
    public var lines: [String] { loops.map(\.browseLine) }

    /// Where page `page` is among the results, or that there are none (nil: all on this page).
    public func position(page: Int) -> String? {
        let shown = offset + loops.count
        if loops.isEmpty { return total == 0 ? "no loops found\n" : "no loops on page \(page): \(totalText) found\n" }
        if total > shown { return "\(offset + 1)-\(shown) of \(totalText); --page \(page + 1) for more\n" }
        return offset > 0 ? "\(offset + 1)-\(shown) of \(totalText)\n" : nil
    }
}

extension CatalogBrowse.Entry {
    /// `loop browse`'s line: title, languages, phrases, author, tags, then the link.
    public var browseLine: String {
        let languages = [language, translationLanguage].compactMap { $0 }.joined(separator: "→")
        let by = author ?? authorFingerprint.prefix(9) + "…"
        var line =
            "\(Terminal.inert(title))  \(languages.isEmpty ? "" : languages + ", ")\(phraseCount) phrases, by \(Terminal.inert(String(by)))"
        if !tags.isEmpty { line += "  [\(Terminal.inert(tags.joined(separator: ", ")))]" }
        // Every field came from a server: the whole line is made inert, not only the texts.
        return Terminal.inert(line + "  " + link)
    }
}

extension ProgressImport.Outcome {
    /// The note on the loops of a progress file that are not in this library, if any.
    public var loopsNotHereNote: String? {
        guard !loopsNotHere.isEmpty else { return nil }
        return
            "note: \(loopsNotHere.count) loop\(loopsNotHere.count == 1 ? " is" : "s are") not in this library (install with `loop import LINK`): \(loopsNotHere.map { String($0.prefix(8)) }.joined(separator: ", "))\n"
    }
}

/// `loop list`: the loops a line each, or (`json`) a JSON array streamed an object a line,
/// written 64 KB at a time rather than a line at a time.
public enum LoopListing {
    /// Writes the loops to standard output, as lines or (`json`) JSON objects.
    public static func write(_ loops: [LoopSummary], json: Bool, on terminal: Terminal) throws {
        var output = StandardOutputBuffer()
        if json {
            output.append("[")
            for (index, loop) in loops.enumerated() {
                output.append((index == 0 ? "\n" : ",\n") + (try JSONOutput.line(LoopSummaryReport(loop))))
            }
            output.append(loops.isEmpty ? "]\n" : "\n]\n")
        } else {
            for loop in loops { output.append(loop.listLine(on: terminal)) }
        }
        output.flush()
    }

    /// The line after a screenful when `more` loops were left out.
    public static func moreLine(_ more: Int, on terminal: Terminal) -> String {
        terminal.paint("… \(more) more (--all shows every one, --limit N that many)", .dim)
    }
}
