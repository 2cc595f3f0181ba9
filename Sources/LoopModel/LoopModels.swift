import Foundation

/// A loop as listed.
public struct LoopSummary: Sendable, Equatable {
    /// The loop's id: a UUID, the same in every library and on every server.
    public var id: String
    /// Its title (several loops may share one).
    public var title: String
    /// The language its text is in (a BCP 47 tag: `fr`, `pt-BR`), if known.
    public var language: String?
    /// The language of its translations, if any.
    public var translationLanguage: String?
    /// Its tags, as its author wrote them.
    public var tags: [String]
    /// How many groups (paragraphs) it has.
    public var groupCount: Int
    /// How many phrases.
    public var phraseCount: Int
    /// Phrases with no audio yet.
    public var phrasesNeedingAudio: Int
    /// When it was added to this library.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// Its revision: one more at each change its author publishes.
    public var revision: Int

    /// A summary from its fields.
    public init(
        id: String, title: String, language: String? = nil, translationLanguage: String? = nil, tags: [String],
        groupCount: Int, phraseCount: Int, phrasesNeedingAudio: Int, createdAt: Date, updatedAt: Date, revision: Int
    ) {
        self.id = id
        self.title = title
        self.language = language
        self.translationLanguage = translationLanguage
        self.tags = tags
        self.groupCount = groupCount
        self.phraseCount = phraseCount
        self.phrasesNeedingAudio = phrasesNeedingAudio
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.revision = revision
    }
}

/// A loop with its text, groups and phrases.
public struct LoopDetail: Sendable, Equatable {
    /// The loop as listed.
    public var summary: LoopSummary
    /// The text it was made from, as written.
    public var sourceText: String
    /// Phrases in groups, in order.
    public var groups: [[StoredPhrase]]
    /// The loop's picture, if any.
    public var picture: StoredPicture? = nil
    /// Each group's picture (nil where it has none), in group order.
    public var groupPictures: [StoredPicture?] = []

    /// Every phrase, in reading order.
    public var phrases: [StoredPhrase] { groups.flatMap { $0 } }

    /// A loop from its summary, text, phrases and pictures.
    public init(
        summary: LoopSummary, sourceText: String, groups: [[StoredPhrase]], picture: StoredPicture? = nil,
        groupPictures: [StoredPicture?] = []
    ) {
        self.summary = summary
        self.sourceText = sourceText
        self.groups = groups
        self.picture = picture
        self.groupPictures = groupPictures
    }
}

/// A phrase in the library.
public struct StoredPhrase: Sendable, Equatable {
    /// Its row in the library (not kept in a bundle).
    public var id: Int64
    /// 1-based, in reading order across the loop.
    public var number: Int
    /// 1-based group number.
    public var group: Int
    /// The phrase as read.
    public var text: String
    /// Its translation, if the text gives one.
    public var translation: String?
    /// Its clip: a range of frames of a take, or nil while it needs audio.
    public var audio: PhraseAudio?
    /// The text the clip was recorded for, when the phrase's text has changed since (a typo
    /// fixed after recording); nil when the clip reads the phrase as it is.
    public var recordedText: String?
    /// The phrase's picture, if any.
    public var picture: StoredPicture? = nil

    /// The picture to show with this phrase: its own, else its group's, else the loop's.
    public func picture(in loop: LoopDetail) -> StoredPicture? {
        picture ?? (loop.groupPictures.indices.contains(group - 1) ? loop.groupPictures[group - 1] : nil)
            ?? loop.picture
    }

    /// The clip reads an earlier text of the phrase: worth recording again.
    public var clipIsForEarlierText: Bool { audio != nil && recordedText != nil }

    /// A phrase from its fields.
    public init(
        id: Int64, number: Int, group: Int, text: String, translation: String? = nil, audio: PhraseAudio? = nil,
        recordedText: String? = nil, picture: StoredPicture? = nil
    ) {
        self.id = id
        self.number = number
        self.group = group
        self.text = text
        self.translation = translation
        self.audio = audio
        self.recordedText = recordedText
        self.picture = picture
    }
}

/// Where a phrase's audio is: a frame range of one stored take.
public struct PhraseAudio: Sendable, Equatable {
    /// The take's SHA-256, which names its file.
    public var sha256: String
    /// The take's file, absolute.
    public var path: String
    /// The take's sample rate (Hz).
    public var sampleRate: Int
    /// The take's channels.
    public var channelCount: Int
    /// The take's length in frames.
    public var takeFrameCount: Int
    /// The clip's first frame in the take.
    public var startFrame: Int
    /// The frame after its last.
    public var endFrame: Int
    /// How sure the cutter was of the clip's edges (0...1); nil for a clip placed by hand.
    public var cutConfidence: Double?

    /// Where the clip starts in the take, in seconds.
    public var startSeconds: Double { Double(startFrame) / Double(sampleRate) }
    /// Where it ends, in seconds.
    public var endSeconds: Double { Double(endFrame) / Double(sampleRate) }

    /// A clip of a stored take.
    public init(
        sha256: String, path: String, sampleRate: Int, channelCount: Int, takeFrameCount: Int, startFrame: Int,
        endFrame: Int,
        cutConfidence: Double? = nil
    ) {
        self.cutConfidence = cutConfidence
        self.sha256 = sha256
        self.path = path
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.takeFrameCount = takeFrameCount
        self.startFrame = startFrame
        self.endFrame = endFrame
    }
}

/// A phrase found by ``LibraryStore/search(_:inLoop:limit:)``.
public struct SearchHit: Sendable, Equatable {
    /// The loop it is in.
    public var loopId: String
    /// That loop's title.
    public var loopTitle: String
    /// Its group, 1-based.
    public var group: Int
    /// Its number across the loop, 1-based.
    public var number: Int
    /// The phrase's text.
    public var text: String
    /// Its translation, if any.
    public var translation: String?

    /// A phrase found, where it is.
    public init(loopId: String, loopTitle: String, group: Int, number: Int, text: String, translation: String? = nil) {
        self.loopId = loopId
        self.loopTitle = loopTitle
        self.group = group
        self.number = number
        self.text = text
        self.translation = translation
    }
}

/// How to order ``LibraryStore/loops(language:tag:sort:)``.
public enum LoopSort: String, Sendable, CaseIterable {
    case title, updated
}

/// A loop's revisions: each change moves it on by one.
public enum LoopRevision {
    /// Revisions run from 1 to this; a bundle at a larger one is refused, so no loop goes past it.
    public static let last = 1_000_000_000
}
