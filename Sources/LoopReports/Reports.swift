import Foundation
import LoopCutting
import LoopModel
import LoopPictures
import LoopShare
import LoopSpeech
import LoopText
import LoopWorkflows

// The `--json` shapes of the commands: Encodable values written by one encoder (sorted keys),
// made from the same values the human output shows. Absent values are written as `null`, never
// left out, so that every key of a shape is always there.

/// Writes `--json` output: one encoder, keys sorted, slashes left alone.
public enum JSONOutput {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The value as one line of JSON.
    public static func line(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    /// Prints the value as one line of JSON.
    public static func print(_ value: some Encodable) throws {
        Swift.print(try line(value))
    }
}

/// Seconds rounded to the millisecond, for output.
public func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

/// `loop list --json`: one loop.
public struct LoopSummaryReport: Encodable {
    public var id: String
    public var title: String
    public var language: String?
    public var translationLanguage: String?
    public var tags: [String]
    public var groups: Int
    public var phrases: Int
    public var needingAudio: Int
    public var revision: Int
    public var updated: String

    public init(_ loop: LoopSummary) {
        id = loop.id
        title = loop.title
        language = loop.language
        translationLanguage = loop.translationLanguage
        tags = loop.tags
        groups = loop.groupCount
        phrases = loop.phraseCount
        needingAudio = loop.phrasesNeedingAudio
        revision = loop.revision
        updated = loop.updatedAt.formatted(.iso8601)
    }

    enum CodingKeys: String, CodingKey {
        case id, title, language, translationLanguage, tags, groups, phrases, needingAudio, revision, updated
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(language, forKey: .language)
        try container.encode(translationLanguage, forKey: .translationLanguage)
        try container.encode(tags, forKey: .tags)
        try container.encode(groups, forKey: .groups)
        try container.encode(phrases, forKey: .phrases)
        try container.encode(needingAudio, forKey: .needingAudio)
        try container.encode(revision, forKey: .revision)
        try container.encode(updated, forKey: .updated)
    }
}

/// `loop show --json` and `loop new --json`: a loop with its groups and phrases.
public struct LoopDetailReport: Encodable {
    public struct Group: Encodable {
        var phrases: [PhraseReport]
        var picture: PictureReport?

        enum CodingKeys: String, CodingKey { case phrases, picture }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(phrases, forKey: .phrases)
            try container.encode(picture, forKey: .picture)
        }
    }

    public var id: String
    public var title: String
    public var language: String?
    public var translationLanguage: String?
    public var tags: [String]
    public var revision: Int
    public var groups: [Group]
    public var picture: PictureReport?

    public init(_ loop: LoopDetail) {
        id = loop.summary.id
        title = loop.summary.title
        language = loop.summary.language
        translationLanguage = loop.summary.translationLanguage
        tags = loop.summary.tags
        revision = loop.summary.revision
        groups = loop.groups.enumerated().map { index, group in
            Group(
                phrases: group.map(PhraseReport.init),
                picture: loop.groupPictures.indices.contains(index)
                    ? loop.groupPictures[index].map(PictureReport.init) : nil)
        }
        picture = loop.picture.map(PictureReport.init)
    }

    enum CodingKeys: String, CodingKey {
        case id, title, language, translationLanguage, tags, revision, picture, groups
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(language, forKey: .language)
        try container.encode(translationLanguage, forKey: .translationLanguage)
        try container.encode(tags, forKey: .tags)
        try container.encode(revision, forKey: .revision)
        try container.encode(picture, forKey: .picture)
        try container.encode(groups, forKey: .groups)
    }
}

/// A picture of a loop, a group or a phrase: its file in the library, format and size.
public struct PictureReport: Encodable {
    public var path: String
    public var format: String
    public var width: Int
    public var height: Int
    public var sha256: String

    public init(_ picture: StoredPicture) {
        path = picture.path
        format = picture.format.rawValue
        width = picture.width
        height = picture.height
        sha256 = picture.sha256
    }
}

/// A phrase of a loop: its clip's times in its take (null while it needs audio), and the text
/// its clip was recorded for when that is not its own.
public struct PhraseReport: Encodable {
    public var number: Int
    public var text: String
    public var translation: String?
    public var start: Double?
    public var end: Double?
    public var recordedText: String?
    public var picture: PictureReport?

    public init(_ phrase: StoredPhrase) {
        number = phrase.number
        text = phrase.text
        translation = phrase.translation
        start = phrase.audio.map { milliseconds($0.startSeconds) }
        end = phrase.audio.map { milliseconds($0.endSeconds) }
        recordedText = phrase.clipIsForEarlierText ? phrase.recordedText : nil
        picture = phrase.picture.map(PictureReport.init)
    }

    enum CodingKeys: String, CodingKey { case number, text, translation, start, end, recordedText, picture }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(text, forKey: .text)
        try container.encode(translation, forKey: .translation)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encode(recordedText, forKey: .recordedText)
        try container.encode(picture, forKey: .picture)
    }
}

