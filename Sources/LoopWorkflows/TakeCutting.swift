import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopSpeech
import LoopText

// A take cut outside the library: measured and segmented (`loop segment`), or cut into a clip
// file a phrase (`loop cut`); and a loop's text split (`loop split`). The library's takes go
// through the same cutter.

/// A loop's text, split into groups and phrases as a loop's is; its JSON is the text's own.
public struct TextOutline: Sendable, Encodable {
    let source: LoopSource

    public var title: String? { source.title }
    public var language: String? { source.language }
    public var translationLanguage: String? { source.translationLanguage }
    public var tags: [String] { source.tags }
    /// Each group's phrases: the text and its translation.
    public var groups: [[(text: String, translation: String?)]] {
        source.groups.map { $0.phrases.map { ($0.text, $0.translation) } }
    }
    public var phraseCount: Int { source.phrases.count }

    public func encode(to encoder: any Encoder) throws { try source.encode(to: encoder) }

    /// The text at `path` (`-`: standard input), split (`splitSentences`: long lines at
    /// sentence ends too).
    public static func read(_ path: String, splitSentences: Bool) throws -> TextOutline {
        TextOutline(source: try LoopSource(contentsOf: path, options: .init(splitSentences: splitSentences)))
    }
}

/// A take to cut: by a text, into a number of phrases, or at its pauses.
public struct SegmentRequest: Sendable {
    public var media: MediaFile
    /// The loop's text, whose phrases guide the cuts.
    public var text: String?
    public var splitSentences = false
    /// The number of phrases the take holds.
    public var count: Int?
    /// The text's language, when the text does not say it and its script would be guessed wrong.
    public var language: String?
    /// Without a count or a text, the pause (seconds) that ends a phrase.
    public var minPause: Double?
    /// At most this many threads to measure a long take on (and with 1, a long text rendered in
    /// one process).
    public var threads: Int?

    public init(media: MediaFile) { self.media = media }

    public func check() throws(RequestProblem) {
        try checkLanguage(language, field: "language")
        try RequestProblem.check(count != nil && text != nil, .exclusive("count", "text"))
        if let count {
            try RequestProblem.check(
                !(1...10_000).contains(count), RequestProblem("{count} takes 1 to 10000 phrases, not \(count)"))
        }
        if let minPause {
            try RequestProblem.check(
                !(0.05...5).contains(minPause), RequestProblem("{minPause} takes seconds between 0.05 and 5"))
        }
        if let threads {
            try RequestProblem.check(
                !(1...64).contains(threads), RequestProblem("{threads} takes 1 to 64, not \(threads)"))
        }
    }

    var cutter: TakeCutter {
        var cutter = TakeCutter(synthesizer: Library.synthesizer)
        if let minPause { cutter.segmenter.parameters.minimumPause = minPause }
        if let threads { cutter.segmenter.parameters.threads = threads }
        cutter.language = language
        return cutter
    }
}

/// A take cut into a clip file a phrase of its text.
public struct CutRequest: Sendable {
    /// The file format of cut clips.
    public enum ClipFormat: String, Sendable, CaseIterable {
        case flac, wav
    }

    public var media: MediaFile
    public var text: String
    public var splitSentences = false
    public var language: String?
    /// The folder for the clips (created if needed).
    public var folder: String
    public var format: ClipFormat = .flac

    public init(media: MediaFile, text: String, folder: String) {
        (self.media, self.text, self.folder) = (media, text, folder)
    }

    public func check() throws(RequestProblem) { try checkLanguage(language, field: "language") }
}

/// How a take's cuts were found.
public enum CutMethod: Sendable, Equatable {
    /// Among its pauses.
    case pauses
    /// By what is said: the take aligned with its text rendered in this language, given (the
    /// request's), the loop's, or guessed.
    case text(language: String, origin: String)
}

/// A take measured and cut into phrases: its segments and cuts (in frames), how they were found,
/// the phrases of the text it reads, and its loudness for a waveform.
public struct SegmentedTake: Sendable {
    /// A cut between two segments.
    public struct CutPoint: Sendable {
        public var frame: Int
        public var pause: Double
        public var confidence: Double
        /// Whether it is worth a listen.
        public var isDoubtful: Bool
    }

    public var sampleRate: Int
    public var channelCount: Int
    public var frameCount: Int
    /// Each phrase's frames.
    public var segments: [Range<Int>]
    public var cuts: [CutPoint]
    public var method: CutMethod
    /// With a text: the phrase each segment reads (0-based into the text's phrases).
    public var phrases: [Int]?
    /// With a text: its phrases.
    public var phraseTexts: [String]?
    public var notes: [String]
    /// The take's loudness, for a waveform (`segment` only).
    public var levels: TakeLevels?
    /// An Audacity label track of the segments, labelled with the phrases read.
    public var labelTrack: String

    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// Seconds for a frame position.
    public func seconds(_ frame: Int) -> Double { Double(frame) / Double(sampleRate) }

