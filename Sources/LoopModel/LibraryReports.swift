import Foundation

/// What `loop doctor` found.
public struct HealthReport: Sendable {
    /// Something wrong, and what to do about it.
    public struct Problem: Sendable, Equatable {
        /// What kind of problem: each has its own remedy.
        public enum Kind: String, Sendable {
            case databaseDamaged, danglingRows, staleCounts, clipsPastTheirTake, audioMissing, audioDamaged,
                pictureMissing, pictureDamaged
            /// Reviews dated after today, or in no year a library keeps: a clock was wrong.
            case reviewsOutOfTime
        }
        /// What kind of problem it is.
        public var kind: Kind
        /// What is wrong, in a sentence.
        public var message: String
        /// What to do about it (a command to run, or a file to restore).
        public var remedy: String

        /// A problem of `kind`, said by `message`, fixed as `remedy` says.
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
    /// Loops in the library.
    public var loopCount: Int
    /// Phrases in all its loops.
    public var phraseCount: Int
    /// Audio files kept (takes and attempts).
    public var audioFileCount: Int
    /// Picture files kept.
    public var pictureFileCount: Int = 0

    /// Whether nothing needs attention.
    public var isHealthy: Bool { problems.isEmpty }

    /// A report of what a check found.
    public init(
        problems: [Problem], orphans: [String], leftovers: [String], clipsForEarlierText: [ClipForEarlierText],
        loopCount: Int, phraseCount: Int, audioFileCount: Int, pictureFileCount: Int = 0
    ) {
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
    /// The loop the phrase is in.
    public var loopId: String
    /// That loop's title.
    public var loopTitle: String
    /// 1-based, across the loop.
    public var number: Int
    /// The phrase's text now.
    public var text: String
    /// What the clip reads.
    public var recordedText: String

    /// A phrase of a loop whose clip reads `recordedText` where its text is now `text`.
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
    /// The files removed, by path.
    public var removedFiles: [String]
    /// The bytes they held.
    public var freedBytes: Int

    /// What a collection removed and freed.
    public init(removedFiles: [String], freedBytes: Int) {
        self.removedFiles = removedFiles
        self.freedBytes = freedBytes
    }
}

/// What importing a shared loop does (or, in a dry run, would do).
public enum ImportOutcome: Sendable, Equatable {
    case added(id: String)
    /// `reviewsRestarted`: groups being reviewed whose text changed, and whose reviews start anew.
    case updated(id: String, from: Int, to: Int, reviewsRestarted: Int = 0)
    case unchanged(id: String, revision: Int)
    /// The library holds a newer revision already.
    case older(id: String, have: Int, offered: Int)

    /// Whether it writes to the library.
    public var writes: Bool {
        switch self {
        case .added, .updated: true
        case .unchanged, .older: false
        }
    }
}

/// What an edit of a loop's text did.
public struct EditOutcome: Sendable, Equatable {
    /// Phrases whose text did not change: they keep their audio.
    public var kept: Int
    /// Phrases removed from the text.
    public var removed: Int
    /// New phrases (and changed ones with no clip), which need audio (`loop attach`).
    public var needingAudio: [StoredPhrase]
    /// Changed phrases that kept their clip, now marked as recorded for their earlier text.
    public var recordedForEarlierText: [StoredPhrase]
    /// The loop as edited.
    public var loop: LoopDetail
    /// Groups being reviewed whose text changed: their review schedule starts anew.
    public var reviewsRestarted = 0

    /// What an edit kept, removed and left needing audio.
    public init(
        kept: Int, removed: Int, needingAudio: [StoredPhrase], recordedForEarlierText: [StoredPhrase], loop: LoopDetail
    ) {
        self.kept = kept
        self.removed = removed
        self.needingAudio = needingAudio
        self.recordedForEarlierText = recordedForEarlierText
        self.loop = loop
    }
}

/// Where an installed loop came from: the Loop Library server that `loop update` asks.
public struct LoopOrigin: Sendable, Equatable {
    /// The loop installed.
    public var loopId: String
    /// Its title.
    public var title: String
    /// The server's base address (`https://HOST`).
    public var server: String
    /// The ETag of the bundle last installed, sent back so an unchanged loop costs no download.
    public var etag: String?

    /// Where `loopId` was installed from.
    public init(loopId: String, title: String, server: String, etag: String?) {
        self.loopId = loopId
        self.title = title
        self.server = server
        self.etag = etag
    }
}

/// The other loops titled as a loop just added is: from now on the title names them all.
public struct Namesakes: Sendable, Equatable {
    /// Their ids.
    public var others: [String]
    /// A title no loop has yet, to tell the new one apart (nil when no other loop has its title).
    public var distinctTitle: String?

    /// The loops titled alike, and a title to tell a new one apart.
    public init(others: [String] = [], distinctTitle: String? = nil) {
        self.others = others
        self.distinctTitle = distinctTitle
    }
}
