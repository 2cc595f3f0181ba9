import Foundation
import LoopTerminal
import LoopWorkflows

/// The human view of a segmentation: a line a phrase, a line a cut.
public struct SegmentationTable {
    /// The take as cut.
    public var take: SegmentedTake
    /// The terminal it is shown on.
    public var terminal: Terminal

    /// The table of `take` on `terminal`.
    public init(take: SegmentedTake, terminal: Terminal) {
        self.take = take
        self.terminal = terminal
    }
    /// The table as lines of text.
    public var text: String {
        var lines: [String] = []
        let method =
            switch take.method {
            case .pauses: "cut at its pauses"
            case .text(let language, let origin):
                "cut by its text, read in \(language)\(origin == "guessed" ? " (guessed from the text; --language sets it)" : "")"
            }
        let header = String(
            format: "%d phrase%@ in %.2f s (%d Hz, %d channel%@), %@",
            take.segments.count, take.segments.count == 1 ? "" : "s", take.duration, take.sampleRate,
            take.channelCount, take.channelCount == 1 ? "" : "s", method)
        lines.append(terminal.paint(header, .bold))
        // A take of some of the phrases numbers them as the text does.
        let numbers = take.phrases ?? Array(take.segments.indices)
        let numberWidth = String((numbers.max() ?? 0) + 1).count
        for (index, segment) in take.segments.enumerated() {
            let start = take.seconds(segment.lowerBound)
            let end = take.seconds(segment.upperBound)
            let phrase = index < numbers.count ? numbers[index] : index
            let number = String(repeating: " ", count: numberWidth - String(phrase + 1).count) + String(phrase + 1)
            var line = String(format: "%@  %7.2f – %7.2f  %5.2f s", number, start, end, end - start)
            if let texts = take.phraseTexts, phrase < texts.count {
                line += "  " + Terminal.inert(texts[phrase])
            }
            lines.append(line)
            if index < take.cuts.count {
                let cut = take.cuts[index]
                var mark = String(
                    format: "%@  ✂ %7.2f  pause %.2f s  confidence %.2f",
                    String(repeating: " ", count: numberWidth), take.seconds(cut.frame), cut.pause, cut.confidence)
                if cut.isDoubtful {
                    mark = terminal.paint(mark + "  low: listen to this cut", .yellow)
                } else {
                    mark = terminal.paint(mark, .dim)
                }
                lines.append(mark)
            }
        }
        if let texts = take.phraseTexts {
            if let located = take.locatedLine(phraseCount: texts.count) { lines.append(located) }
            if let missing = take.missing(of: texts.count), !missing.isEmpty {
                let asked = take.located?.count ?? texts.count
                lines.append(
                    terminal.paint(
                        "\(asked - missing.count) of \(asked) phrases found in the take; \(AuthoredLoop.numbers(missing.map { $0 + 1 })) not in it",
                        .yellow))
            }
        }
        lines += take.notes.map { "note: " + $0 }
        return lines.joined(separator: "\n")
    }
}

/// A compact waveform of the take with the phrases and cuts marked under it.
public struct WaveformStrip {
    /// The take's levels, for the waveform.
    public var levels: TakeLevels
    /// The take as cut.
    public var take: SegmentedTake
    /// The terminal it is drawn on.
    public var terminal: Terminal

    /// The strip of `take` with `levels`, as wide as `terminal` allows.
    public init(levels: TakeLevels, take: SegmentedTake, terminal: Terminal) {
        self.levels = levels
        self.take = take
        self.terminal = terminal
    }

    /// The strip as lines of text.
    public var text: String {
        let width = max(20, min(terminal.width - 1, 120))
        let levels = self.levels.levels
        guard !levels.isEmpty else { return "" }
        let hopsPerColumn = Double(levels.count) / Double(width)
        var columns = [Float](repeating: -120, count: width)
        for column in 0..<width {
            let from = Int(Double(column) * hopsPerColumn)
            let to = max(from + 1, min(levels.count, Int(Double(column + 1) * hopsPerColumn)))
            columns[column] = levels[from..<to].max() ?? -120
        }
        let sorted = levels.sorted()
        let low = sorted[sorted.count / 20]
        let high = sorted[sorted.count - 1]
        let blocks = Array(" ▁▂▃▄▅▆▇█")
        let wave = String(
            columns.map { level -> Character in
                let share = high > low ? Double((level - low) / (high - low)) : 0
                return blocks[min(blocks.count - 1, max(0, Int((share * Double(blocks.count - 1)).rounded())))]
            })

        var marks = [Character](repeating: " ", count: width)
        func column(_ frame: Int) -> Int { min(width - 1, frame * width / max(take.frameCount, 1)) }
        let cutColumns = Set(take.cuts.map { column($0.frame) })
        for (index, segment) in take.segments.enumerated() {
            let from = column(segment.lowerBound)
            let to = column(max(segment.upperBound - 1, segment.lowerBound))
            for c in from...to { marks[c] = "─" }
            // The number goes right after a cut mark that shares its first column.
            let labelStart = cutColumns.contains(from) ? from + 1 : from
            for (offset, digit) in String(index + 1).enumerated() where labelStart + offset < width {
                marks[labelStart + offset] = digit
            }
        }
        var markLine = ""
        for (c, mark) in marks.enumerated() {
            markLine += cutColumns.contains(c) ? terminal.paint("┃", .yellow) : String(mark)
        }
        return terminal.paint(wave, .cyan) + "\n" + markLine
    }
}

extension SegmentedTake {
    /// Where in a long text of `phraseCount` phrases the take was found, when it was looked for.
    func locatedLine(phraseCount: Int) -> String? {
        located.map {
            "found in its text: phrases \($0.lowerBound + 1)-\($0.upperBound + 1) of \(phraseCount); the others are not read"
        }
    }

    /// Its notes, where in a long text the take was found, and the phrases the take does not
    /// read (within that part), a line each.
    public func cuttingLines(phraseCount: Int) -> [String] {
        var lines = notes.map { "note: \($0)\n" }
        if let located = locatedLine(phraseCount: phraseCount) { lines.append(located + "\n") }
        if let missing = missing(of: phraseCount), !missing.isEmpty {
            let asked = located?.count ?? phraseCount
            lines.append(
                "\(asked - missing.count) of \(asked) phrases found in the take; \(AuthoredLoop.numbers(missing.map { $0 + 1 })) still need audio\n"
            )
        }
        return lines
    }

    /// One warning a line for each cut the cutter doubts.
    public var doubtfulCutWarnings: [String] {
        cuts.enumerated().filter { $0.element.isDoubtful }.map { index, cut in
            String(
                format:
                    "warning: the cut between phrases %d and %d (at %.2f s) has low confidence %.2f; listen to it\n",
                (phrases?[index] ?? index) + 1, (phrases?[index + 1] ?? index + 1) + 1, seconds(cut.frame),
                cut.confidence)
        }
    }
}
