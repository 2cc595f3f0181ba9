import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopSpeech

/// Turns a recording into a take for the library: the kept audio (re-recorded attempts left
/// out) as FLAC, cut with the text of the phrases read, by the same cutter as `loop segment`.
public struct RecordingFinisher: Sendable {
    /// What renders the text the take is cut by.
    public let synthesizer: SpeechSynthesizer

    /// A finisher that cuts with text rendered by `synthesizer`.
    public init(synthesizer: SpeechSynthesizer) { self.synthesizer = synthesizer }

    /// The take, and the phrases (their ids, in order) its ranges belong to.
    public struct Result: Sendable {
        /// The take, as FLAC.
        public var takePath: String
        /// The phrases read, in order.
        public var phraseIds: [Int64]
        /// Each phrase's frames in the take.
        public var ranges: [Range<Int>]
        /// How sure the cutter was of each range's edges.
        public var confidences: [Double]
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
    public func finish(rawPath: String, draft: RecordingDraft, phrasesRead: Int?, into folder: String) throws -> Result?
    {
        let flac = folder + "/" + UUID().uuidString.lowercased() + ".flac"
        let channels = draft.channelCount
        guard let input = FileHandle(forReadingAtPath: rawPath) else {
            throw AudioError(.fileNotFound, path: rawPath, message: "the recording is gone")
        }
        defer { try? input.close() }
        var writer = try AudioFileWriter(
            path: flac, format: .flac, sampleRate: draft.sampleRate, channelCount: channels)
        var position = 0
        var kept = 0
        while let chunk = try input.read(upToCount: 65_536 * 4 * channels), !chunk.isEmpty {
            let samples = chunk.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let frames = samples.count / channels
            for range in Self.kept(position..<(position + frames), discarding: draft.discarded) {
                let from = (range.lowerBound - position) * channels
                let to = (range.upperBound - position) * channels
                try samples.withUnsafeBufferPointer { try writer.write(UnsafeBufferPointer(rebasing: $0[from..<to])) }
                kept += range.count
            }
            position += frames
        }
        guard kept > 0 else { return nil }
        try writer.commit()
        TestStop.reached("record.saving")

        let segmenter = SilenceSegmenter()
        // The take is cut by what is said, like any other: the aligner finds which phrases it
        // reads, from the first on. Where it cannot follow the words (no voice for the
        // language, a reader it cannot match), the count the live view kept and the pauses decide.
        if let aligned = try? TakeCutter(segmenter: segmenter, synthesizer: synthesizer).cut(
            path: flac, hint: .text(draft.phraseTexts, language: draft.language)),
            case .text = aligned.method, let found = aligned.phrases, found.elementsEqual(found.indices)
        {
            return Result(
                takePath: flac, phraseIds: Array(draft.phraseIds.prefix(found.count)),
                ranges: aligned.segments.map { $0.startFrame..<$0.endFrame }, confidences: aligned.clipConfidences)
        }
        let envelope = try EnergyEnvelope.measure(path: flac)
        var count = min(phrasesRead ?? draft.phraseIds.count, draft.phraseIds.count)
        if phrasesRead == nil {
            count = min(count, (try? segmenter.segment(envelope, hint: .none).segments.count) ?? count)
        }
        guard count > 0 else {
            try? FileManager.default.removeItem(atPath: flac)
            return nil
        }
        /// The take cut for the first `phrases` texts.
        func cut(for phrases: Int) throws -> Segmentation {
            try segmenter.segment(
                envelope, hint: .text(Array(draft.phraseTexts.prefix(phrases)), language: draft.language), path: flac)
        }
        var segmentation = try cut(for: count)
        // The live view ends a phrase at a pause as long as it expects there: a short pause where
        // it expected more of the phrase goes unseen, and the next phrase is heard as the rest of
        // it. That leaves the take holding phrases the view never counted; where two pauses went
        // unseen, only the text cut for both phrases fits.
        grow: while phrasesRead != nil {
            for more in [count + 1, count + 2] where more <= draft.phraseIds.count {
                if let grown = try? cut(for: more),
                    Self.holdsMorePhrases(grown, than: segmentation, texts: Array(draft.phraseTexts.prefix(more)))
                {
                    segmentation = grown
                    count = more
                    continue grow
                }
            }
            break
        }
        // The other way: where a phrase read has a pause of its own (a comma), the view may end
        // it there and count its rest as the next phrase; each phrase after it is then one late,
        // and the last one counted was never read.
        shrink: while let read = phrasesRead, count <= read {
            for fewer in [count - 1, count - 2] where fewer >= 2 {
                if let shrunk = try? cut(for: fewer),
                    Self.ranIntoPhrasesNotRead(
                        segmentation, fewer: shrunk, texts: Array(draft.phraseTexts.prefix(count)))
                {
                    segmentation = shrunk
                    count = fewer
                    continue shrink
                }
            }
            break
        }
        return Result(
            takePath: flac, phraseIds: Array(draft.phraseIds.prefix(count)),
            ranges: segmentation.segments.map { $0.startFrame..<$0.endFrame },
            confidences: segmentation.clipConfidences)
    }

