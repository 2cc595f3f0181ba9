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
        // The other way: where a phrase read has a pause of its own (a comma), the view may end
        // it there and count its rest as the next phrase; each phrase after it is then one late,
        // and the last one counted was never read.
        if let read = phrasesRead, count == read, count >= 2,
           let fewer = try? segmenter.segment(envelope, hint: .text(Array(draft.phraseTexts.prefix(count - 1)), language: draft.language), path: flac),
           Self.ranIntoAPhraseNotRead(segmentation, fewer: fewer, texts: Array(draft.phraseTexts.prefix(count))) {
            segmentation = fewer
            count -= 1
        }
        return Result(takePath: flac, phraseIds: Array(draft.phraseIds.prefix(count)), ranges: segmentation.segments.map { $0.startFrame..<$0.endFrame })
    }

    /// Whether `more`, cut for one phrase more than `fewer`, found that phrase in the take: its
    /// earlier cuts are the same, its new cut is a clear pause, and the last stretch of the take
    /// fits the last two phrases' lengths (at the pace of the earlier ones) better than one.
    static func holdsOneMorePhrase(_ more: Segmentation, than fewer: Segmentation, texts: [String]) -> Bool {
        let count = fewer.segments.count
        guard count >= 1, more.segments.count == count + 1, let newCut = more.cuts.last,
              keepsTheEarlierCuts(fewer, more), newCut.pauseDuration >= Self.clearPause else { return false }
        let fit = lengthFit(from: count - 1, of: more, texts: texts)
        return fit.asTwo < fit.asOne
    }

    /// Whether `counted` holds a phrase that was never read: the view ended a phrase at a pause
    /// of its own (a comma) and counted its rest as the next one. `fewer`, cut for one phrase
    /// less, keeps every cut but one, the cut it drops is no clear pause, and its phrases' lengths
    /// fit their texts clearly better than those of `counted` (whose texts after that cut are
    /// each one phrase late).
    static func ranIntoAPhraseNotRead(_ counted: Segmentation, fewer: Segmentation, texts: [String]) -> Bool {
        guard counted.segments.count >= 2, fewer.segments.count == counted.segments.count - 1 else { return false }
        let tolerance = counted.sampleRate / 20
        let matches = { (index: Int) in
            fewer.cuts.indices.allSatisfy { abs(fewer.cuts[$0].frame - counted.cuts[$0 < index ? $0 : $0 + 1].frame) <= tolerance }
        }
        guard let dropped = counted.cuts.indices.first(where: matches), counted.cuts[dropped].pauseDuration < Self.clearPause else { return false }
        return lengthMisfit(fewer, texts: texts) * Self.clearlyBetterFit < lengthMisfit(counted, texts: texts)
    }

    /// How far the lengths of `take`'s phrases are from those of its texts (the first ones, as
    /// many as it has phrases), at the pace that fits them best: the mean square of the log ratios.
    private static func lengthMisfit(_ take: Segmentation, texts: [String]) -> Double {
        let model = PhraseLengthModel()
        let ratios = zip(take.segments, texts).map { segment, text in
            log(max(take.seconds(segment.endFrame - segment.startFrame), 0.01) / max(model.weight(of: text), 0.01))
        }
        let pace = ratios.reduce(0, +) / Double(ratios.count)
        return ratios.reduce(0) { $0 + ($1 - pace) * ($1 - pace) } / Double(ratios.count)
    }

    /// Whether `more` cuts where `fewer` does (within 50 ms), before its own last cut.
    private static func keepsTheEarlierCuts(_ fewer: Segmentation, _ more: Segmentation) -> Bool {
        let tolerance = more.sampleRate / 20
        return zip(fewer.cuts, more.cuts).allSatisfy { abs($0.frame - $1.frame) <= tolerance }
    }

    /// How far the stretch of `take` from the start of its phrase `first` to its end is from the
    /// length of that phrase alone, and of it and the next (|log| of each ratio), at the pace of
    /// the phrases before it (a usual pace if there are none).
    private static func lengthFit(from first: Int, of take: Segmentation, texts: [String]) -> (asOne: Double, asTwo: Double) {
        let weights = texts.map(PhraseLengthModel().weight(of:))
        let earlier = take.segments.prefix(first)
        let earlierWeight = weights.prefix(first).reduce(0, +)
        let pace = earlier.isEmpty || earlierWeight <= 0 ? ReadingPace.usualHopsPerWeight / 100
            : earlier.reduce(0.0) { $0 + take.seconds($1.endFrame) - take.seconds($1.startFrame) } / earlierWeight
        let stretch = take.seconds(take.segments[take.segments.count - 1].endFrame) - take.seconds(take.segments[first].startFrame)
        return (abs(log(stretch / (weights[first] * pace))), abs(log(stretch / ((weights[first] + weights[first + 1]) * pace))))
    }

    /// How many times better the lengths must fit for a counted phrase to be given back. A short
    /// last phrase read after a breath in its pause fitted 1.6 times better as part of the one
    /// before; most phrases the view made up at a comma fit 4 to 50 times better without them
    /// (the few at 1.5 to 1.9 keep the audio they were given).
    static let clearlyBetterFit = 2.0

    /// Longer than the comma pauses of fluent reading (up to 0.23 s in the development set).
    static let clearPause = 0.24
}
