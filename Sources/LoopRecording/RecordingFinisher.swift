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
        let texts = Array(draft.phraseTexts.prefix(count))
        let segmentation = try segmenter.segment(envelope, hint: .text(texts, language: draft.language), path: flac)
        return Result(takePath: flac, phraseIds: Array(draft.phraseIds.prefix(count)), ranges: segmentation.segments.map { $0.startFrame..<$0.endFrame })
    }
}