/// `loop search --json`: one phrase found.
public struct SearchHitReport: Encodable {
    public var loop: String
    public var title: String
    public var group: Int
    public var phrase: Int
    public var text: String
    public var translation: String?

    public init(_ hit: SearchHit) {
        loop = hit.loopId
        title = hit.loopTitle
        group = hit.group
        phrase = hit.number
        text = hit.text
        translation = hit.translation
    }

    enum CodingKeys: String, CodingKey { case loop, title, group, phrase, text, translation }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(loop, forKey: .loop)
        try container.encode(title, forKey: .title)
        try container.encode(group, forKey: .group)
        try container.encode(phrase, forKey: .phrase)
        try container.encode(text, forKey: .text)
        try container.encode(translation, forKey: .translation)
    }
}

/// `loop segment --json`: the take, its segments and its cuts, in seconds.
public struct SegmentationReport: Encodable {
    public struct Segment: Encodable {
        var start: Double
        var end: Double
        /// With a text, the line (phrase) of the text the segment reads, 1-based.
        var phrase: Int?

        private enum CodingKeys: String, CodingKey { case start, end, phrase }

        /// The phrase is written as `null` without a text, never left out.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
            try container.encode(phrase, forKey: .phrase)
        }
    }
    public struct Cut: Encodable { var at: Double; var pause: Double; var confidence: Double }

    public var file: String
    public var duration: Double
    public var sampleRate: Int
    public var channels: Int
    public var segments: [Segment]
    public var cuts: [Cut]
    /// `text` (aligned with the text) or `pauses`.
    public var method: String
    /// The language the text was aligned in, and where it came from (`given`, `loop`, `guessed`).
    public var language: String?
    public var languageOrigin: String?
    /// With a text: the first and last phrase the segments read (1-based).
    public var phrases: [Int]?
    /// With a text: the phrases the take does not read (1-based), which still need audio.
    public var missing: [Int]?
    public var notes: [String]

    /// The report on `segmentation` of the take at `file`, cut for `phraseCount` phrases when
    /// it was cut by a text.
    public init(file: String, segmentation: Segmentation, phraseCount: Int? = nil) {
        self.file = file
        switch segmentation.method {
        case .pauses: method = "pauses"
        case .text(let language):
            method = "text"
            self.language = language.code
            languageOrigin = language.origin.rawValue
        }
        phrases = segmentation.phrases.flatMap { found in found.first.map { [$0 + 1, found[found.count - 1] + 1] } }
        if let found = segmentation.phrases, let phraseCount {
            missing = (0..<phraseCount).filter { !found.contains($0) }.map { $0 + 1 }
        }
        notes = segmentation.notes
        duration = milliseconds(segmentation.duration)
        sampleRate = segmentation.sampleRate
        channels = segmentation.channelCount
        segments = segmentation.segments.enumerated().map { index, segment in
            Segment(
                start: milliseconds(segmentation.seconds(segment.startFrame)),
                end: milliseconds(segmentation.seconds(segment.endFrame)),
                phrase: segmentation.phrases.map { $0[index] + 1 })
        }
        cuts = segmentation.cuts.map {
            Cut(
                at: milliseconds(segmentation.seconds($0.frame)), pause: milliseconds($0.pauseDuration),
                confidence: $0.confidence)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case file, duration, sampleRate, channels, segments, cuts, method, language, languageOrigin, phrases, missing
        case notes
    }

    /// Absent values are written as `null`, never left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(duration, forKey: .duration)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(channels, forKey: .channels)
        try container.encode(segments, forKey: .segments)
        try container.encode(cuts, forKey: .cuts)
        try container.encode(method, forKey: .method)
        try container.encode(language, forKey: .language)
        try container.encode(languageOrigin, forKey: .languageOrigin)
        try container.encode(phrases, forKey: .phrases)
        try container.encode(missing, forKey: .missing)
        try container.encode(notes, forKey: .notes)
    }
}

/// `loop cut --json`: the clips written.
public struct CutReport: Encodable {
    public struct Clip: Encodable {
        var file: String
        var text: String
        var start: Double
        var end: Double

        public init(file: String, text: String, start: Double, end: Double) {
            self.file = file
            self.text = text
            self.start = start
            self.end = end
        }
    }

    public var take: String
    public var labels: String
    public var clips: [Clip]

    public init(take: String, labels: String, clips: [Clip]) {
        self.take = take
        self.labels = labels
        self.clips = clips
    }

    /// The clips written (`clipPaths`), each with its text and its times in the take.
    public init(take: String, labels: String, clipPaths: [String], texts: [String], segmentation: Segmentation) {
        let clips = clipPaths.enumerated().map { index, path in
            let segment = segmentation.segments[index]
            return Clip(
                file: path, text: texts[index], start: milliseconds(segmentation.seconds(segment.startFrame)),
                end: milliseconds(segmentation.seconds(segment.endFrame)))
        }
        self.init(take: take, labels: labels, clips: clips)
    }
}

