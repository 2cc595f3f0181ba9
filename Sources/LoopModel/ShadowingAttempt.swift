import Foundation

/// A learner's attempt at a phrase (shadowing) and how it scored against the model, as the
/// library keeps it.
public struct ShadowingAttempt: Sendable, Codable, Equatable {
    /// The phrase's text when it was attempted.
    public var phraseText: String
    /// When the attempt was recorded.
    public var recordedAt: Date
    /// The share of the model's speech said (0-1).
    public var coverage: Double
    /// How clearly the words are the model's (about 0.5 for other words, near 1 for these).
    public var match: Double
    /// The attempt's length against the model's (1.3: 30% slower).
    public var lengthRatio: Double
    /// The melody against the model's (0-1); nil with too little voice.
    public var intonation: Double?
    /// The model's words the attempt left out.
    public var missedWords: [String]
    /// The word said furthest from the attempt's pace, and its length against the model's
    /// over that pace.
    public var timingWord: String?
    /// (nil with no word standing out.)
    public var timingRatio: Double?
    /// The recording, when read back from the library (absolute).
    public var audioPath: String?

    /// An attempt as kept.
    public init(
        phraseText: String, recordedAt: Date, coverage: Double, match: Double, lengthRatio: Double,
        intonation: Double?, missedWords: [String], timingWord: String?, timingRatio: Double?, audioPath: String? = nil
    ) {
        self.phraseText = phraseText
        self.recordedAt = recordedAt
        self.coverage = coverage
        self.match = match
        self.lengthRatio = lengthRatio
        self.intonation = intonation
        self.missedWords = missedWords
        self.timingWord = timingWord
        self.timingRatio = timingRatio
        self.audioPath = audioPath
    }
}
