import Foundation
import LoopFoundation
import LoopText

/// Reads SubRip (`.srt`) and WebVTT (`.vtt`) files into cues of clean text.
///
/// Accepted as they come: a byte order mark, CRLF or CR line ends, cue numbers or none, WebVTT
/// cue settings, NOTE and STYLE blocks. Cleaned from each cue: tags (`<i>`, `<v Anna>`,
/// `{\an8}`), speaker labels (`ANNA:`, a leading `- `), sound descriptions (`[music]`,
/// `(laughs)`) and line breaks; a cue left without words is dropped. Repaired, as documented:
/// cues out of order are sorted; a cue that starts before the previous one ends shortens the
/// previous one. Refused with the line: text that is not UTF-8, a time line missing or
/// malformed or past 100 hours, a cue that ends before it starts, two cues that start at the
/// same moment, cue text with a control character or longer than a phrase holds.
public enum SubtitleReader {
    /// The cues of the file at `path`, times moved by `shift` seconds.
    public static func read(_ path: String, shift: Double = 0) throws -> [SubtitleCue] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ExchangeError(
                .invalidSubtitles, path: path, line: nil,
                message: FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file")
        }
        guard let format = SubtitleFormat(path: path) else {
            throw ExchangeError(
                .invalidSubtitles, path: path, line: nil, message: "not a subtitle file this tool reads (.srt or .vtt)")
        }
        return try parse(data, format: format, file: path, shift: shift)
    }

    /// The cues of subtitle text in `format`, moved by `shift` seconds; `file` names it in errors.
    public static func parse(_ data: Data, format: SubtitleFormat, file: String, shift: Double = 0) throws
        -> [SubtitleCue]
    {
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(data: bytes, encoding: .utf8) else {
            let line = firstLineNotUTF8(bytes)
            throw ExchangeError(
                .invalidSubtitles, path: file, line: line,
                message: "the text is not UTF-8 (an older encoding such as Latin-1 or Windows-1252?): save it as UTF-8")
        }
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var cues: [(cue: SubtitleCue, line: Int)] = []
        var index = 0
        if format == .vtt {
            guard let first = lines.first, first.hasPrefix("WEBVTT") else {
                throw ExchangeError(.invalidSubtitles, path: file, line: 1, message: "a WebVTT file starts with WEBVTT")
            }
            // The header block, up to the first blank line.
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).isEmpty { index += 1 }
        }
        while index < lines.count {
            // Skip blank lines; a block runs to the next blank line.
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces).isEmpty { index += 1 }
            guard index < lines.count else { break }
            let blockStart = index
            var block: [String] = []
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                block.append(lines[index])
                index += 1
            }
            if format == .vtt, let head = block.first, head.hasPrefix("NOTE") || head == "STYLE" || head == "REGION" {
                continue
            }
            // The time line: the first line, or the second after a cue number or identifier.
            guard let timeOffset = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else {
                throw ExchangeError(
                    .invalidSubtitles, path: file, line: blockStart + 1,
                    message:
                        "expected a time line such as 00:00:01,000 --> 00:00:02,500, found \"\(block[0].prefix(60))\"")
            }
            let lineNumber = blockStart + timeOffset + 1
            let (start, end) = try times(block[timeOffset], file: file, line: lineNumber)
            guard end > start else {
                throw ExchangeError(
                    .invalidSubtitles, path: file, line: lineNumber,
                    message:
                        "the cue ends (\(block[timeOffset].components(separatedBy: "-->")[1].trimmingCharacters(in: .whitespaces))) before it starts"
                )
            }
            let raw = block[(timeOffset + 1)...].joined(separator: "\n")
            // The border check every text from outside passes: nothing is stored that loop's own
            // bundles would refuse.
            if let problem = TextCheck.problem(inText: raw) {
                throw ExchangeError(
                    .invalidSubtitles, path: file, line: lineNumber + problem.line,
                    message: "the cue's text \(problem.message)")
            }
            let words = clean(raw)
            guard words.count <= TextCheck.maxFieldCharacters else {
                throw ExchangeError(
                    .invalidSubtitles, path: file, line: lineNumber + 1,
                    message:
                        "the cue is longer than \(TextCheck.maxFieldCharacters) characters, more than a phrase holds: is it a subtitle file?"
                )
            }
            guard !words.isEmpty else { continue }
            cues.append((SubtitleCue(start: max(0, start + shift), end: max(0, end + shift), text: words), lineNumber))
        }
        cues.sort { $0.cue.start < $1.cue.start }
        for position in cues.indices.dropFirst() {
            let previous = cues[position - 1]
            let current = cues[position]
            if abs(current.cue.start - previous.cue.start) < 0.001 {
                throw ExchangeError(
                    .invalidSubtitles, path: file, line: current.line,
                    message:
                        "this cue starts at the same moment as the one at line \(previous.line): join them into one")
            }
            if previous.cue.end > current.cue.start { cues[position - 1].cue.end = current.cue.start }
        }
        return cues.map(\.cue).filter { $0.end > $0.start }
    }

    /// `HH:MM:SS,mmm --> HH:MM:SS,mmm` (SubRip) or `[HH:]MM:SS.mmm --> ...[ settings]` (WebVTT).
    static func times(_ line: String, file: String, line number: Int) throws -> (Double, Double) {
        let parts = line.components(separatedBy: "-->")
        guard parts.count == 2, let start = seconds(parts[0].trimmingCharacters(in: .whitespaces)),
            let end = seconds(
                parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? "")
        else {
            throw ExchangeError(
                .invalidSubtitles, path: file, line: number,
                message: "malformed time line \"\(line.prefix(60))\": expected 00:00:01,000 --> 00:00:02,500")
        }
        // Times are checked before they are used as frame counts: a cue hours past any film's end
        // would overflow them.
        guard start <= longestTime, end <= longestTime else {
            throw ExchangeError(
                .invalidSubtitles, path: file, line: number,
                message:
                    "the time line \"\(line.prefix(60))\" is past \(Int(longestTime / 3600)) hours: is it a subtitle file for this media?"
            )
        }
        return (start, end)
    }

    /// No cue may start or end later than this (seconds): 100 hours.
    static let longestTime = 100 * 3600.0

    static func seconds(_ text: String) -> Double? {
        let normalized = text.replacingOccurrences(of: ",", with: ".")
        let fields = normalized.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count) else { return nil }
        var total = 0.0
        for (position, field) in fields.enumerated() {
            let isLast = position == fields.count - 1
            guard !field.isEmpty, field.allSatisfy({ $0.isASCII && ($0.isNumber || (isLast && $0 == ".")) }),
                let value = Double(field)
            else { return nil }
            if !isLast && value != value.rounded() { return nil }
            if position > 0 && value >= 60 { return nil }
            total = total * 60 + value
        }
        return total
    }

    /// A cue's words: no tags, no speaker labels, no sound descriptions, one line.
    static func clean(_ text: String) -> String {
        var value = text
        for pattern in [#"<[^>]*>"#, #"\{\\[^}]*\}"#, #"\[[^\]]*\]"#, #"\([^)]*\)"#] {
            value = value.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        let lines = value.split(separator: "\n").map { line -> String in
            var line = line.trimmingCharacters(in: .whitespaces)
            // A dialogue dash, then a speaker's name in capitals followed by a colon.
            if line.hasPrefix("-") { line = String(line.dropFirst()).trimmingCharacters(in: .whitespaces) }
            if let colon = line.firstIndex(of: ":"), line.distance(from: line.startIndex, to: colon) <= 30 {
                let label = line[..<colon]
                if !label.isEmpty,
                    label.allSatisfy({ $0.isUppercase || $0 == " " || $0 == "." || $0 == "-" || $0.isNumber }),
                    label.contains(where: \.isLetter)
                {
                    line = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                }
            }
            return line
        }
        value = lines.filter { !$0.isEmpty }.joined(separator: " ")
        for (entity, character) in [
            ("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&"),
        ] {
            value = value.replacingOccurrences(of: entity, with: character)
        }
        return value.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private static func firstLineNotUTF8(_ bytes: Data) -> Int {
        var line = 1
        var start = bytes.startIndex
        for position in bytes.indices where bytes[position] == 0x0A {
            if String(data: bytes[start..<position], encoding: .utf8) == nil { return line }
            line += 1
            start = bytes.index(after: position)
        }
        return line
    }
}
