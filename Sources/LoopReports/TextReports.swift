import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows

// What the commands print for a person: each beside the JSON report of the same value.

extension LoopSummary {
    /// `loop list`'s line: short id, title, language, counts, tags.
    public func listLine(on terminal: Terminal) -> String {
        var line = terminal.paint(String(id.prefix(8)), .dim) + "  " + Terminal.inert(title) + "  "
        var details = language.map(Terminal.inert).map { $0 + ", " } ?? ""
        details += "\(phraseCount) phrases"
        if phrasesNeedingAudio > 0 { details += ", \(phrasesNeedingAudio) need audio" }
        line += terminal.paint(details, .dim)
        if !tags.isEmpty { line += terminal.paint("  #" + Terminal.inert(tags.joined(separator: " #")), .cyan) }
        return line + "\n"
    }
}

extension SearchHit {
    /// `loop search`'s line: the loop, group.phrase, the text and its translation.
    public func line(on terminal: Terminal) -> String {
        var line =
            terminal.paint(Terminal.inert(loopTitle), .bold) + terminal.paint(" \(group).\(number)", .dim) + "  "
            + Terminal.inert(text)
        if let translation { line += terminal.paint("  · " + Terminal.inert(translation), .dim) }
        return line
    }
}

extension GarbageReport {
    /// `loop gc`'s line, or nil when nothing was removed.
    public var summary: String? {
        removedFiles.isEmpty
            ? nil
            : String(
                format: "removed %d file%@, %.1f MB freed", removedFiles.count, removedFiles.count == 1 ? "" : "s",
                Double(freedBytes) / 1e6)
    }
}

extension HealthReport {
    /// `loop doctor`'s lines: each problem with its fix (`remedy`), the harmless leftovers, the
    /// clips recorded for an earlier text, and the verdict.
    public func lines(on terminal: Terminal, remedy: (Problem) -> String) -> [String] {
        var lines = problems.map { terminal.paint("problem: ", .red) + $0.message + "\n  fix: " + remedy($0) }
        if !orphans.isEmpty || !leftovers.isEmpty {
            lines.append(
                "\(orphans.count) unreferenced audio file\(orphans.count == 1 ? "" : "s") and \(leftovers.count) piece\(leftovers.count == 1 ? "" : "s") of interrupted imports or recordings (harmless; `loop gc` removes them)"
            )
        }
        if !clipsForEarlierText.isEmpty {
            let count = clipsForEarlierText.count
            lines.append(
                "\(count) phrase\(count == 1 ? "'s clip was" : "s' clips were") recorded for an earlier text (`loop attach LOOP --changed --audio TAKE` records them again):"
            )
            for clip in clipsForEarlierText {
                lines.append(
                    "  \(clip.loopTitle) (\(clip.loopId.prefix(8))) phrase \(clip.number): \(clip.text)  (recorded as “\(clip.recordedText)”)"
                )
            }
        }
        if isHealthy {
            lines.append(
                "ok: \(loopCount) loops, \(phraseCount) phrases, \(audioFileCount) audio files and \(pictureFileCount) pictures verified"
            )
        }
        return lines
    }
}

extension LoopStudyStats {
    /// `loop stats`'s lines: the loop's totals, then each phrase's.
    public func lines(on terminal: Terminal) -> [String] {
        [
            terminal.paint(title, .bold)
                + String(
                    format: "  %d session%@, %@, %d repetitions", sessions, sessions == 1 ? "" : "s",
                    Self.duration(seconds), repetitions)
        ]
            + phrases.map {
                String(format: "  %3d  %4dx  %@  ", $0.number, $0.repetitions, Self.duration($0.seconds)) + $0.text
            }
    }

    /// `12m05s`, or `1h02m` from an hour.
    public static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600
            ? String(format: "%dh%02dm", total / 3600, total % 3600 / 60)
            : String(format: "%dm%02ds", total / 60, total % 60)
    }
}