/// `loop gc --json`.
public struct GarbageReportOutput: Encodable {
    public var removed: [String]
    public var freedBytes: Int

    public init(removed: [String], freedBytes: Int) {
        self.removed = removed
        self.freedBytes = freedBytes
    }
}

/// `loop doctor --json`.
public struct HealthReportOutput: Encodable {
    public struct Problem: Encodable { var kind: String; var message: String; var remedy: String }
    public struct EarlierText: Encodable {
        var loop: String; var title: String; var phrase: Int; var text: String; var recordedText: String
    }

    public var healthy: Bool
    public var problems: [Problem]
    public var orphans: [String]
    public var leftovers: [String]
    public var clipsForEarlierText: [EarlierText]
    public var loops: Int
    public var phrases: Int
    public var audioFiles: Int
    public var pictures: Int

    /// `report`, each problem's remedy as `remedy` words it (an interface names its own commands).
    public init(_ report: HealthReport, remedy: (HealthReport.Problem) -> String) {
        healthy = report.isHealthy
        problems = report.problems.map { Problem(kind: $0.kind.rawValue, message: $0.message, remedy: remedy($0)) }
        orphans = report.orphans
        leftovers = report.leftovers
        clipsForEarlierText = report.clipsForEarlierText.map {
            EarlierText(
                loop: $0.loopId, title: $0.loopTitle, phrase: $0.number, text: $0.text, recordedText: $0.recordedText)
        }
        loops = report.loopCount
        phrases = report.phraseCount
        audioFiles = report.audioFileCount
        pictures = report.pictureFileCount
    }
}

/// `loop inspect --json`.
public struct BundleReport: Encodable {
    public struct Loop: Encodable {
        var id: String
        var revision: Int
        var title: String
        var language: String?
        var phrases: Int

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(revision, forKey: .revision)
            try container.encode(title, forKey: .title)
            try container.encode(language, forKey: .language)
            try container.encode(phrases, forKey: .phrases)
        }
        enum CodingKeys: String, CodingKey { case id, revision, title, language, phrases }
    }
    public struct Audio: Encodable { var file: String; var bytes: Int; var sha256: String }

    public var version: Int
    public var created: String
    public var signer: String
    /// The author's name the bundle gives (format version 4; absent when it gives none).
    public var signerName: String?
    public var verified: Bool
    public var loops: [Loop]
    public var audio: [Audio]

    public init(_ verified: VerifiedBundle) {
        let manifest = verified.manifest
        version = manifest.version
        created = manifest.created
        signer = verified.signerFingerprint
        signerName = manifest.authorName
        self.verified = true
        loops = manifest.loops.map {
            Loop(
                id: $0.id, revision: $0.revision, title: $0.title, language: $0.language,
                phrases: $0.groups.reduce(0) { $0 + $1.phrases.count })
        }
        audio = manifest.audio.map { Audio(file: $0.file, bytes: $0.bytes, sha256: $0.sha256) }
    }
}

/// `loop stats --json`: one loop's study totals.
public struct StudyStatsReport: Encodable {
    public struct Phrase: Encodable { var number: Int; var text: String; var seconds: Double; var repetitions: Int }

    public var id: String
    public var title: String
    public var sessions: Int
    public var seconds: Double
    public var repetitions: Int
    public var lastStudied: String?
    public var phrases: [Phrase]

    public init(_ stats: LoopStudyStats) {
        id = stats.loopId
        title = stats.title
        sessions = stats.sessions
        seconds = milliseconds(stats.seconds)
        repetitions = stats.repetitions
        lastStudied = stats.lastStudied?.formatted(.iso8601)
        phrases = stats.phrases.map {
            Phrase(number: $0.number, text: $0.text, seconds: milliseconds($0.seconds), repetitions: $0.repetitions)
        }
    }

    enum CodingKeys: String, CodingKey { case id, title, sessions, seconds, repetitions, lastStudied, phrases }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(sessions, forKey: .sessions)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(repetitions, forKey: .repetitions)
        try container.encode(lastStudied, forKey: .lastStudied)
        try container.encode(phrases, forKey: .phrases)
    }
}

/// `loop stats --import FILE --json`: what the merge did.
public struct ProgressImportReport: Encodable {
    public var sessionsAdded: Int
    public var sessionsAlreadyHere: Int
    public var phrasesAdded: Int
    public var phrasesUnmatched: Int
    public var loopsNotHere: [String]
    public var titles: [String]
    public var reviewsAdded: Int
    public var reviewsUnmatched: Int

    public init(_ outcome: ProgressImport.Outcome) {
        reviewsAdded = outcome.reviewsAdded
        reviewsUnmatched = outcome.reviewsUnmatched
        sessionsAdded = outcome.sessionsAdded
        sessionsAlreadyHere = outcome.sessionsAlreadyHere
        phrasesAdded = outcome.phrasesAdded
        phrasesUnmatched = outcome.phrasesUnmatched
        loopsNotHere = outcome.loopsNotHere
        titles = outcome.titles
    }
}
