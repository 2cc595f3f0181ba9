import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopText

/// A take cut outside the library: measured and segmented (`loop segment`), or cut into one clip
/// file a phrase (`loop cut`). The library's takes are cut by ``Authoring``; both go through the
/// same cutter.
public struct CuttingWorkflow: Sendable {
    public var cutter = TakeCutter()

    /// `minimumPause` (seconds) ends a phrase when nothing else says how many there are;
    /// `threads` bounds the measuring of a long take; `language` is the text's, when it is
    /// neither in the text nor the one its script suggests.
    public init(minimumPause: Double? = nil, threads: Int? = nil, language: String? = nil) {
        if let minimumPause { cutter.segmenter.parameters.minimumPause = minimumPause }
        if let threads { cutter.segmenter.parameters.threads = threads }
        cutter.language = language
    }

    /// What the person said of a take: its text (the phrases and their language), else how many
    /// phrases it holds, else nothing.
    public static func hint(text source: LoopSource?, count: Int?) -> SegmentationHint {
        if let source { return .text(source.phrases.map(\.text), language: source.language) }
        if let count { return .count(count) }
        return .none
    }

    /// The take (any audio or video file) measured and cut into phrases.
    public func segment(media: MediaFile, hint: SegmentationHint, progress: WorkProgress? = nil) async throws
        -> (envelope: EnergyEnvelope, segmentation: Segmentation)
    {
        let cutting = progress.map { report in { @Sendable (fraction: Double) in report(.cutting, fraction) } }
        return try await media.reading(progress: progress) { take in
            try await segment(take: take, named: media.path, hint: hint, progress: cutting)
        }
    }

    /// A take measured and cut into phrases (`loop segment`), with the phrases of the text
    /// that guided the cut, if one did.
    public struct Segmented: Sendable {
        public var envelope: EnergyEnvelope
        public var segmentation: Segmentation
        public var phraseTexts: [String]?
    }

    /// The take (any audio or video file) measured and cut into phrases: by the text at
    /// `textFile`, else into `count` phrases, else at its pauses.
    public func segment(
        media: MediaFile, textFile: String?, splitSentences: Bool = false, count: Int? = nil,
        progress: WorkProgress? = nil
    ) async throws -> Segmented {
        let source = try textFile.map { try Library.readText($0, splitSentences: splitSentences) }
        let (envelope, segmentation) = try await segment(
            media: media, hint: Self.hint(text: source, count: count), progress: progress)
        return Segmented(envelope: envelope, segmentation: segmentation, phraseTexts: source?.phrases.map(\.text))
    }

    /// A take cut into a clip file a phrase it reads (`loop cut`).
    public struct CutTake: Sendable {
        public var segmentation: Segmentation
        public var clips: PhraseClipExporter.Result
        /// The text's phrases, and those the take reads (the clips' texts, in order).
        public var phraseTexts: [String], readTexts: [String]
    }

    /// The take (any audio or video file) cut by the text at `textFile` into a clip per phrase it
    /// reads, written into `folder` as `format` with a label track.
    public func cut(
        media: MediaFile, textFile: String, splitSentences: Bool = false, into folder: String, format: ClipFormat,
        progress: WorkProgress? = nil
    ) async throws -> CutTake {
        let source = try Library.readText(textFile, splitSentences: splitSentences)
        let phrases = source.phrases.map(\.text)
        let (segmentation, clips) = try await cut(
            media: media, hint: Self.hint(text: source, count: nil), labels: phrases, into: folder, format: format,
            progress: progress)
        return CutTake(
            segmentation: segmentation, clips: clips, phraseTexts: phrases,
            readTexts: Self.read(phrases, by: segmentation))
    }

    /// The phrases of `labels` a take cut as `segmentation` reads, in order.
    static func read(_ labels: [String], by segmentation: Segmentation) -> [String] {
        segmentation.phrases.map { $0.filter(labels.indices.contains).map { labels[$0] } } ?? labels
    }

    /// The file format of cut clips.
    public enum ClipFormat: String, Sendable, CaseIterable {
        case flac, wav

        var audioFileFormat: AudioFileFormat { self == .flac ? .flac : .wav }
    }

    /// The take (any audio or video file) cut into a clip per phrase of `labels`, as `format`.
    public func cut(
        media: MediaFile, hint: SegmentationHint, labels: [String], into folder: String, format: ClipFormat,
        progress: WorkProgress? = nil
    ) async throws -> (segmentation: Segmentation, clips: PhraseClipExporter.Result) {
        try await cut(
            media: media, hint: hint, labels: labels, into: folder, format: format.audioFileFormat, progress: progress)
    }

    /// The take (any audio or video file) cut into a clip per phrase of `labels`: see
    /// ``cut(take:hint:labels:into:format:measuring:writing:)``.
    public func cut(
        media: MediaFile, hint: SegmentationHint, labels: [String], into folder: String, format: AudioFileFormat,
        progress: WorkProgress? = nil
    ) async throws -> (segmentation: Segmentation, clips: PhraseClipExporter.Result) {
        let measuring = progress.map { report in { @Sendable (fraction: Double) in report(.cutting, fraction) } }
        let writing = progress.map { report in { @Sendable (fraction: Double) in report(.writing, fraction) } }
        return try await media.reading(progress: progress) { take in
            try await cut(
                take: take, hint: hint, labels: labels, into: folder, format: format, measuring: measuring,
                writing: writing)
        }
    }

    /// The take at `take` measured and cut into phrases; errors name it `name`.
    public func segment(
        take: String, named name: String, hint: SegmentationHint,
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> (envelope: EnergyEnvelope, segmentation: Segmentation) {
        try await BlockingWork.run { [cutter] in
            do {
                return try cutter.measureAndCut(path: take, hint: hint, progress: progress)
            } catch var error as SegmentationError {
                error.subject = name
                throw error
            }
        }
    }

    /// The take at `take` cut into a clip per phrase of `labels`, written into `folder` as
    /// `format` with a label track; the clips appear only once all are written.
    public func cut(
        take: String, hint: SegmentationHint, labels: [String], into folder: String, format: AudioFileFormat,
        measuring: (@Sendable (Double) -> Void)? = nil, writing: (@Sendable (Double) -> Void)? = nil
    ) async throws
        -> (segmentation: Segmentation, clips: PhraseClipExporter.Result)
    {
        let segmentation = try await BlockingWork.run { [cutter] in
            try cutter.cut(path: take, hint: hint, progress: measuring)
        }
        // A take of some of the phrases: clips for those it reads.
        let read = Self.read(labels, by: segmentation)
        let clips = try await BlockingWork.run {
            try PhraseClipExporter(format: format).export(
                takePath: take, segmentation: segmentation, labels: read, to: folder, progress: writing)
        }
        return (segmentation, clips)
    }
}