/// What `loop edit` says after the text of loop `loopId` changed: the changed phrases that keep
/// a clip of their earlier text, and the phrases that need audio.
public func textEditLines(loopId: String, recordedForEarlierText changed: [StoredPhrase], needingAudio: [StoredPhrase])
    -> [String]
{
    var lines: [String] = []
    if !changed.isEmpty {
        lines.append(
            "\(changed.count) changed phrase\(changed.count == 1 ? " keeps its clip" : "s keep their clips"), recorded for the earlier text (`loop attach \(loopId.prefix(8)) --changed --audio TAKE` records \(changed.count == 1 ? "it" : "them") again):"
        )
        lines += changed.map { "  \($0.number)  \($0.text)  (recorded as “\($0.recordedText ?? "")”)" }
    }
    if !needingAudio.isEmpty {
        lines.append(
            "\(needingAudio.count) phrase\(needingAudio.count == 1 ? "" : "s") need audio (`loop attach \(loopId.prefix(8)) --audio TAKE`):"
        )
        lines += needingAudio.map { "  \($0.number)  \($0.text)" }
    }
    return lines
}

extension AuthoredLoop {
    /// `loop new`'s line: the loop added, its groups and phrases, and whether they have audio.
    public func addedLine(withTake: Bool) -> String {
        let summary = loop.summary
        let cut = summary.phraseCount - notFound.count
        let doubtful =
            doubtfulCuts.isEmpty
            ? "" : "; \(doubtfulCuts.count) cut\(doubtfulCuts.count == 1 ? "" : "s") of low confidence"
        return
            "Added '\(summary.title)' (\(summary.id.prefix(8))): \(summary.groupCount) group\(summary.groupCount == 1 ? "" : "s"), \(summary.phraseCount) phrase\(summary.phraseCount == 1 ? "" : "s")"
            + (withTake
                ? (notFound.isEmpty ? ", each cut from the take" : ", \(cut) cut from the take") + doubtful
                : ", no audio yet (`loop attach \(summary.id.prefix(8)) --audio TAKE` adds a take)")
    }

    /// A warning when other loops have its title (from now on the title names them all), with
    /// the edit that tells it apart; nil when none has.
    public var namesakeWarning: String? {
        guard let distinct = namesakes.distinctTitle, !namesakes.others.isEmpty else { return nil }
        let others = namesakes.others
        let summary = loop.summary
        return
            "warning: \(others.count == 1 ? "a loop" : "\(others.count) loops") titled '\(Terminal.inert(summary.title))' \(others.count == 1 ? "is" : "are") already in the library (\(others.map { String($0.prefix(8)) }.joined(separator: ", "))); "
            + "name them by id, or give this one a title of its own: loop edit \(summary.id.prefix(8)) --title '\(Terminal.inert(distinct))'\n"
    }

    /// `loop attach`'s line: how many phrases the take was cut onto, and how many of the
    /// loop's still need audio.
    public var attachedLine: String {
        let summary = loop.summary
        let cut = phrasesAsked - notFound.count
        return
            "Cut the take onto \(cut) phrase\(cut == 1 ? "" : "s") of '\(Terminal.inert(summary.title))' (\(summary.id.prefix(8)))"
            + (summary.phrasesNeedingAudio == 0
                ? "; every phrase has audio now"
                : "; \(summary.phrasesNeedingAudio) still need\(summary.phrasesNeedingAudio == 1 ? "s" : "") audio")
    }

    /// What to know about how the take was cut: its notes, and the phrases it does not read
    /// (`5 of 10 phrases found in the take; 6-10 still need audio: loop attach ...`).
    public func cuttingLines(loopId: String) -> [String] {
        var lines = notes.map { "note: \($0)\n" }
        if let found = foundInText { lines.append(found.line) }
        if !notFound.isEmpty {
            lines.append(
                "\(phrasesAsked - notFound.count) of \(phrasesAsked) phrases found in the take; \(Self.numbers(notFound)) still need audio: loop attach \(loopId.prefix(8)) --audio TAKE\n"
            )
        }
        return lines
    }

    /// Phrase numbers as runs: `6-10`, `1, 3-4`.
    public static func numbers(_ numbers: [Int]) -> String {
        var runs: [String] = []
        var index = 0
        while index < numbers.count {
            var end = index
            while end + 1 < numbers.count && numbers[end + 1] == numbers[end] + 1 { end += 1 }
            runs.append(end == index ? "\(numbers[index])" : "\(numbers[index])-\(numbers[end])")
            index = end + 1
        }
        return runs.joined(separator: ", ")
    }

