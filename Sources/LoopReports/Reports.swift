import Foundation
import LoopModel
import LoopWorkflows

// The `--json` shapes of the commands: Encodable values written by one encoder (sorted keys),
// made from the same outcomes the human output shows. Absent values are written as `null`
// (``NullWhenAbsent``), never left out, so that every key of a shape is always there.

/// Writes `--json` output: one encoder, keys sorted, slashes left alone.
public enum JSONOutput {
    /// The encoder every `--json` output is written with.
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

/// An optional value of a report written as `null` when absent, rather than left out (the
/// encoder leaves out a plain optional).
@propertyWrapper
public struct NullWhenAbsent<Value: Encodable & Sendable>: Encodable, Sendable {
    /// The value, or nil to write `null`.
    public var wrappedValue: Value?

    /// A value that is written as `null` when nil.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    /// Writes the value, or `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// Seconds rounded to the millisecond, for output.
public func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

/// `loop list --json`: one loop.
public struct LoopSummaryReport: Encodable {
    var id: String
    var title: String
    @NullWhenAbsent var language: String?
    @NullWhenAbsent var translationLanguage: String?
    var tags: [String]
    var groups: Int
    var phrases: Int
    var needingAudio: Int
    var revision: Int
    var updated: String

    /// The report of `loop`.
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
}

/// `loop show --json` and `loop new --json`: a loop with its groups and phrases.
public struct LoopDetailReport: Encodable {
    struct Group: Encodable {
        var phrases: [PhraseReport]
        @NullWhenAbsent var picture: PictureReport?
    }

    var id: String
    var title: String
    @NullWhenAbsent var language: String?
    @NullWhenAbsent var translationLanguage: String?
    var tags: [String]
    var revision: Int
    var groups: [Group]
    @NullWhenAbsent var picture: PictureReport?

    /// The report of `loop`.
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
}

/// A picture of a loop, a group or a phrase: its file in the library, format and size.
public struct PictureReport: Encodable, Sendable {
    var path: String
    var format: String
    var width: Int
    var height: Int
    var sha256: String

    /// The report of `picture`.
    public init(_ picture: StoredPicture) {
        path = picture.path
        format = picture.formatCode
        width = picture.width
        height = picture.height
        sha256 = picture.sha256
    }
}

/// A phrase of a loop: its clip's times in its take (null while it needs audio), and the text
/// its clip was recorded for when that is not its own.
public struct PhraseReport: Encodable {
    var number: Int
    var text: String
    @NullWhenAbsent var translation: String?
    @NullWhenAbsent var start: Double?
    @NullWhenAbsent var end: Double?
    @NullWhenAbsent var recordedText: String?
    @NullWhenAbsent var picture: PictureReport?

    /// The report of `phrase`.
    public init(_ phrase: StoredPhrase) {
        number = phrase.number
        text = phrase.text
        translation = phrase.translation
        start = phrase.audio.map { milliseconds($0.startSeconds) }
        end = phrase.audio.map { milliseconds($0.endSeconds) }
        recordedText = phrase.clipIsForEarlierText ? phrase.recordedText : nil
        picture = phrase.picture.map(PictureReport.init)
    }
}

/// `loop search --json`: one phrase found.
public struct SearchHitReport: Encodable {
    var loop: String
    var title: String
    var group: Int
    var phrase: Int
    var text: String
    @NullWhenAbsent var translation: String?

    /// The report of `hit`.
    public init(_ hit: SearchHit) {
        loop = hit.loopId
        title = hit.loopTitle
        group = hit.group
        phrase = hit.number
        text = hit.text
        translation = hit.translation
    }
}

/// `loop segment --json`: the take, its segments and its cuts, in seconds.
public struct SegmentationReport: Encodable {
    struct Segment: Encodable {
        var start: Double
        var end: Double
        /// With a text, the line (phrase) of the text the segment reads, 1-based.
        @NullWhenAbsent var phrase: Int?
    }
    struct Cut: Encodable {
        var at: Double
        var pause: Double
        var confidence: Double
    }

    var file: String
    var duration: Double
    var sampleRate: Int
    var channels: Int
    var segments: [Segment]
    var cuts: [Cut]
    /// `text` (aligned with the text) or `pauses`.
    var method: String
    /// The language the text was aligned in, and where it came from (`given`, `loop`, `guessed`).
    @NullWhenAbsent var language: String?
    @NullWhenAbsent var languageOrigin: String?
    /// With a text: the first and last phrase the segments read (1-based).
    @NullWhenAbsent var phrases: [Int]?
    /// With a text: the phrases the take does not read (1-based), which still need audio;
    /// where the take was found in a longer text, those within the stretch found.
    @NullWhenAbsent var missing: [Int]?
    /// With a text much longer than the take: the stretch the take was found in (1-based).
    @NullWhenAbsent var found: Found?
    struct Found: Encodable {
        var first: Int
        var last: Int
    }
    var notes: [String]

