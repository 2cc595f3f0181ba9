import Foundation
import LoopModel
import LoopShadowing
import LoopTerminal
import LoopWorkflows

/// `loop compare`'s words: the score's line, or its JSON.
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

    public init(_ score: AttemptScore) {
        coverage = score.coverage
        match = score.match
        saysThePhrase = score.saysThePhrase
        lengthRatio = score.lengthRatio
        intonation = score.intonation
        missedWords = score.missedWords
        timingWord = score.timingWord?.word
        timingRatio = score.timingWord?.ratio
        line = score.line
    }

    public var text: String { line }
}

/// `loop stats LOOP`: the shadowing attempts kept at each phrase.
public struct PhraseAttemptsReport: Encodable {
    var phrase: String
    var attempts: [Attempt]

    struct Attempt: Encodable {
        /// ISO 8601.
        var recordedAt: String
        var coverage: Double
        var match: Double
        var lengthRatio: Double
        var intonation: Double?
        var missedWords: [String]
        var timingWord: String?
        var timingRatio: Double?
        var line: String
    }

    /// The attempts (oldest first) by phrase, the phrases in the order first attempted.
    public static func of(_ attempts: [ShadowingAttempt]) -> [PhraseAttemptsReport] {
        var order: [String] = []
        var byPhrase: [String: [Attempt]] = [:]
        for attempt in attempts {
            if byPhrase[attempt.phraseText] == nil { order.append(attempt.phraseText) }
            let score = AttemptScore(
                coverage: attempt.coverage, match: attempt.match, lengthRatio: attempt.lengthRatio,
                intonation: attempt.intonation, missedWords: attempt.missedWords,
                timingWord: attempt.timingWord.map { .init(word: $0, ratio: attempt.timingRatio ?? 1) })
            byPhrase[attempt.phraseText, default: []].append(
                Attempt(
                    recordedAt: attempt.recordedAt.formatted(.iso8601), coverage: attempt.coverage,
                    match: attempt.match,
                    lengthRatio: attempt.lengthRatio, intonation: attempt.intonation,
                    missedWords: attempt.missedWords, timingWord: attempt.timingWord, timingRatio: attempt.timingRatio,
                    line: score.line))
        }
        return order.map { PhraseAttemptsReport(phrase: $0, attempts: byPhrase[$0] ?? []) }
    }

    /// The section's lines: each phrase, then its attempts, the last first.
    public static func lines(_ reports: [PhraseAttemptsReport], on terminal: Terminal) -> [String] {
        guard !reports.isEmpty else { return [] }
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd HH:mm"
        let parse = ISO8601DateFormatter()
        var lines = ["", terminal.paint("Shadowing: your last attempts", .bold)]
        for report in reports {
            lines.append("  " + report.phrase)
            for attempt in report.attempts.reversed() {
                lines.append(
                    "    "
                        + terminal.paint(
                            parse.date(from: attempt.recordedAt).map(format.string) ?? attempt.recordedAt, .dim) + "  "
                        + attempt.line)
            }
        }
        return lines
    }
}
