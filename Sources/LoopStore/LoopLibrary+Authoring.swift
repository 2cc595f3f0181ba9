import Foundation
import LoopAudio
import LoopAuthoring

/// A loop just authored, and the cuts worth a listen.
public struct AuthoredLoop: Sendable {
    public var loop: LoopDetail
    /// The cuts the segmenter was unsure of (phrase numbers on either side, confidence).
    public var doubtfulCuts: [(before: Int, after: Int, confidence: Double)]
}

extension LoopLibrary {
    /// Authors a loop: the text split into groups and phrases and, with a take, the take cut at
    /// its pauses so that every phrase gets its clip. `progress` follows the cutting and copying.
    public func author(
        source: LoopSource, sourceText: String?, takePath: String?, title: String? = nil, language: String? = nil,
        tags: [String] = [], segmenter: SilenceSegmenter = SilenceSegmenter(), progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> AuthoredLoop {
        var take: CutTake?
        var doubtful: [(Int, Int, Double)] = []
        if let takePath {
            let segmentation = try segmenter.segment(
                path: takePath, hint: .text(source.phrases.map(\.text), language: language ?? source.language),
                progress: progress.map { report in { @Sendable in report($0 * 0.8) } })
            take = CutTake(path: takePath, ranges: segmentation.segments.map { $0.startFrame..<$0.endFrame })
            doubtful = Self.doubtfulCuts(segmentation, offset: 0)
        }
        let loop = try createLoop(source: source, title: title, language: language, tags: tags, take: take, sourceText: sourceText,
                                  progress: progress.map { report in { @Sendable in report(0.8 + $0 * 0.2) } })
        return AuthoredLoop(loop: loop, doubtfulCuts: doubtful)
    }

    /// Cuts a new take onto the phrases that need audio (of one group, if given).
    public func attach(
        loop id: String, takePath: String, group: Int? = nil, segmenter: SilenceSegmenter = SilenceSegmenter(),
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> AuthoredLoop {
        let detail = try loop(id: id)
        if let group, !(1...max(detail.groups.count, 1)).contains(group) {
            throw LibraryError(.phraseNotFound, "the loop has \(detail.groups.count) groups, not \(group)")
        }
        let waiting = detail.phrases.filter { $0.audio == nil && (group == nil || $0.group == group) }
        guard !waiting.isEmpty else {
            throw LibraryError(.nothingToDo, group.map { "every phrase of group \($0) has audio already" } ?? "every phrase has audio already; `loop adjust` moves a clip")
        }
        let segmentation = try segmenter.segment(
            path: takePath, hint: .text(waiting.map(\.text), language: detail.summary.language),
            progress: progress.map { report in { @Sendable in report($0 * 0.8) } })
        let take = CutTake(path: takePath, ranges: segmentation.segments.map { $0.startFrame..<$0.endFrame })
        let updated = try attach(loop: id, phraseIds: waiting.map(\.id), take: take,
                                 progress: progress.map { report in { @Sendable in report(0.8 + $0 * 0.2) } })
        let doubtful = Self.doubtfulCuts(segmentation, offset: 0).map { (waiting[$0.0 - 1].number, waiting[$0.1 - 1].number, $0.2) }
        return AuthoredLoop(loop: updated, doubtfulCuts: doubtful)
    }

    static func doubtfulCuts(_ segmentation: Segmentation, offset: Int, below threshold: Double = 0.6) -> [(Int, Int, Double)] {
        segmentation.cuts.enumerated().filter { $0.element.confidence < threshold }.map { (offset + $0.offset + 1, offset + $0.offset + 2, $0.element.confidence) }
    }
}