    /// A warning line for each cut of low confidence; `adjusting` adds how to move one.
    public func doubtfulCutWarnings(adjusting: Bool) -> [String] {
        doubtfulCuts.map {
            String(
                format: "warning: the cut between phrases %d and %d has low confidence %.2f; listen to it", $0.before,
                $0.after, $0.confidence)
                + (adjusting
                    ? ", and move it in the phrase editor (`loop edit \(loop.summary.id.prefix(8)) --phrases`) if needed\n"
                    : "\n")
        }
    }
}

extension RecordedTake {
    /// `Recorded 'Au café' (9ddbb9c1): 8 of 8 phrases cut from the take`, as `loop new --audio`
    /// says it; and a warning line for the phrases still waiting for audio and for each clip
    /// of low confidence.
    public func lines() -> (summary: String, warnings: [String]) {
        let summary = loop.summary
        let doubtfulNote =
            doubtful.isEmpty ? "" : "; \(doubtful.count) clip\(doubtful.count == 1 ? "" : "s") of low confidence"
        let line =
            "Recorded '\(summary.title)' (\(summary.id.prefix(8))): \(phrasesCut.count) of \(phrasesAsked.count) phrase\(phrasesAsked.count == 1 ? "" : "s") cut from the take"
            + doubtfulNote
        var warnings: [String] = []
        let missing = phrasesAsked.filter { !phrasesCut.contains($0) }
        if !missing.isEmpty {
            warnings.append(
                "\(AuthoredLoop.numbers(missing)) still need audio: loop record \(summary.id.prefix(8)) again, or loop attach \(summary.id.prefix(8)) --audio TAKE\n"
            )
        }
        warnings += doubtful.map {
            "warning: the clip of phrase \($0) has low confidence; listen to it, and move it in the phrase editor (`loop edit \(summary.id.prefix(8)) --phrases`) if needed\n"
        }
        return (line, warnings)
    }
}

extension ProgressImport.Outcome {
    /// `merged 3 study sessions of 'Au café' (24 phrase records); 1 was here already; 2 phrases edited since left out`.
    public var line: String {
        let loops = titles.isEmpty ? "" : " of " + titles.map { "'\(Terminal.inert($0))'" }.joined(separator: ", ")
        var line =
            "merged \(sessionsAdded) study session\(sessionsAdded == 1 ? "" : "s")\(loops) (\(phrasesAdded) phrase record\(phrasesAdded == 1 ? "" : "s"))"
        if sessionsAlreadyHere > 0 {
            line += "; \(sessionsAlreadyHere) \(sessionsAlreadyHere == 1 ? "was" : "were") here already"
        }
        if phrasesUnmatched > 0 {
            line +=
                "; \(phrasesUnmatched) phrase record\(phrasesUnmatched == 1 ? "" : "s") of phrases edited or gone since left out"
        }
        if reviewsAdded > 0 { line += "; \(reviewsAdded) group review\(reviewsAdded == 1 ? "" : "s")" }
        if reviewsUnmatched > 0 {
            line +=
                "; \(reviewsUnmatched) review\(reviewsUnmatched == 1 ? "" : "s") of groups edited or gone since left out"
        }
        if reviewsAlreadyHere > 0 {
            line +=
                "; \(reviewsAlreadyHere) review\(reviewsAlreadyHere == 1 ? "" : "s") of a group at a time it was reviewed already left out"
        }
        return line
    }
}

extension FoundInText {
    /// `lines 702-781 of 1500 found (Chapter 4); the loop holds lines 701-781, their paragraphs`.
    public var line: String {
        let heading = heading.map { " (\($0))" } ?? ""
        let held =
            kept == first...last
            ? "the loop holds them" : "the loop holds lines \(kept.lowerBound)-\(kept.upperBound), their paragraphs"
        return "lines \(first)-\(last) of \(lineCount) found\(heading); \(held)\n"
    }
}
