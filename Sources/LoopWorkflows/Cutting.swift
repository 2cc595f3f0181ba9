import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopText

/// A take cut outside the library: measured and segmented (`loop segment`), or cut into one clip
/// file a phrase (`loop cut`). The library's takes are cut by ``Authoring``; both go through the
/// same cutter.
public struct CuttingWorkflow: Sendable {
    public var segmenter = SilenceSegmenter()

    /// `minimumPause` (seconds) ends a phrase when nothing else says how many there are;
    /// `threads` bounds the measuring of a long take.
    public init(minimumPause: Double? = nil, threads: Int? = nil) {
        if let minimumPause { segmenter.parameters.minimumPause = minimumPause }
        if let threads { segmenter.parameters.threads = threads }
    }

    /// What the person said of a take: its text (the phrases and their language), else how many
    /// phrases it holds, else nothing.
    public static func hint(text source: LoopSource?, count: Int?) -> SegmentationHint {
        if let source { return .text(source.phrases.map(\.text), language: source.language) }
        if let count { return .count(count) }
        return .none
    }

    /// The take at `take` measured and cut into phrases; errors name it `name`.
    public func segment(take: String, named name: String, hint: SegmentationHint,
                        progress: (@Sendable (Double) -> Void)? = nil) async throws -> (envelope: EnergyEnvelope, segmentation: Segmentation) {
        try await BlockingWork.run { [segmenter] in
            let envelope = try EnergyEnvelope.measure(path: take, parallelism: segmenter.parameters.threads, progress: progress)
            return (envelope, try segmenter.segment(envelope, hint: hint, path: name))
        }
    }

    /// The take at `take` cut into a clip per phrase of `labels`, written into `folder` as
    /// `format` with a label track; the clips appear only once all are written.
    public func cut(take: String, hint: SegmentationHint, labels: [String], into folder: String, format: AudioFileFormat,
                    measuring: (@Sendable (Double) -> Void)? = nil, writing: (@Sendable (Double) -> Void)? = nil) async throws
        -> (segmentation: Segmentation, clips: PhraseClipExporter.Result) {
        let segmentation = try await BlockingWork.run { [segmenter] in try segmenter.segment(path: take, hint: hint, progress: measuring) }
        let clips = try await BlockingWork.run {
            try PhraseClipExporter(format: format).export(takePath: take, segmentation: segmentation, labels: labels, to: folder, progress: writing)
        }
        return (segmentation, clips)
    }
}