    /// Whether `more`, cut for a phrase or two more than `fewer`, found them in the take: it keeps
    /// every cut of `fewer` and adds its own at clear pauses, and either it adds one, the last,
    /// and the last stretch of the take fits the last two phrases' lengths (at the pace of the
    /// earlier ones) better than one, or the phrases' lengths fit their texts clearly better with
    /// the cuts added (pauses missed earlier on, after which each text was a phrase early).
    static func holdsMorePhrases(_ more: Segmentation, than fewer: Segmentation, texts: [String]) -> Bool {
        let count = fewer.segments.count
        guard count >= 1, more.segments.count > count, let added = addedCuts(more, to: fewer),
            added.allSatisfy({ more.cuts[$0].pauseDuration >= Self.clearPause })
        else { return false }
        if added == [more.cuts.count - 1] {
            let fit = lengthFit(from: count - 1, of: more, texts: texts)
            if fit.asTwo < fit.asOne { return true }
        }
        return lengthMisfit(more, texts: texts) * Self.clearlyBetterFit < lengthMisfit(fewer, texts: texts)
    }

    /// Whether `counted` holds a phrase or two that were never read: the view ended a phrase at
    /// a pause of its own (a comma) and counted its rest as the next one. `fewer`, cut for a
    /// phrase or two less, keeps every other cut, the cuts it drops are no clear pauses, and its
    /// phrases' lengths fit their texts clearly better than those of `counted` (whose texts after
    /// such a cut are each a phrase late).
    static func ranIntoPhrasesNotRead(_ counted: Segmentation, fewer: Segmentation, texts: [String]) -> Bool {
        guard fewer.segments.count >= 2, fewer.segments.count < counted.segments.count,
            let dropped = addedCuts(counted, to: fewer),
            dropped.allSatisfy({ counted.cuts[$0].pauseDuration < Self.clearPause })
        else { return false }
        return lengthMisfit(fewer, texts: texts) * Self.clearlyBetterFit < lengthMisfit(counted, texts: texts)
    }

    /// The cuts of `more` that `fewer` lacks, when every cut of `fewer` is one of `more`'s (within
    /// 50 ms, in order).
    private static func addedCuts(_ more: Segmentation, to fewer: Segmentation) -> [Int]? {
        let tolerance = more.sampleRate / 20
        var added: [Int] = []
        var next = 0
        for (index, cut) in more.cuts.enumerated() {
            if next < fewer.cuts.count, abs(fewer.cuts[next].frame - cut.frame) <= tolerance {
                next += 1
            } else {
                added.append(index)
            }
        }
        return next == fewer.cuts.count ? added : nil
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

    /// How far the stretch of `take` from the start of its phrase `first` to its end is from the
    /// length of that phrase alone, and of it and the next (|log| of each ratio), at the pace of
    /// the phrases before it (a usual pace if there are none).
    private static func lengthFit(from first: Int, of take: Segmentation, texts: [String]) -> (
        asOne: Double, asTwo: Double
    ) {
        let weights = texts.map(PhraseLengthModel().weight(of:))
        let earlier = take.segments.prefix(first)
        let earlierWeight = weights.prefix(first).reduce(0, +)
        let pace =
            earlier.isEmpty || earlierWeight <= 0
            ? ReadingPace.usualHopsPerWeight / 100
            : earlier.reduce(0.0) { $0 + take.seconds($1.endFrame) - take.seconds($1.startFrame) } / earlierWeight
        let stretch =
            take.seconds(take.segments[take.segments.count - 1].endFrame)
            - take.seconds(take.segments[first].startFrame)
        return (
            abs(log(stretch / (weights[first] * pace))),
            abs(log(stretch / ((weights[first] + weights[first + 1]) * pace)))
        )
    }

    /// How many times better the phrase lengths must fit their texts for the fit alone to change
    /// the count. A short last phrase read after a breath in its pause fitted 1.6 times better as
    /// part of the one before; most phrases the view made up at a comma fit 4 to 50 times better
    /// without them (the few at 1.5 to 1.9 keep the audio they were given).
    static let clearlyBetterFit = 2.0

    /// Longer than the comma pauses of fluent reading (up to 0.23 s in the development set).
    static let clearPause = 0.24
}
