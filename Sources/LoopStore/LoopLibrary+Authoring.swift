import Foundation
import LoopAudio
import LoopAuthoring
import Synchronization

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
        try storing(needing: takePath.flatMap(Self.fileSize)) {
            guard let takePath else {
                return AuthoredLoop(loop: try createLoop(source: source, title: title, language: language, tags: tags, sourceText: sourceText), doubtfulCuts: [])
            }
            // Held until the loop's rows commit, so that `gc` never takes the copy in flight.
            let lock = try LibraryLock(root: root, exclusive: false)
            defer { withExtendedLifetime(lock) {} }
            // The take is copied into the library while it is cut (each takes about as long as the
            // other); it only takes its place once the cut has succeeded.
            let store = audio
            let copying = BackgroundWork { try store.receive(copyOf: takePath) }
            let segmentation = Result {
                try segmenter.segment(
                    path: takePath, hint: .text(source.phrases.map(\.text), language: language ?? source.language),
                    progress: progress.map { report in { @Sendable in report($0 * 0.9) } })
            }
            let incoming = copying.wait()
            do {
                let cut = try segmentation.get()
                let file = try incoming.get()
                let take = CutTake(path: takePath, ranges: cut.segments.map { $0.startFrame..<$0.endFrame })
                let info = try checkRanges(of: take)
                let stored = describe(take, info: info, file: try audio.adopt(verifiedFile: file.path, sha256: file.sha256, byteCount: file.byteCount))
                let loop = try insertLoop(source: source, title: title, language: language, tags: tags, take: take, stored: stored, sourceText: sourceText)
                progress?(1)
                return AuthoredLoop(loop: loop, doubtfulCuts: Self.doubtfulCuts(cut, offset: 0))
            } catch {
                if case .success(let file) = incoming { try? FileManager.default.removeItem(atPath: file.path) }
                throw error
            }
        }
    }

    /// Cuts a new take onto the phrases that need audio (of one group, if given), and with
    /// `includingChanged` the phrases whose clip was recorded for an earlier text.
    public func attach(
        loop id: String, takePath: String, group: Int? = nil, includingChanged: Bool = false, segmenter: SilenceSegmenter = SilenceSegmenter(),
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> AuthoredLoop {
        let detail = try loop(id: id)
        if let group, !(1...max(detail.groups.count, 1)).contains(group) {
            throw LibraryError(.phraseNotFound, "the loop has \(detail.groups.count) groups, not \(group)")
        }
        let waiting = detail.phrases.filter { ($0.audio == nil || (includingChanged && $0.clipIsForEarlierText)) && (group == nil || $0.group == group) }
        guard !waiting.isEmpty else {
            let which = includingChanged ? "audio for its text" : "audio"
            let changed = includingChanged ? 0 : detail.phrases.filter { $0.clipIsForEarlierText && (group == nil || $0.group == group) }.count
            let message = group.map { "every phrase of group \($0) has \(which) already" } ?? "every phrase has \(which) already"
            if changed > 0 { throw LibraryError(.onlyClipsForEarlierText, message + "; \(changed) of them read an earlier text") }
            throw LibraryError(.nothingToDo, message)
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

/// Work started on another thread; ``wait()`` returns its result once it is done.
private final class BackgroundWork<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [self] in
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }
    }

    func wait() -> Result<Value, any Error> {
        done.wait()
        done.signal()   // a second wait returns at once
        return result.withLock { $0 } ?? .failure(LibraryError(.storageFailed, "background work ended without a result"))
    }
}
