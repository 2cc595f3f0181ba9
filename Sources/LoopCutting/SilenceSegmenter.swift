import Foundation
import LoopFoundation

/// Finds the spoken phrases of a take and cuts it at the pauses between them.
///
/// The take is measured once (``EnergyEnvelope``); levels, pauses and the choice of cuts work
/// on that 10 ms envelope, so memory stays small whatever the length of the take.
public struct SilenceSegmenter: Sendable {
    /// The segmenter's figures (see docs/cutting.md).
    public struct Parameters: Sendable {
        /// Kept before each phrase's first sound, so no word start is clipped (seconds).
        public var leadingPadding = 0.06
        /// Kept after each phrase's last sound, so no word tail is clipped (seconds).
        public var trailingPadding = 0.11
        /// Sound this close after a phrase's end (seconds) belongs to it: a final consonant
        /// released after its stop closure.
        public var trailingEdgeReach = 0.1
        /// Sound this close before a phrase's start belongs to it; kept short, as a word-initial
        /// burst joins its vowel directly and a lip click before speech is not part of it.
        public var leadingEdgeReach = 0.03
        /// Without a hint, the silence that ends a phrase (seconds).
        public var minimumPause = 0.2
        /// A phrase holds at least this much speech (seconds).
        public var minimumPhraseSpeech = 0.1
        /// Levels and the neighbourhood measure, shared with the live tracker of a recording.
        public var thresholds = PauseThresholds()
        /// A long take in a format that seeks exactly is measured on this many threads at once
        /// (default: every core, at most 8).
        public var threads = ProcessInfo.processInfo.activeProcessorCount

        /// The figures the development sets were tuned on.
        public init() {}
    }

    /// The figures it cuts by.
    public var parameters: Parameters

    /// A segmenter cutting by `parameters`.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Cuts the take at `path`. `progress` receives the share decoded (0...1).
    public func segment(path: String, hint: SegmentationHint, progress: (@Sendable (Double) -> Void)? = nil) throws
        -> Segmentation
    {
        let envelope = try EnergyEnvelope.measure(path: path, parallelism: parameters.threads, progress: progress)
        return try segment(envelope, hint: hint, path: path)
    }

    /// Cuts a measured take; `path` names the take in errors.
    public func segment(_ envelope: EnergyEnvelope, hint: SegmentationHint, path: String? = nil)
        throws(SegmentationError) -> Segmentation
    {
        let choice: PhraseAligner.Choice
        let analysis: PauseAnalysis
        do {
            (analysis, choice) = try choose(envelope, hint: hint)
        } catch {
            var named = error
            named.subject = path
            throw named
        }

        let cutHops = choice.pauses.map { analysis.pauses[$0].cutHop }
        return segmentation(
            analysis, cutHops: cutHops, confidences: choice.confidences,
            pauseDurations: choice.pauses.map { analysis.pauses[$0].silentDuration })
    }

