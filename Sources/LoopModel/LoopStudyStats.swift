import Foundation

/// Study totals of a loop, and of each of its phrases.
public struct LoopStudyStats: Sendable, Equatable {
    public struct PhraseTotals: Sendable, Equatable {
        public var number: Int
        public var text: String
        public var seconds: Double
        public var repetitions: Int

        public init(number: Int, text: String, seconds: Double, repetitions: Int) {
            self.number = number
            self.text = text
            self.seconds = seconds
            self.repetitions = repetitions
        }
    }

    public var loopId: String
    public var title: String
    public var sessions: Int
    public var seconds: Double
    public var repetitions: Int
    public var lastStudied: Date?
    public var phrases: [PhraseTotals]

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
