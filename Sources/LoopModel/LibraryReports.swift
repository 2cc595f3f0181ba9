import Foundation

/// What `loop doctor` found.
public struct HealthReport: Sendable {
    /// Something wrong, and what to do about it.
    public struct Problem: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case databaseDamaged, danglingRows, staleCounts, clipsPastTheirTake, audioMissing, audioDamaged, pictureMissing, pictureDamaged
        }
        public var kind: Kind
        public var message: String
        public var remedy: String

        public init(kind: Kind, message: String, remedy: String) {
            self.kind = kind
            self.message = message
            self.remedy = remedy
        }
    }

    /// Problems that need attention: the library is not healthy while there are any.
    public var problems: [Problem]
    /// Audio files no row refers to (harmless; `loop gc` removes them).
    public var orphans: [String]
    /// Pieces of interrupted copies (harmless; `loop gc` removes them).
    public var leftovers: [String]
    /// Phrases whose clip was recorded for an earlier text of theirs (worth recording again).
    public var clipsForEarlierText: [ClipForEarlierText]
    public var loopCount: Int
    public var phraseCount: Int
    public var audioFileCount: Int
    public var pictureFileCount: Int = 0

    public var isHealthy: Bool { problems.isEmpty }

    public init(problems: [Problem], orphans: [String], leftovers: [String], clipsForEarlierText: [ClipForEarlierText], loopCount: Int, phraseCount: Int, audioFileCount: Int, pictureFileCount: Int = 0) {
        self.problems = problems
        self.orphans = orphans
        self.leftovers = leftovers
        self.clipsForEarlierText = clipsForEarlierText
        self.loopCount = loopCount
        self.phraseCount = phraseCount
        self.audioFileCount = audioFileCount
        self.pictureFileCount = pictureFileCount
    }
}

/// A phrase whose text changed after its clip was recorded.
public struct ClipForEarlierText: Sendable, Equatable {
    public var loopId: String
    public var loopTitle: String
    /// 1-based, across the loop.
    public var number: Int
    public var text: String
    /// What the clip reads.
    public var recordedText: String

    public init(loopId: String, loopTitle: String, number: Int, text: String, recordedText: String) {
        self.loopId = loopId
        self.loopTitle = loopTitle
        self.number = number
        self.text = text
        self.recordedText = recordedText
    }
}

/// What `loop gc` removed.
public struct GarbageReport: Sendable, Equatable {
    public var removedFiles: [String]
    public var freedBytes: Int

    public init(removedFiles: [String], freedBytes: Int) {
        self.removedFiles = removedFiles
        self.freedBytes = freedBytes
    }
}
