import Foundation
import LoopAudio
import LoopAuthoring

/// Turns a recording into a take for the library: the kept audio (re-recorded attempts left
/// out) as FLAC, cut with the text of the phrases read, by the same segmenter as `loop segment`.
public struct RecordingFinisher: Sendable {
    public init() {}

    /// The take, and the phrases (their ids, in order) its ranges belong to.
    public struct Result: Sendable {
        public var takePath: String
        public var phraseIds: [Int64]
        public var ranges: [Range<Int>]
    }

    /// The parts of `frames` outside every discarded range, in order.
    static func kept(_ frames: Range<Int>, discarding discarded: [Range<Int>]) -> [Range<Int>] {
        var parts = [frames]
        for cut in discarded where cut.overlaps(frames) {
            parts = parts.flatMap { part -> [Range<Int>] in
                guard cut.overlaps(part) else { return [part] }
                let before = part.lowerBound..<max(part.lowerBound, cut.lowerBound)
                let after = min(part.upperBound, cut.upperBound)..<part.upperBound
                return [before, after].filter { !$0.isEmpty }
            }
        }
        return parts
    }

    /// `phrasesRead` is how many phrases the live view counted; nil (a recovered recording)
    /// lets the take itself say how many it holds.
    public func finish(rawPath: String, draft: RecordingDraft, phrasesRead: Int?, into folder: String) throws -> Result? {
        let flac = folder + "/" + UUID().uuidString.lowercased() + ".flac"
        let channels = draft.channelCount
        guard let input = FileHandle(forReadingAtPath: rawPath) else { throw AudioError(.fileNotFound, path: rawPath, message: "the recording is gone") }
        defer { try? input.close() }
        var writer = try AudioFileWriter(path: flac, format: .flac, sampleRate: draft.sampleRate, channelCount: channels)
        var position = 0
        var kept = 0
        while let chunk = try input.read(upToCount: 65_536 * 4 * channels), !chunk.isEmpty {
            let samples = chunk.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let frames = samples.count / channels
            for range in Self.kept(position..<(position + frames), discarding: draft.discarded) {
                let from = (range.lowerBound - position) * channels, to = (range.upperBound - position) * channels
                try samples.withUnsafeBufferPointer { try writer.write(UnsafeBufferPointer(rebasing: $0[from..<to])) }
                kept += range.count
            }
            position += frames
        }
        guard kept > 0 else { return nil }
        try writer.commit()
        TestStop.reached("record.saving")

        let segmenter = SilenceSegmenter()
        let envelope = try EnergyEnvelope.measure(path: flac)
        var count = min(phrasesRead ?? draft.phraseIds.count, draft.phraseIds.count)
        if phrasesRead == nil {
            count = min(count, (try? segmenter.segment(envelope, hint: .none).segments.count) ?? count)
        }
        guard count > 0 else { try? FileManager.default.removeItem(atPath: flac); return nil }
        var segmentation = try segmenter.segment(envelope, hint: .text(Array(draft.phraseTexts.prefix(count)), language: draft.language), path: flac)
        // The live view ends a phrase at a pause as long as it expects there: a short pause where
        // it expected more of the phrase goes unseen, and the next phrase is heard as the rest of
        // it. At the end that leaves the take holding phrases the view never counted.
        while phrasesRead != nil, count < draft.phraseIds.count,
              let more = try? segmenter.segment(envelope, hint: .text(Array(draft.phraseTexts.prefix(count + 1)), language: draft.language), path: flac),
              Self.holdsOneMorePhrase(more, than: segmentation, texts: Array(draft.phraseTexts.prefix(count + 1))) {
            segmentation = more
            count += 1
        }
        return Result(takePath: flac, phraseIds: Array(draft.phraseIds.prefix(count)), ranges: segmentation.segments.map { $0.startFrame..<$0.endFrame })
    }

    /// Whether `more`, cut for one phrase more than `fewer`, found that phrase in the take: its
    /// earlier cuts are the same, its new cut is a clear pause, and the last stretch of the take
    /// fits the last two phrases' lengths (at the pace of the earlier ones) better than one.
    static func holdsOneMorePhrase(_ more: Segmentation, than fewer: Segmentation, texts: [String]) -> Bool {
        let count = fewer.segments.count
        guard more.segments.count == count + 1, let newCut = more.cuts.last, let lastStart = fewer.segments.last?.startFrame else { return false }
        let tolerance = more.sampleRate / 20
        guard zip(fewer.cuts, more.cuts).allSatisfy({ abs($0.frame - $1.frame) <= tolerance }),
              newCut.pauseDuration >= Self.clearPause else { return false }
        let model = PhraseLengthModel()
        let weights = texts.map { model.weight(of: $0) }
        // Seconds of a unit of weight: from the phrases before the last stretch, else a usual pace.
        let earlier = fewer.segments.dropLast()
        let earlierWeight = weights.prefix(earlier.count).reduce(0, +)
        let pace = earlier.isEmpty || earlierWeight <= 0 ? ReadingPace.usualHopsPerWeight / 100
            : earlier.reduce(0.0) { $0 + more.seconds($1.endFrame) - more.seconds($1.startFrame) } / earlierWeight
        let stretch = more.seconds(more.segments[count].endFrame) - more.seconds(lastStart)
        let asOne = abs(log(stretch / (weights[count - 1] * pace)))
        let asTwo = abs(log(stretch / ((weights[count - 1] + weights[count]) * pace)))
        return asTwo < asOne
    }

    /// Longer than the comma pauses of fluent reading (up to 0.23 s in the development set).
    static let clearPause = 0.24
}
