import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows

// Each command's output of its outcome: its lines on standard output (or its JSON), and its
// warnings and notes on standard error.

extension TextOutline {
    /// `loop split`.
    public func print(json: Bool) throws {
        if json {
            try JSONOutput.print(self)
        } else {
            Swift.print(SourceView(outline: self, terminal: .standardOutput()).text)
        }
    }
}

extension SegmentedTake {
    /// `loop segment` of the take at `file`: its table and waveform, its JSON, or its label track.
    public func print(file: String, json: Bool, labels: Bool) throws {
        if json {
            try JSONOutput.print(SegmentationReport(file: file, take: self))
        } else {
            Swift.print(labels ? labelTrack : text(on: .standardOutput()), terminator: labels ? "" : "\n")
        }
    }
}

extension CutClips {
    /// `loop cut` of the take at `take`: its JSON if asked, and its warnings.
    public func print(take: String, json: Bool) throws {
        if json { try JSONOutput.print(CutReport(take: take, cut: self)) }
        warnings.forEach(StandardError.write)
    }
}

extension AuthoredLoop {
    /// `loop new`: the cuts worth a listen, how the take was cut and the loops of the same title
    /// (standard error), then the loop added (its line, or its JSON).
    public func printAdded(json: Bool) throws {
        if !fromSubtitles { doubtfulCutWarnings(adjusting: true).forEach(StandardError.write) }
        cuttingLines(loopId: loop.summary.id).forEach(StandardError.write)
        namesakeWarning.map(StandardError.write)
        if json { try JSONOutput.print(LoopDetailReport(loop)) } else { Swift.print(addedLine(withTake: withTake)) }
    }

    /// `loop attach`: the cuts worth a listen and how the take was cut, then what was attached.
    public func printAttached() {
        doubtfulCutWarnings(adjusting: false).forEach(StandardError.write)
        cuttingLines(loopId: loop.summary.id).forEach(StandardError.write)
        Swift.print(attachedLine)
    }
}

extension LoopList {
    /// `loop list`: the loops, and how many more there are (not with JSON).
    public func print(json: Bool, on terminal: Terminal) throws {
        try LoopListing.write(loops, json: json, on: terminal)
        if !json && more > 0 { Swift.print(LoopListing.moreLine(more, on: terminal)) }
    }
}

extension LoopDetail {
    /// `loop show`.
    public func print(json: Bool) throws {
        if json {
            try JSONOutput.print(LoopDetailReport(self))
        } else {
            Swift.print(LoopView(loop: self, terminal: .standardOutput()).text)
        }
    }
}

extension Array where Element == SearchHit {
    /// `loop search`.
    public func print(json: Bool) throws {
        if json { return try JSONOutput.print(map(SearchHitReport.init)) }
        let terminal = Terminal.standardOutput()
        for hit in self { Swift.print(hit.line(on: terminal)) }
    }
}

extension GarbageReport {
    /// `loop gc`.
    public func print(json: Bool) throws {
        if json { try JSONOutput.print(GarbageReportOutput(self)) } else if let summary { Swift.print(summary) }
    }
}

extension LibraryCheck {
    /// `loop doctor`: what the repair did, each problem with its fix, the rest; whether the
    /// library is healthy.
    public func print(json: Bool) throws -> Bool {
        if !json, let repaired, repaired.reviews > 0 {
            Swift.print(
                "Removed \(repaired.reviews) review\(repaired.reviews == 1 ? "" : "s") dated after today; \(repaired.groups) group\(repaired.groups == 1 ? "" : "s") scheduled again"
            )
        }
        if json {
            try JSONOutput.print(HealthReportOutput(report))
        } else {
            printLines(report.lines(on: .standardOutput(), remedy: FailureWords.fix(for:)))
            printLines(interrupted.map(\.line))
        }
        return report.isHealthy
    }
}

extension RecordingOutcome {
    /// `loop record`: what was saved (standard output), and what to know (standard error).
    public func printed() {
        lines.errors.forEach(StandardError.write)
        lines.output.map { Swift.print($0) }
    }
}

extension StudySummary {
    /// After `loop study`: why shadowing stopped, if it did.
    public func printed() {
        shadowingStopped.map { StandardError.write("warning: shadowing stopped: \(FailureWords.line(for: $0))\n") }
    }
}

extension AttemptReport {
    /// `loop compare`.
    public func print(json: Bool) throws {
        if json { try JSONOutput.print(self) } else { Swift.print(text) }
    }
}