    /// The segments between cuts at `cutHops`: each from its first to its last sound, padded.
    func segmentation(_ analysis: PauseAnalysis, cutHops: [Int], confidences: [Double], pauseDurations: [Double])
        -> Segmentation
    {
        let envelope = analysis.envelope
        let halfHop = envelope.hopFrames / 2
        // Within the take and in order, whatever hops the caller gives (a cut in the last, short hop).
        var cutFrames = cutHops.map { min(envelope.frame(ofHop: $0) + halfHop, envelope.frameCount) }
        for index in cutFrames.indices.dropFirst() where cutFrames[index] < cutFrames[index - 1] {
            cutFrames[index] = cutFrames[index - 1]
        }
        let lead = Int(parameters.leadingPadding * Double(envelope.sampleRate))
        let trail = Int(parameters.trailingPadding * Double(envelope.sampleRate))

        var segments: [Segment] = []
        var hopBounds = [0] + cutHops.map { min(max($0, 0), envelope.levels.count) } + [envelope.levels.count]
        for index in hopBounds.indices.dropFirst() where hopBounds[index] < hopBounds[index - 1] {
            hopBounds[index] = hopBounds[index - 1]
        }
        let frameBounds = [0] + cutFrames + [envelope.frameCount]
        for phrase in 0..<(hopBounds.count - 1) {
            let hops = hopBounds[phrase]..<hopBounds[phrase + 1]
            let frames = frameBounds[phrase]..<frameBounds[phrase + 1]
            guard let sound = soundingHops(in: hops, analysis) else {
                segments.append(Segment(startFrame: frames.lowerBound, endFrame: frames.upperBound))
                continue
            }
            let start = max(frames.lowerBound, envelope.frame(ofHop: sound.lowerBound) - lead)
            let end = min(frames.upperBound, envelope.frame(ofHop: sound.upperBound) + trail)
            segments.append(Segment(startFrame: start, endFrame: max(end, start + 1)))
        }
        let cuts = cutFrames.indices.map { index in
            Cut(
                frame: cutFrames[index], confidence: (confidences[index] * 100).rounded() / 100,
                pauseDuration: pauseDurations[index])
        }
        return Segmentation(
            sampleRate: envelope.sampleRate, channelCount: envelope.channelCount, frameCount: envelope.frameCount,
            segments: segments, cuts: cuts)
    }

    /// Chooses the cuts against the noise floor; when that finds too few pauses for the phrases
    /// (a reverberant room fills them), against each hop's neighbourhood instead.
    private func choose(_ envelope: EnergyEnvelope, hint: SegmentationHint) throws(SegmentationError) -> (
        PauseAnalysis, PhraseAligner.Choice
    ) {
        var firstError: SegmentationError?
        for reference in [PauseAnalysis.Reference.global, .local] {
            var analysisParameters = PauseAnalysis.Parameters()
            analysisParameters.thresholds = parameters.thresholds
            let analysis = try PauseAnalysis(envelope: envelope, reference: reference, parameters: analysisParameters)
            var aligner = PhraseAligner(analysis: analysis)
            aligner.parameters.minimumPause = parameters.minimumPause
            aligner.parameters.minimumPhraseSpeech = parameters.minimumPhraseSpeech
            // Against the neighbourhood, any dip between syllables is a valley: only a long one
            // can be a pause, so a dry take asked for too many phrases is still refused.
            if reference == .local { aligner.parameters.viablePause = parameters.thresholds.minimumReverberantPause }
            do {
                return (analysis, try aligner.choose(hint: hint))
            } catch  where error.kind == .tooFewPauses && hint != .none {
                firstError = firstError ?? error
            }
        }
        throw firstError ?? SegmentationError(.tooFewPauses, "the take has too few clear pauses for its phrases")
    }

    /// The hops from a phrase's first to its last sound: speech hops, widened over the quieter
    /// sounds joined to them (soft onsets, fading tails) and over faint sounds close to them (a
    /// consonant after a stop closure), so no word start or tail is clipped.
    private func soundingHops(in hops: Range<Int>, _ analysis: PauseAnalysis) -> Range<Int>? {
        guard let first = hops.first(where: { analysis.isSpeech[$0] }),
            let last = hops.reversed().first(where: { analysis.isSpeech[$0] })
        else { return nil }
        let hop = analysis.envelope.hopDuration
        let leadingReach = Int((parameters.leadingEdgeReach / hop).rounded())
        let trailingReach = Int((parameters.trailingEdgeReach / hop).rounded())
        let sounds = { (hop: Int) in analysis.isSounding(hop) }
        var start = first
        var end = last + 1
        while true {
            while start > hops.lowerBound, sounds(start - 1) { start -= 1 }
            let limit = max(hops.lowerBound, start - leadingReach)
            guard let next = (limit..<start).reversed().first(where: sounds) else { break }
            start = next
        }
        while true {
            while end < hops.upperBound, sounds(end) { end += 1 }
            let limit = min(hops.upperBound, end + trailingReach)
            guard let next = (end..<limit).first(where: sounds) else { break }
            end = next + 1
        }
        return start..<end
    }
}
