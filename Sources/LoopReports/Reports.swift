import Foundation
import LoopModel
import LoopWorkflows

// The `--json` shapes of the commands: Encodable values written by one encoder (sorted keys),
// made from the same outcomes the human output shows. Absent values are written as `null`
// (``NullWhenAbsent``), never left out, so that every key of a shape is always there.

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

/// An optional value of a report written as `null` when absent, rather than left out (the
/// encoder leaves out a plain optional).
@propertyWrapper
public struct NullWhenAbsent<Value: Encodable & Sendable>: Encodable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// Seconds rounded to the millisecond, for output.
public func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

/// `loop list --json`: one loop.
public struct LoopSummaryReport: Encodable {
    public var id: String
    public var title: String
    @NullWhenAbsent public var language: String?
    @NullWhenAbsent public var translationLanguage: String?
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
}

/// `loop show --json` and `loop new --json`: a loop with its groups and phrases.
public struct LoopDetailReport: Encodable {
    public struct Group: Encodable {
        var phrases: [PhraseReport]
        @NullWhenAbsent var picture: PictureReport?
    }

    public var id: String
    public var title: String
    @NullWhenAbsent public var language: String?
    @NullWhenAbsent public var translationLanguage: String?
    public var tags: [String]
    public var revision: Int
    public var groups: [Group]
    @NullWhenAbsent public var picture: PictureReport?

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
    public var path: String
    public var format: String
    public var width: Int
    public var height: Int
    public var sha256: String

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
    public var number: Int
    public var text: String
    @NullWhenAbsent public var translation: String?
    @NullWhenAbsent public var start: Double?
    @NullWhenAbsent public var end: Double?
    @NullWhenAbsent public var recordedText: String?
    @NullWhenAbsent public var picture: PictureReport?

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
    public var loop: String
    public var title: String
    public var group: Int
    public var phrase: Int
    public var text: String
    @NullWhenAbsent public var translation: String?

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
    public struct Segment: Encodable {
        var start: Double
        var end: Double
        /// With a text, the line (phrase) of the text the segment reads, 1-based.
        @NullWhenAbsent var phrase: Int?
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
    @NullWhenAbsent public var language: String?
    @NullWhenAbsent public var languageOrigin: String?
    /// With a text: the first and last phrase the segments read (1-based).
    @NullWhenAbsent public var phrases: [Int]?
    /// With a text: the phrases the take does not read (1-based), which still need audio.
    @NullWhenAbsent public var missing: [Int]?
    public var notes: [String]

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
        if let found = take.phrases, let phraseCount = take.phraseTexts?.count {
            missing = (0..<phraseCount).filter { !found.contains($0) }.map { $0 + 1 }
        }
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
    public struct Clip: Encodable {
        var file: String
        var text: String
        var start: Double
        var end: Double
    }

    public var take: String
    public var labels: String
    public var clips: [Clip]

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
    public var removed: [String]
    public var freedBytes: Int

    public init(_ report: GarbageReport) {
        removed = report.removedFiles
        freedBytes = report.freedBytes
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
    public struct Loop: Encodable {
        var id: String
        var revision: Int
        var title: String
        @NullWhenAbsent var language: String?
        var phrases: Int
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
    public struct Phrase: Encodable { var number: Int; var text: String; var seconds: Double; var repetitions: Int }

    public var id: String
    public var title: String
    public var sessions: Int
    public var seconds: Double
    public var repetitions: Int
    @NullWhenAbsent public var lastStudied: String?
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
