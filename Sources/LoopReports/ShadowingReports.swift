import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows

/// The words of an attempt's score, shared by `loop compare`, `loop stats` and the study view.
public enum AttemptWords {
    /// One line: `said 100% · timing 1.3x slower, 1.8x on "plaît" · intonation 0.82`, or that the
    /// attempt is not the phrase, or that no speech was heard (nil).
    public static func line(_ score: AttemptScore?) -> String {
        guard let score else { return "no speech heard" }
        // Other words: what was said of the phrase, and how, would mean nothing.
        guard score.saysThePhrase else {
            return
                "not quite the phrase (words match \(String(format: "%.2f", score.match))): listen, then say it along"
        }
        var parts: [String] = []
        var said = "said \(Int((score.coverage * 100).rounded()))%"
        if !score.missedWords.isEmpty {
            said +=
                " (missed " + score.missedWords.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ")
                + (score.missedWords.count > 3 ? ", …" : "") + ")"
        }
        parts.append(said)
        var timing: String
        if score.lengthRatio >= 1.15 {
            timing = "timing \(String(format: "%.1f", score.lengthRatio))x slower"
        } else if score.lengthRatio <= 1 / 1.15 {
            timing = "timing \(String(format: "%.1f", 1 / score.lengthRatio))x faster"
        } else {
            timing = "timing as the model"
        }
        if let word = score.timingWord {
            timing +=
                word.ratio > 1
                ? ", \(String(format: "%.1f", word.ratio))x slower on \"\(word.word)\""
                : ", \(String(format: "%.1f", 1 / word.ratio))x faster on \"\(word.word)\""
        }
        parts.append(timing)
        parts.append(
            score.intonation.map { "intonation \(String(format: "%.2f", $0))" } ?? "intonation: too little voice")
        return parts.joined(separator: " · ")
    }
}

/// An attempt's score as the commands print it: `loop compare`'s line or JSON, and each attempt
/// `loop stats LOOP` lists (with when it was recorded).
public struct AttemptReport: Encodable {
    var coverage: Double
    var match: Double
    var saysThePhrase: Bool
    var lengthRatio: Double
    var intonation: Double?
    var missedWords: [String]
    var timingWord: String?
    var timingRatio: Double?
    /// What the study view shows.
    var line: String
    /// When it was recorded (a kept attempt): ISO 8601 in the JSON.
    var recordedAt: Date?

    enum CodingKeys: String, CodingKey {
        case coverage, match, saysThePhrase, lengthRatio, intonation, missedWords, timingWord, timingRatio, line
        case recordedAt
    }

    /// The report of `score`, and when the attempt was recorded.
    public init(_ score: AttemptScore, recordedAt: Date? = nil) {
        coverage = score.coverage
        match = score.match
        saysThePhrase = score.saysThePhrase
        lengthRatio = score.lengthRatio
        intonation = score.intonation
        missedWords = score.missedWords
        timingWord = score.timingWord?.word
        timingRatio = score.timingWord?.ratio
        line = AttemptWords.line(score)
        self.recordedAt = recordedAt
    }

    /// Writes the figures, the absent ones left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(coverage, forKey: .coverage)
        try container.encode(match, forKey: .match)
        try container.encode(saysThePhrase, forKey: .saysThePhrase)
        try container.encode(lengthRatio, forKey: .lengthRatio)
        try container.encodeIfPresent(intonation, forKey: .intonation)
        try container.encode(missedWords, forKey: .missedWords)
        try container.encodeIfPresent(timingWord, forKey: .timingWord)
        try container.encodeIfPresent(timingRatio, forKey: .timingRatio)
        try container.encode(line, forKey: .line)
        try container.encodeIfPresent(recordedAt?.formatted(.iso8601), forKey: .recordedAt)
    }

    /// The score's line as a learner reads it.
    public var text: String { line }
}

/// `loop stats LOOP`: the shadowing attempts kept at each phrase.
public struct PhraseAttemptsReport: Encodable {
    var phrase: String
    var attempts: [AttemptReport]

    /// The attempts (oldest first) by phrase, the phrases in the order first attempted.
    public static func of(_ attempts: [ShadowingAttempt]) -> [PhraseAttemptsReport] {
        var order: [String] = []
        var byPhrase: [String: [AttemptReport]] = [:]
        for attempt in attempts {
            if byPhrase[attempt.phraseText] == nil { order.append(attempt.phraseText) }
            let score = AttemptScore(
                coverage: attempt.coverage, match: attempt.match, lengthRatio: attempt.lengthRatio,
                intonation: attempt.intonation, missedWords: attempt.missedWords,
                timingWord: attempt.timingWord.map { .init(word: $0, ratio: attempt.timingRatio ?? 1) })
            byPhrase[attempt.phraseText, default: []].append(AttemptReport(score, recordedAt: attempt.recordedAt))
        }
        return order.map { PhraseAttemptsReport(phrase: $0, attempts: byPhrase[$0] ?? []) }
    }

    /// The section's lines: each phrase, then its attempts, the last first.
    public static func lines(_ reports: [PhraseAttemptsReport], on terminal: Terminal) -> [String] {
        guard !reports.isEmpty else { return [] }
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd HH:mm"
        var lines = ["", terminal.paint("Shadowing: your last attempts", .bold)]
        for report in reports {
            lines.append("  " + report.phrase)
            for attempt in report.attempts.reversed() {
                let when = attempt.recordedAt.map(format.string) ?? ""
                lines.append("    " + terminal.paint(when, .dim) + "  " + attempt.line)
            }
        }
        return lines
    }
}