extension ReviewOutcome {
    /// `loop review`: the settings kept, the queue (or its JSON), or the groups reviewed and what
    /// is still due.
    public func print(json: Bool) throws {
        switch self {
        case .settings(let settings, let rescheduled):
            Swift.print(
                "Reviews: \(settings.line)"
                    + (rescheduled > 0 ? "; \(rescheduled) group\(rescheduled == 1 ? "" : "s") rescheduled" : ""))
        case .queue(let queue):
            if json {
                try JSONOutput.print(ReviewQueueReport(queue))
            } else {
                printLines(queue.lines(on: .standardOutput()))
            }
        case .nothingDue(let queue): printLines(queue.lines(on: .standardOutput()))
        case .reviewed(let reviewed, let left):
            printLines(reviewed.map(\.line))
            Swift.print(ReviewWords.summary(reviewed: reviewed.count, left: left))
        }
    }
}

extension StatsOutcome {
    /// `loop stats`: the loops' totals, each group's place and the attempts of one loop, the
    /// reviews and the calendar; or what a merge did.
    public func print(json: Bool, on terminal: Terminal) throws {
        switch self {
        case .imported(let outcome):
            if json { return try JSONOutput.print(ProgressImportReport(outcome)) }
            Swift.print(outcome.line)
            outcome.loopsNotHereNote.map(StandardError.write)
        case .figures(let figures):
            let attempts = figures.attempts.map(PhraseAttemptsReport.of)
            if json {
                return try JSONOutput.print(
                    StatsReport(
                        loops: figures.loops.map(StudyStatsReport.init), reviews: ReviewStatsReport(figures.reviews),
                        groups: figures.groups.map(GroupReviewReport.of), attempts: attempts))
            }
            if figures.loops.isEmpty {
                return Swift.print(
                    figures.ofOneLoop
                        ? "this loop has not been studied yet" : "nothing studied yet: `loop study LOOP` starts")
            }
            for entry in figures.loops { printLines(entry.lines(on: terminal)) }
            if figures.moreLoops > 0 {
                Swift.print(
                    terminal.paint(
                        "… \(figures.moreLoops) more loops studied (`loop stats --all` shows every one)", .dim))
            }
            if let cards = figures.groups, !cards.isEmpty { printLines(GroupReviewReport.lines(cards)) }
            if let attempts { printLines(PhraseAttemptsReport.lines(attempts, on: terminal)) }
            Swift.print("")
            printLines(figures.reviews.lines(on: terminal))
        }
    }
}

extension IdentityOutcome {
    /// `loop identity`: the key's fingerprint and the author name, when shown.
    public func printed() {
        if case .shown(let fingerprint, let name) = self { Swift.print(fingerprint + (name.map { "  " + $0 } ?? "")) }
    }
}

extension BundleSummary {
    /// `loop inspect`.
    public func print(json: Bool) throws {
        if json { try JSONOutput.print(BundleReport(self)) } else { printLines(lines) }
    }
}

extension Array where Element == BundleImport {
    /// `loop import`: a line a loop imported, a line a bundle refused; whether none was.
    public func printed(dryRun: Bool) -> Bool {
        let (output, errors) = lines(dryRun: dryRun)
        errors.forEach(StandardError.write)
        printLines(output)
        return errors.isEmpty
    }
}

extension Published {
    /// `loop publish` to a server: its link (and, at a terminal, what was published), or its JSON.
    public func print(json: Bool) throws {
        if json { return try JSONOutput.print(self) }
        Swift.print(link)
        if Terminal.standardError().isInteractive { StandardError.write(note) }
    }
}

extension Array where Element == LoopUpdate {
    /// `loop update`: a line (or a JSON object) a loop updated, an error line a loop refused;
    /// whether none was.
    public func printed(json: Bool, dryRun: Bool) throws -> Bool {
        for update in self {
            if json {
                try JSONOutput.print(update.report)
            } else if let line = update.line(dryRun: dryRun) {
                Swift.print(line)
            }
            update.errorLine.map(StandardError.write)
        }
        if !json, let line = nothingNewLine { Swift.print(line) }
        return !contains { $0.errorLine != nil }
    }
}

extension CatalogBrowse {
    /// `loop browse`: a line a loop and where page `page` is among the results, or the JSON.
    public func print(json: Bool, page: Int) throws {
        if json { return try JSONOutput.print(self) }
        printLines(lines)
        position(page: page).map(StandardError.write)
    }
}

/// Prints each of `lines` on standard output.
func printLines(_ lines: some Sequence<String>) {
    for line in lines { Swift.print(line) }
}
