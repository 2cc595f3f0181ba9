import Foundation

/// Study totals of a loop, and of each of its phrases.
public struct LoopStudyStats: Sendable, Equatable {
    /// Study totals of one phrase.
    public struct PhraseTotals: Sendable, Equatable {
        /// The phrase's number across its loop, 1-based.
        public var number: Int
        /// Its text.
        public var text: String
        /// Seconds spent on it, its clip and its gaps.
        public var seconds: Double
        /// Times it was played.
        public var repetitions: Int

        /// A phrase's totals.
        public init(number: Int, text: String, seconds: Double, repetitions: Int) {
            self.number = number
            self.text = text
            self.seconds = seconds
            self.repetitions = repetitions
        }
    }

    /// The loop's id.
    public var loopId: String
    /// Its title.
    public var title: String
    /// Study sessions of it.
    public var sessions: Int
    /// Seconds studied in all.
    public var seconds: Double
    /// Phrases played in all.
    public var repetitions: Int
    /// When it was last studied, if ever.
    public var lastStudied: Date?
    /// Each phrase's totals, in reading order.
    public var phrases: [PhraseTotals]

    /// A loop's totals.
    public init(
        loopId: String, title: String, sessions: Int, seconds: Double, repetitions: Int, lastStudied: Date? = nil,
        phrases: [PhraseTotals]
    ) {
        self.loopId = loopId
        self.title = title
        self.sessions = sessions
        self.seconds = seconds
        self.repetitions = repetitions
        self.lastStudied = lastStudied
        self.phrases = phrases
    }
}
