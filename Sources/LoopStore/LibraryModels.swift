import Foundation

/// A loop as listed.
public struct LoopSummary: Sendable, Equatable {
    public var id: String
    public var title: String
    public var language: String?
    public var translationLanguage: String?
    public var tags: [String]
    public var groupCount: Int
    public var phraseCount: Int
    /// Phrases with no audio yet.
    public var phrasesNeedingAudio: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var revision: Int
}

/// A loop with its text, groups and phrases.
public struct LoopDetail: Sendable, Equatable {
    public var summary: LoopSummary
    public var sourceText: String
    /// Phrases in groups, in order.
    public var groups: [[StoredPhrase]]
    /// The loop's picture, if any.
    public var picture: StoredPicture? = nil
    /// Each group's picture (nil where it has none), in group order.
    public var groupPictures: [StoredPicture?] = []

    public var phrases: [StoredPhrase] { groups.flatMap { $0 } }
}

/// A phrase in the library.
public struct StoredPhrase: Sendable, Equatable {
    public var id: Int64
    /// 1-based, in reading order across the loop.
    public var number: Int
    /// 1-based group number.
    public var group: Int
    public var text: String
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
        picture ?? (loop.groupPictures.indices.contains(group - 1) ? loop.groupPictures[group - 1] : nil) ?? loop.picture
    }

    /// The clip reads an earlier text of the phrase: worth recording again.
    public var clipIsForEarlierText: Bool { audio != nil && recordedText != nil }
}

/// Where a phrase's audio is: a frame range of one stored take.
public struct PhraseAudio: Sendable, Equatable {
    public var sha256: String
    /// The take's file, absolute.
    public var path: String
    public var sampleRate: Int
    public var channelCount: Int
    /// The take's length in frames.
    public var takeFrameCount: Int
    public var startFrame: Int
    public var endFrame: Int

    public var startSeconds: Double { Double(startFrame) / Double(sampleRate) }
    public var endSeconds: Double { Double(endFrame) / Double(sampleRate) }
}

/// A phrase found by ``LoopLibrary/search(_:inLoop:limit:)``.
public struct SearchHit: Sendable, Equatable {
    public var loopId: String
    public var loopTitle: String
    public var group: Int
    public var number: Int
    public var text: String
    public var translation: String?
}

/// How to order ``LoopLibrary/loops(language:tag:sort:)``.
public enum LoopSort: String, Sendable, CaseIterable {
    case title, updated
}

/// A take cut into phrase ranges, ready to store.
public struct CutTake: Sendable {
    public var path: String
    /// One range per phrase it is for, in order, in the take's frames.
    public var ranges: [Range<Int>]

    public init(path: String, ranges: [Range<Int>]) {
        self.path = path
        self.ranges = ranges
    }
}

/// Text folded for matching: lower case, no diacritics, NFC.
func matchingKey(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        .precomposedStringWithCanonicalMapping
        .trimmingCharacters(in: .whitespaces)
}
