import Foundation
import LoopCutting
import LoopModel
import LoopText
import LoopShare
import LoopPictures

// The `--json` shapes of the commands: Encodable values written by one encoder (sorted keys),
// made from the same values the human output shows. Absent values are written as `null`, never
// left out, so that every key of a shape is always there.

/// Writes `--json` output: one encoder, keys sorted, slashes left alone.
enum JSONOutput {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The value as one line of JSON.
    static func line(_ value: some Encodable) throws -> String {
        String(decoding: try encoder().encode(value), as: UTF8.self)
    }

    /// Prints the value as one line of JSON.
    static func print(_ value: some Encodable) throws {
        Swift.print(try line(value))
    }
}

/// Seconds rounded to the millisecond, for output.
func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

/// `loop list --json`: one loop.
struct LoopSummaryReport: Encodable {
    var id: String
    var title: String
    var language: String?
    var translationLanguage: String?
    var tags: [String]
    var groups: Int
    var phrases: Int
    var needingAudio: Int
    var revision: Int
    var updated: String

    init(_ loop: LoopSummary) {
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

    enum CodingKeys: String, CodingKey { case id, title, language, translationLanguage, tags, groups, phrases, needingAudio, revision, updated }

    func encode(to encoder: any Encoder) throws {
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
struct LoopDetailReport: Encodable {
    struct Group: Encodable {
        var phrases: [PhraseReport]
        var picture: PictureReport?

        enum CodingKeys: String, CodingKey { case phrases, picture }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(phrases, forKey: .phrases)
            try container.encode(picture, forKey: .picture)
        }
    }

    var id: String
    var title: String
    var language: String?
    var translationLanguage: String?
    var tags: [String]
    var revision: Int
    var groups: [Group]
    var picture: PictureReport?

    init(_ loop: LoopDetail) {
        id = loop.summary.id
        title = loop.summary.title
        language = loop.summary.language
        translationLanguage = loop.summary.translationLanguage
        tags = loop.summary.tags
        revision = loop.summary.revision
        groups = loop.groups.enumerated().map { index, group in
            Group(phrases: group.map(PhraseReport.init), picture: loop.groupPictures.indices.contains(index) ? loop.groupPictures[index].map(PictureReport.init) : nil)
        }
        picture = loop.picture.map(PictureReport.init)
    }

    enum CodingKeys: String, CodingKey { case id, title, language, translationLanguage, tags, revision, picture, groups }

    func encode(to encoder: any Encoder) throws {
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
struct PictureReport: Encodable {
    var path: String
    var format: String
    var width: Int
    var height: Int
    var sha256: String

    init(_ picture: StoredPicture) {
        path = picture.path
        format = picture.format.rawValue
        width = picture.width
        height = picture.height
        sha256 = picture.sha256
    }
}

/// A phrase of a loop: its clip's times in its take (null while it needs audio), and the text
/// its clip was recorded for when that is not its own.
struct PhraseReport: Encodable {
    var number: Int
    var text: String
    var translation: String?
    var start: Double?
    var end: Double?
    var recordedText: String?
    var picture: PictureReport?

    init(_ phrase: StoredPhrase) {
        number = phrase.number
        text = phrase.text
        translation = phrase.translation
        start = phrase.audio.map { milliseconds($0.startSeconds) }
        end = phrase.audio.map { milliseconds($0.endSeconds) }
        recordedText = phrase.clipIsForEarlierText ? phrase.recordedText : nil
        picture = phrase.picture.map(PictureReport.init)
    }

    enum CodingKeys: String, CodingKey { case number, text, translation, start, end, recordedText, picture }

    func encode(to encoder: any Encoder) throws {
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
struct SearchHitReport: Encodable {
    var loop: String
    var title: String
    var group: Int
    var phrase: Int
    var text: String
    var translation: String?

    init(_ hit: SearchHit) {
        loop = hit.loopId
        title = hit.loopTitle
        group = hit.group
        phrase = hit.number
        text = hit.text
        translation = hit.translation
    }

    enum CodingKeys: String, CodingKey { case loop, title, group, phrase, text, translation }

    func encode(to encoder: any Encoder) throws {
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
struct SegmentationReport: Encodable {
    struct Segment: Encodable { var start: Double; var end: Double }
    struct Cut: Encodable { var at: Double; var pause: Double; var confidence: Double }

    var file: String
    var duration: Double
    var sampleRate: Int
    var channels: Int
    var segments: [Segment]
    var cuts: [Cut]

    init(file: String, segmentation: Segmentation) {
        self.file = file
        duration = milliseconds(segmentation.duration)
        sampleRate = segmentation.sampleRate
        channels = segmentation.channelCount
        segments = segmentation.segments.map {
            Segment(start: milliseconds(segmentation.seconds($0.startFrame)), end: milliseconds(segmentation.seconds($0.endFrame)))
        }
        cuts = segmentation.cuts.map {
            Cut(at: milliseconds(segmentation.seconds($0.frame)), pause: milliseconds($0.pauseDuration), confidence: $0.confidence)
        }
    }
}

/// `loop cut --json`: the clips written.
struct CutReport: Encodable {
    struct Clip: Encodable { var file: String; var text: String; var start: Double; var end: Double }
    var take: String
    var labels: String
    var clips: [Clip]
}

/// `loop gc --json`.
struct GarbageReportOutput: Encodable {
    var removed: [String]
    var freedBytes: Int
}

/// `loop doctor --json`.
struct HealthReportOutput: Encodable {
    struct Problem: Encodable { var kind: String; var message: String; var remedy: String }
    struct EarlierText: Encodable { var loop: String; var title: String; var phrase: Int; var text: String; var recordedText: String }

    var healthy: Bool
    var problems: [Problem]
    var orphans: [String]
    var leftovers: [String]
    var clipsForEarlierText: [EarlierText]
    var loops: Int
    var phrases: Int
    var audioFiles: Int
    var pictures: Int

    init(_ report: HealthReport) {
        healthy = report.isHealthy
        problems = report.problems.map { Problem(kind: $0.kind.rawValue, message: $0.message, remedy: NextStep.fix(for: $0)) }
        orphans = report.orphans
        leftovers = report.leftovers
        clipsForEarlierText = report.clipsForEarlierText.map {
            EarlierText(loop: $0.loopId, title: $0.loopTitle, phrase: $0.number, text: $0.text, recordedText: $0.recordedText)
        }
        loops = report.loopCount
        phrases = report.phraseCount
        audioFiles = report.audioFileCount
        pictures = report.pictureFileCount
    }
}

/// `loop inspect --json`.
struct BundleReport: Encodable {
    struct Loop: Encodable {
        var id: String
        var revision: Int
        var title: String
        var language: String?
        var phrases: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(revision, forKey: .revision)
            try container.encode(title, forKey: .title)
            try container.encode(language, forKey: .language)
            try container.encode(phrases, forKey: .phrases)
        }
        enum CodingKeys: String, CodingKey { case id, revision, title, language, phrases }
    }
    struct Audio: Encodable { var file: String; var bytes: Int; var sha256: String }

    var version: Int
    var created: String
    var signer: String
    var verified: Bool
    var loops: [Loop]
    var audio: [Audio]

    init(_ verified: VerifiedBundle) {
        let manifest = verified.manifest
        version = manifest.version
        created = manifest.created
        signer = verified.signerFingerprint
        self.verified = true
        loops = manifest.loops.map {
            Loop(id: $0.id, revision: $0.revision, title: $0.title, language: $0.language, phrases: $0.groups.reduce(0) { $0 + $1.phrases.count })
        }
        audio = manifest.audio.map { Audio(file: $0.file, bytes: $0.bytes, sha256: $0.sha256) }
    }
}

/// `loop stats --json`: one loop's study totals.
struct StudyStatsReport: Encodable {
    struct Phrase: Encodable { var number: Int; var text: String; var seconds: Double; var repetitions: Int }

    var id: String
    var title: String
    var sessions: Int
    var seconds: Double
    var repetitions: Int
    var lastStudied: String?
    var phrases: [Phrase]

    init(_ stats: LoopStudyStats) {
        id = stats.loopId
        title = stats.title
        sessions = stats.sessions
        seconds = milliseconds(stats.seconds)
        repetitions = stats.repetitions
        lastStudied = stats.lastStudied?.formatted(.iso8601)
        phrases = stats.phrases.map { Phrase(number: $0.number, text: $0.text, seconds: milliseconds($0.seconds), repetitions: $0.repetitions) }
    }

    enum CodingKeys: String, CodingKey { case id, title, sessions, seconds, repetitions, lastStudied, phrases }

    func encode(to encoder: any Encoder) throws {
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