    /// The report on `take`, the take at `file`.
    public init(file: String, take: SegmentedTake) {
        self.file = file
        switch take.method {
        case .pauses: method = "pauses"
        case .text(let language, let origin):
            method = "text"
            self.language = language
            languageOrigin = origin
        }
        phrases = take.phrases.flatMap { found in found.first.map { [$0 + 1, found[found.count - 1] + 1] } }
        if let phraseCount = take.phraseTexts?.count {
            missing = take.missing(of: phraseCount)?.map { $0 + 1 }
        }
        found = take.located.map { Found(first: $0.lowerBound + 1, last: $0.upperBound + 1) }
        notes = take.notes
        duration = milliseconds(take.duration)
        sampleRate = take.sampleRate
        channels = take.channelCount
        segments = take.segments.enumerated().map { index, segment in
            Segment(
                start: milliseconds(take.seconds(segment.lowerBound)),
                end: milliseconds(take.seconds(segment.upperBound)), phrase: take.phrases.map { $0[index] + 1 })
        }
        cuts = take.cuts.map {
            Cut(at: milliseconds(take.seconds($0.frame)), pause: milliseconds($0.pause), confidence: $0.confidence)
        }
    }
}

/// `loop cut --json`: the clips written.
public struct CutReport: Encodable {
    struct Clip: Encodable {
        var file: String
        var text: String
        var start: Double
        var end: Double
    }

    var take: String
    var labels: String
    var clips: [Clip]

    /// The clips `cut` wrote of the take at `take`, each with its text and its times in the take.
    public init(take: String, cut: CutClips) {
        self.take = take
        labels = cut.labelsPath
        clips = cut.clipPaths.enumerated().map { index, path in
            let segment = cut.take.segments[index]
            return Clip(
                file: path, text: cut.readTexts[index], start: milliseconds(cut.take.seconds(segment.lowerBound)),
                end: milliseconds(cut.take.seconds(segment.upperBound)))
        }
    }
}

/// `loop gc --json`.
public struct GarbageReportOutput: Encodable {
    var removed: [String]
    var freedBytes: Int

    /// The report of what a collection found and removed.
    public init(_ report: GarbageReport) {
        removed = report.removedFiles
        freedBytes = report.freedBytes
    }
}

/// `loop doctor --json`.
public struct HealthReportOutput: Encodable {
    struct Problem: Encodable {
        var kind: String
        var message: String
        var remedy: String
    }
    struct EarlierText: Encodable {
        var loop: String
        var title: String
        var phrase: Int
        var text: String
        var recordedText: String
    }

    var healthy: Bool
    var problems: [Problem]
    var orphans: [String]
    var leftovers: [String]
    var clipsForEarlierText: [EarlierText]
    var loops: Int
    var phrases: Int
    var audioFiles: Int
    var pictures: Int

    /// `report`, each problem's remedy with the command that takes it.
    public init(_ report: HealthReport) {
        healthy = report.isHealthy
        problems = report.problems.map {
            Problem(kind: $0.kind.rawValue, message: $0.message, remedy: FailureWords.fix(for: $0))
        }
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
    struct Loop: Encodable {
        var id: String
        var revision: Int
        var title: String
        @NullWhenAbsent var language: String?
        var phrases: Int
    }
    struct Audio: Encodable {
        var file: String
        var bytes: Int
        var sha256: String
    }

    var version: Int
    var created: String
    var signer: String
    /// The author's name the bundle gives (format version 4; absent when it gives none).
    var signerName: String?
    var verified: Bool
    var loops: [Loop]
    var audio: [Audio]

    /// The report of `bundle`.
    public init(_ bundle: BundleSummary) {
        version = bundle.version
        created = bundle.created
        signer = bundle.signerFingerprint
        signerName = bundle.signerName
        verified = true
        loops = bundle.loops.map {
            Loop(id: $0.id, revision: $0.revision, title: $0.title, language: $0.language, phrases: $0.phrases)
        }
        audio = bundle.audio.map { Audio(file: $0.file, bytes: $0.bytes, sha256: $0.sha256) }
    }
}

/// `loop stats --json`: one loop's study totals.
public struct StudyStatsReport: Encodable {
    struct Phrase: Encodable {
        var number: Int
        var text: String
        var seconds: Double
        var repetitions: Int
    }

    var id: String
    var title: String
    var sessions: Int
    var seconds: Double
    var repetitions: Int
    @NullWhenAbsent var lastStudied: String?
    var phrases: [Phrase]

    /// The report of a loop's study figures.
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
}

/// `loop stats --import FILE --json`: what the merge did.
public struct ProgressImportReport: Encodable {
    var sessionsAdded: Int
    var sessionsAlreadyHere: Int
    var phrasesAdded: Int
    var phrasesUnmatched: Int
    var loopsNotHere: [String]
    var titles: [String]
    var reviewsAdded: Int
    var reviewsUnmatched: Int
    var reviewsAlreadyHere: Int

    /// The report of what an import of progress did.
    public init(_ outcome: ProgressImport.Outcome) {
        reviewsAdded = outcome.reviewsAdded
        reviewsAlreadyHere = outcome.reviewsAlreadyHere
        reviewsUnmatched = outcome.reviewsUnmatched
        sessionsAdded = outcome.sessionsAdded
        sessionsAlreadyHere = outcome.sessionsAlreadyHere
        phrasesAdded = outcome.phrasesAdded
        phrasesUnmatched = outcome.phrasesUnmatched
        loopsNotHere = outcome.loopsNotHere
        titles = outcome.titles
    }
}