    init(_ segmentation: Segmentation, phraseTexts: [String]?, envelope: EnergyEnvelope?) {
        sampleRate = segmentation.sampleRate
        channelCount = segmentation.channelCount
        frameCount = segmentation.frameCount
        segments = segmentation.segments.map { $0.startFrame..<$0.endFrame }
        cuts = segmentation.cuts.map {
            CutPoint(frame: $0.frame, pause: $0.pauseDuration, confidence: $0.confidence, isDoubtful: $0.isDoubtful)
        }
        switch segmentation.method {
        case .pauses: method = .pauses
        case .text(let language): method = .text(language: language.code, origin: language.origin.rawValue)
        }
        phrases = segmentation.phrases
        self.phraseTexts = phraseTexts
        notes = segmentation.notes
        levels = envelope.map {
            TakeLevels(frameCount: $0.frameCount, hopFrames: $0.hopFrames, levels: $0.levels)
        }
        labelTrack = AudacityLabels(segmentation: segmentation, labels: phraseTexts ?? []).text
    }
}

/// A take cut into clip files: its segmentation, the clips written, and the label track.
public struct CutClips: Sendable {
    public var take: SegmentedTake
    public var clipPaths: [String]
    public var labelsPath: String
    /// The texts of the phrases the clips read, in order.
    public var readTexts: [String]
}

/// Cutting a take outside the library.
public enum TakeCutting {
    /// The take measured and cut into phrases: by the text, else into the count, else at its
    /// pauses.
    public static func segment(_ request: SegmentRequest, progress: WorkProgress? = nil) async throws
        -> SegmentedTake
    {
        try request.check()
        let source = try request.text.map {
            try LoopSource(contentsOf: $0, options: .init(splitSentences: request.splitSentences))
        }
        let hint = Self.hint(text: source, count: request.count)
        let cutting = progress.map { report in { @Sendable (fraction: Double) in report(.cutting, fraction) } }
        let cutter = request.cutter
        let name = request.media.path
        let (envelope, segmentation) = try await request.media.reading(progress: progress) { take in
            try await BlockingWork.run {
                do {
                    return try cutter.measureAndCut(path: take, hint: hint, progress: cutting)
                } catch var error as SegmentationError {
                    error.subject = name
                    throw error
                }
            }
        }
        return SegmentedTake(segmentation, phraseTexts: source?.phrases.map(\.text), envelope: envelope)
    }

    /// The take cut by its text into a clip per phrase it reads, written into the request's
    /// folder with a label track; the clips appear only once all are written.
    public static func cut(_ request: CutRequest, progress: WorkProgress? = nil) async throws -> CutClips {
        try request.check()
        let source = try LoopSource(contentsOf: request.text, options: .init(splitSentences: request.splitSentences))
        let phrases = source.phrases.map(\.text)
        let measuring = progress.map { report in { @Sendable (fraction: Double) in report(.cutting, fraction) } }
        let writing = progress.map { report in { @Sendable (fraction: Double) in report(.writing, fraction) } }
        var cutter = TakeCutter(synthesizer: Library.synthesizer)
        cutter.language = request.language
        let format: AudioFileFormat = request.format == .flac ? .flac : .wav
        let folder = request.folder
        let hint = Self.hint(text: source, count: nil)
        let (segmentation, clips) = try await request.media.reading(progress: progress) { take in
            let segmentation = try await BlockingWork.run { [cutter] in
                try cutter.cut(path: take, hint: hint, progress: measuring)
            }
            // A take of some of the phrases: clips for those it reads.
            let read = Self.read(phrases, by: segmentation)
            let clips = try await BlockingWork.run {
                try PhraseClipExporter(format: format).export(
                    takePath: take, segmentation: segmentation, labels: read, to: folder, progress: writing)
            }
            return (segmentation, clips)
        }
        return CutClips(
            take: SegmentedTake(segmentation, phraseTexts: phrases, envelope: nil), clipPaths: clips.clipPaths,
            labelsPath: clips.labelsPath, readTexts: Self.read(phrases, by: segmentation))
    }

    /// What the person said of a take: its text (the phrases and their language), else how many
    /// phrases it holds, else nothing.
    static func hint(text source: LoopSource?, count: Int?) -> SegmentationHint {
        if let source { return .text(source.phrases.map(\.text), language: source.language) }
        if let count { return .count(count) }
        return .none
    }

    /// The phrases of `labels` a take cut as `segmentation` reads, in order.
    static func read(_ labels: [String], by segmentation: Segmentation) -> [String] {
        segmentation.phrases.map { $0.filter(labels.indices.contains).map { labels[$0] } } ?? labels
    }
}
