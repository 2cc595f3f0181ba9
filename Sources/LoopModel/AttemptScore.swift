import Foundation

/// How a learner's attempt at a phrase compares with the model: what of it was said, how
/// clearly, at what pace, and with what melody.
public struct AttemptScore: Sendable, Codable, Equatable {
    /// A word said much slower or faster than the rest of the attempt, against the model.
    public struct WordTiming: Sendable, Codable, Equatable {
        /// The word, as the text spells it.
        public var word: String
        /// The word's length against the model's, over the attempt's own pace (2: twice as
        /// long as the rest of the attempt would have it).
        public var ratio: Double

        /// A word said `ratio` times as long as the attempt's pace would have it.
        public init(word: String, ratio: Double) {
            self.word = word
            self.ratio = ratio
        }
    }

    /// The share of the model's speech the attempt said (0-1).
    public var coverage: Double
    /// How clearly the attempt's words are the model's: about 0.5 for other words, near 1 for
    /// these (``leastMatch`` and above: the phrase).
    public var match: Double
    /// The attempt's length against the model's over what it said (1.3: 30% slower).
    public var lengthRatio: Double
    /// The two pitch contours compared along the alignment (0-1); nil with too little voice.
    public var intonation: Double?
    /// The model's words the attempt did not say.
    public var missedWords: [String]
    /// The word said furthest from the attempt's own pace, when one stands out.
    public var timingWord: WordTiming?

    /// A score from its parts.
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

    /// An attempt whose words match the model's at least this much says the phrase (other
    /// words match about one half).
    public static let leastMatch = 0.66

    /// Whether the attempt says the model's words at all.
    public var saysThePhrase: Bool { match >= Self.leastMatch }
}
