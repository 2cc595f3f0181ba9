import Foundation

/// How a learner's attempt at a phrase compares with the model: what of it was said, how
/// clearly, at what pace, and with what melody.
public struct AttemptScore: Sendable, Codable, Equatable {
    /// A word said much slower or faster than the rest of the attempt, against the model.
    public struct WordTiming: Sendable, Codable, Equatable {
        public var word: String
        /// The word's length against the model's, over the attempt's own pace (2: twice as
        /// long as the rest of the attempt would have it).
        public var ratio: Double

        public init(word: String, ratio: Double) {
            self.word = word
            self.ratio = ratio
        }
    }

    /// The share of the model's speech the attempt said (0-1).
    public var coverage: Double
    /// How clearly the attempt's words are the model's: about 0.5 for other words, near 1 for
    /// these (``AttemptScorer/leastMatch`` and above: the phrase).
    public var match: Double
    /// The attempt's length against the model's over what it said (1.3: 30% slower).
    public var lengthRatio: Double
    /// The two pitch contours compared along the alignment (0-1); nil with too little voice.
    public var intonation: Double?
    /// The model's words the attempt did not say.
    public var missedWords: [String]
    /// The word said furthest from the attempt's own pace, when one stands out.
    public var timingWord: WordTiming?

    public init(
        coverage: Double, match: Double, lengthRatio: Double, intonation: Double?, missedWords: [String],
        timingWord: WordTiming?
    ) {
        self.coverage = coverage
        self.match = match
        self.lengthRatio = lengthRatio
        self.intonation = intonation
        self.missedWords = missedWords
        self.timingWord = timingWord
    }

    /// Whether the attempt says the model's words at all.
    public var saysThePhrase: Bool { match >= AttemptScorer.leastMatch }

    /// One line for the study view: `said 100% · timing 1.3x slower, 1.8x on "plaît" · intonation 0.82`.
    public var line: String {
        // Other words: what was said of the phrase, and how, would mean nothing.
        guard saysThePhrase else {
            return "not quite the phrase (words match \(String(format: "%.2f", match))): listen, then say it along"
        }
        var parts: [String] = []
        var said = "said \(Int((coverage * 100).rounded()))%"
        if !missedWords.isEmpty {
            said +=
                " (missed " + missedWords.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ")
                + (missedWords.count > 3 ? ", …" : "") + ")"
        }
        parts.append(said)
        var timing: String
        if lengthRatio >= 1.15 {
            timing = "timing \(String(format: "%.1f", lengthRatio))x slower"
        } else if lengthRatio <= 1 / 1.15 {
            timing = "timing \(String(format: "%.1f", 1 / lengthRatio))x faster"
        } else {
            timing = "timing as the model"
        }
        if let word = timingWord {
            timing +=
                word.ratio > 1
                ? ", \(String(format: "%.1f", word.ratio))x slower on \"\(word.word)\""
                : ", \(String(format: "%.1f", 1 / word.ratio))x faster on \"\(word.word)\""
        }
        parts.append(timing)
        parts.append(intonation.map { "intonation \(String(format: "%.2f", $0))" } ?? "intonation: too little voice")
        return parts.joined(separator: " · ")
    }
}
