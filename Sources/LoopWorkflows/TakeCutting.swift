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

    /// The text's title, if it gives one.
    public var title: String? { source.title }
    /// Its language, if it names one.
    public var language: String? { source.language }
    /// Its translations' language, if it names one.
    public var translationLanguage: String? { source.translationLanguage }
    /// Its tags.
    public var tags: [String] { source.tags }
    /// Each group's phrases: the text and its translation.
    public var groups: [[(text: String, translation: String?)]] {
        source.groups.map { $0.phrases.map { ($0.text, $0.translation) } }
    }
    /// How many phrases it holds.
    public var phraseCount: Int { source.phrases.count }

    /// Encodes the text as `loop split --json` prints it.
    public func encode(to encoder: any Encoder) throws { try source.encode(to: encoder) }

    /// The text at `path` (`-`: standard input), split (`splitSentences`: long lines at
    /// sentence ends too).
    public static func read(_ path: String, splitSentences: Bool) throws -> TextOutline {
        TextOutline(source: try LoopSource(contentsOf: path, options: .init(splitSentences: splitSentences)))
    }
}

/// A take to cut: by a text, into a number of phrases, or at its pauses.
public struct SegmentRequest: Sendable {
    /// The take: a file, or a stream of one.
    public var media: MediaFile
    /// The loop's text, whose phrases guide the cuts.
    public var text: String?
    /// Split the text's lines into sentences.
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

    /// A cut of `media` at its pauses.
    public init(media: MediaFile) { self.media = media }

    /// Refuses hints that exclude each other, counts and pauses out of range, and a language tag that is not one.
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

    /// The take: a file, or a stream of one.
    public var media: MediaFile
    /// The loop's text, whose phrases are the clips.
    public var text: String
    /// Split the text's lines into sentences.
    public var splitSentences = false
    /// The text's language (nil: its `# language:` line, else guessed).
    public var language: String?
    /// The folder for the clips (created if needed).
    public var folder: String
    /// The clips' format.
    public var format: ClipFormat = .flac

    /// A cut of `media` by `text` into clips in `folder`.
    public init(media: MediaFile, text: String, folder: String) {
        (self.media, self.text, self.folder) = (media, text, folder)
    }

    /// Refuses a language tag that is not one.
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
        /// Where the cut is, in frames.
        public var frame: Int
        /// The silence there, in seconds.
        public var pause: Double
        /// How sure the segmenter was (0...1).
        public var confidence: Double
        /// Whether it is worth a listen.
        public var isDoubtful: Bool
    }

    /// The take's sample rate (Hz).
    public var sampleRate: Int
    /// The take's channels.
    public var channelCount: Int
    /// The take's length in frames.
    public var frameCount: Int
    /// Each phrase's frames.
    public var segments: [Range<Int>]
    /// The cuts between segments.
    public var cuts: [CutPoint]
    /// How the take was cut: at its pauses, by the count, or by the text.
    public var method: CutMethod
    /// With a text: the phrase each segment reads (0-based into the text's phrases).
    public var phrases: [Int]?
    /// With a text: its phrases.
    public var phraseTexts: [String]?
    /// With a text much longer than the take (a chapter's audio and its book): the stretch of
    /// its phrases (0-based) the take was found in; the phrases outside it are not read.
    public var located: ClosedRange<Int>?
    /// What the segmenter noticed (a take that holds more than its text, a line skipped).
    public var notes: [String]
    /// The take's loudness, for a waveform (`segment` only).
    public var levels: TakeLevels?
    /// An Audacity label track of the segments, labelled with the phrases read.
    public var labelTrack: String

    /// The take's length in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// Seconds for a frame position.
    public func seconds(_ frame: Int) -> Double { Double(frame) / Double(sampleRate) }

    /// With a text of `phraseCount` phrases: those it was for that the take does not read
    /// (0-based), every one of the text, or of the stretch it was found in; nil without a text.
    public func missing(of phraseCount: Int) -> [Int]? {
        guard let phrases else { return nil }
        let read = Set(phrases)
        return (located.map(Array.init) ?? Array(0..<phraseCount)).filter { !read.contains($0) }
    }

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
        located = segmentation.located
        notes = segmentation.notes
        levels = envelope.map {
            TakeLevels(frameCount: $0.frameCount, hopFrames: $0.hopFrames, levels: $0.levels)
        }
        // Each segment labelled with the phrase it reads (a take may leave phrases out).
        let labels =
            phraseTexts.map { texts in
                segmentation.phrases.map { $0.compactMap { texts.indices.contains($0) ? texts[$0] : nil } } ?? texts
            } ?? []
        labelTrack = AudacityLabels(segmentation: segmentation, labels: labels).text
    }
}

/// A take cut into clip files: its segmentation, the clips written, and the label track.
public struct CutClips: Sendable {
    /// How the take was cut.
    public var take: SegmentedTake
    /// The clip files written, in order.
    public var clipPaths: [String]
    /// The Audacity label track written beside them.
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
