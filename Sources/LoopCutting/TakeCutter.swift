import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopSpeech

/// Cuts a take into its phrases: by what is said when its text is known (``ContentAligner``,
/// each cut then placed on the pause or the quietest point there), else at its pauses
/// (``SilenceSegmenter``). The one cutter every path from a take to clips goes through.
public struct TakeCutter: Sendable {
    public var segmenter: SilenceSegmenter
    /// The language the text is read in (`--language`); else the hint's (the loop's), else a
    /// guess from the text.
    public var language: String?

    public struct Parameters: Sendable {
        /// A real pause this close to the aligned join (seconds) takes the cut.
        public var pauseReach = 0.2
        /// Without a pause, the cut goes to the quietest point this close (seconds) to the join.
        public var quietReach = 0.06
        /// The take reads its text when the alignment fits it better than the phrases played
        /// backwards on at least this share of its speech (about one half for another text)...
        public var minimumAgreement = 0.6
        /// ...on this share when only some of the phrases are found in it...
        public var minimumPartialAgreement = 0.75
        /// ...and its speed against the rendering's varies less than this between phrases
        /// (standard deviation of the log ratio),
        public var maximumSpread = 0.25
        /// or less than this where the agreement is below ``strongAgreement``.
        public var maximumWeakSpread = 0.12
        public var strongAgreement = 0.8
        /// When the words cannot be matched well enough (but better than another text's), a
        /// take whose phrases are all parted by pauses of at least this much silence (seconds)
        /// is cut at its pauses rather than refused: a take read with pauses on purpose.
        public var clearPause = 0.12
        /// ...if its words agree with the text at least this well (another text's about 0.5-0.7),
        /// the alignment found every phrase in it,
        public var minimumPausedAgreement = 0.66
        /// and its clips' lengths against their phrases' renderings vary less than this
        /// (standard deviation of the log ratio). A take of the text keeps its phrases' lengths
        /// in proportion (0.10-0.20 on the development set where this fallback decides); another
        /// text cut at as many pauses does not (0.25-0.36).
        public var maximumPausedSpread = 0.3

        public init() {}
    }

    public var parameters = Parameters()

    public init(segmenter: SilenceSegmenter = SilenceSegmenter(), language: String? = nil) {
        self.segmenter = segmenter
        self.language = language
    }

    /// Cuts the take at `path`. `progress` receives the share done (0...1).
    public func cut(path: String, hint: SegmentationHint, progress: (@Sendable (Double) -> Void)? = nil) throws
        -> Segmentation
    {
        try measureAndCut(path: path, hint: hint, progress: progress).segmentation
    }

    /// Cuts the take at `path`, with its measured levels (for drawing it).
    public func measureAndCut(path: String, hint: SegmentationHint, progress: (@Sendable (Double) -> Void)? = nil)
        throws
        -> (envelope: EnergyEnvelope, segmentation: Segmentation)
    {
        let atPauses = { (note: String?) throws -> (envelope: EnergyEnvelope, segmentation: Segmentation) in
            let envelope = try EnergyEnvelope.measure(
                path: path, parallelism: segmenter.parameters.threads, progress: progress)
            var segmentation = try segmenter.segment(envelope, hint: hint, path: path)
            if let note { segmentation.notes.append(note) }
            return (envelope, segmentation)
        }
        guard case .text(let phrases, let loopLanguage) = hint, !phrases.isEmpty else { return try atPauses(nil) }
        guard let language = SpeechLanguage.resolve(given: language, loop: loopLanguage, text: phrases) else {
            return try atPauses(nil)
        }
        let renderingRate: Int
        do {
            renderingRate = try SpeechSynthesizer.shared.outputRate()
        } catch {
            return try atPauses("\(error.message): cut at its pauses instead of following the text")
        }
        // The text is rendered while the take is read.
        let upper = CepstrumMeter.upperFrequency(sampleRates: [
            try AudioFileReader(path: path).info.sampleRate, renderingRate,
        ])
        let (rendering, measuring) = bothAtOnce(
            { Result { try ContentAligner().render(phrases, in: language, upperFrequency: upper) } },
            { Result { try measure(path: path, renderingRate: renderingRate, progress: progress) } })
        let take = try measuring.get()
        switch rendering {
        case .failure(let error as SpeechError):
            return try atPauses("\(error.message): cut at its pauses instead of following the text")
        case .failure(let error):
            throw error
        case .success(let rendering):
            return try align(take, path: path, phrases: phrases, rendering: rendering, language: language)
        }
    }

    /// A take measured for alignment: its levels, its pauses and its frame features.
    struct MeasuredTake {
        var envelope: EnergyEnvelope
        var analysis: PauseAnalysis
        var features: FeatureMatrix
        var upperFrequency: Double

        /// The take's frames for the hops `hops`, as the warping reads them.
        func frames(_ hops: Range<Int>) -> DynamicTimeWarping.Frames {
            let d = FeatureMatrix.dimension
            // The whole take shares its features rather than copying them.
            let values =
                hops == 0..<features.frameCount
                ? features.values : Array(features.values[(hops.lowerBound * d)..<(hops.upperBound * d)])
            return .init(features: values, quiet: analysis.isSpeech[hops].map { !$0 })
        }
    }

    /// Reads the take once: levels and features in one parallel pass.
    func measure(path: String, renderingRate: Int, progress: (@Sendable (Double) -> Void)?) throws -> MeasuredTake {
        var (info, frames, parts) = try TakeReading.read(
            path: path, parallelism: segmenter.parameters.threads, progress: progress
        ) { info in
            let upper = CepstrumMeter.upperFrequency(sampleRates: [info.sampleRate, renderingRate])
            return try AlignmentMeter(sampleRate: info.sampleRate, upperFrequency: upper)
        }
        let hop = EnergyEnvelope.hopFrames(sampleRate: info.sampleRate)
        let envelope = EnergyEnvelope(
            hopFrames: hop, sampleRate: info.sampleRate, channelCount: info.channelCount,
            frameCount: frames, levels: parts.flatMap(\.levels))
        let analysis: PauseAnalysis
        do {
            analysis = try PauseAnalysis(envelope: envelope)
        } catch {
            var named = error
            named.subject = path
            throw named
        }
        let hops = envelope.levels.count
        // The first part's reading has room for the others (TakeReading), which join it one by
        // one and are let go: never two copies of an hour's features.
        var values = parts[0].cepstra
        parts[0].cepstra = []
        for index in parts.indices.dropFirst() {
            values += parts[index].cepstra
            parts[index].cepstra = []
        }
        var features = FeatureMatrix(values: values)
        values = []
        if features.frameCount > hops {
            features.values.removeLast((features.frameCount - hops) * FeatureMatrix.dimension)
        }
        while features.frameCount < hops {
            features.values.append(contentsOf: repeatElement(0, count: FeatureMatrix.dimension))
        }
        features.normalise { analysis.isSpeech[$0] }
        return MeasuredTake(
            envelope: envelope, analysis: analysis, features: features,
            upperFrequency: CepstrumMeter.upperFrequency(sampleRates: [info.sampleRate, renderingRate]))
    }

    /// A run of phrases placed in the take: the cut hops between them and how sure each is.
    struct PlacedRun {
        var found: Range<Int>
        var cutHops: [Int]
        var confidences: [Double]
        var silences: [Double]
    }

    /// Why a run's words were not accepted: how well they agreed with the text.
    struct Mismatch: Error {
        var agreement: Double
        /// Whether the alignment found every phrase in the take (rather than a run of them).
        var foundAll: Bool
    }

    /// Aligns the take's hops `hops` with the rendered phrases and places a cut at each join;
    /// throws ``Mismatch`` when the take there does not read them.
    func place(_ rendering: ContentAligner.Rendering, in take: MeasuredTake, hops: Range<Int>) throws -> PlacedRun {
        let alignment = ContentAligner().align(take: take.frames(hops), rendering: rendering)
        let partial = alignment.found.count < rendering.phrases.count
        guard !alignment.found.isEmpty,
            alignment.agreement >= (partial ? parameters.minimumPartialAgreement : parameters.minimumAgreement),
            alignment.lengthSpread <= parameters.maximumSpread,
            alignment.lengthSpread <= parameters.maximumWeakSpread || alignment.agreement >= parameters.strongAgreement
        else {
            throw Mismatch(agreement: alignment.agreement, foundAll: !partial)
        }
        var run = PlacedRun(found: alignment.found, cutHops: [], confidences: [], silences: [])
        for (index, join) in alignment.joins.enumerated() {
            let shifted = (join.lowerBound + hops.lowerBound)...(join.upperBound + hops.lowerBound)
            let (hop, silence) = place(shifted, take.analysis, within: hops)
            run.cutHops.append(hop)
            run.silences.append(silence)
            run.confidences.append(confidence(advantage: alignment.advantage[index], silence: silence))
        }
        // Cuts strictly increase, so every phrase keeps at least one hop.
        for index in run.cutHops.indices.dropFirst() where run.cutHops[index] <= run.cutHops[index - 1] {
            run.cutHops[index] = run.cutHops[index - 1] + 1
        }
        return run
    }

    private func align(
        _ take: MeasuredTake, path: String, phrases: [String], rendering: ContentAligner.Rendering,
        language: SpeechLanguage
    ) throws -> (envelope: EnergyEnvelope, segmentation: Segmentation) {
        let name = language.origin == .guessed ? "\(language.code) (guessed from the text)" : language.code
        let run: PlacedRun
        do {
            run = try place(rendering, in: take, hops: 0..<take.envelope.levels.count)
        } catch let mismatch as Mismatch {
            // A take read with a clear pause after every phrase is cut there, even when its
            // words cannot be matched (a voice unlike the synthesizer's).
            // The alignment must not have left phrases out, and the clips' lengths must keep
            // the proportions of their phrases'.
            if mismatch.agreement >= parameters.minimumPausedAgreement, mismatch.foundAll,
                var paused = try? segmenter.segment(
                    take.envelope, hint: .text(phrases, language: language.code), path: path),
                paused.cuts.allSatisfy({ $0.pauseDuration >= parameters.clearPause }),
                lengthSpread(of: paused, in: take, against: rendering) <= parameters.maximumPausedSpread
            {
                paused.notes.append(
                    "its words could not be matched with the text (in \(name)): cut at its \(paused.cuts.count) clear pauses"
                )
                return (take.envelope, paused)
            }
            throw SegmentationError(
                .textMismatch, path: path,
                message:
                    "the take does not read its text (in \(name)): is it the right take, the right text, the right language?"
            )
        }
        var segmentation = segmenter.segmentation(
            take.analysis, cutHops: run.cutHops, confidences: run.confidences, pauseDurations: run.silences)
        segmentation.method = .text(language)
        segmentation.phrases = run.found
        return (take.envelope, segmentation)
    }

    /// How much the ratio of each clip's speech to its phrase's rendered speech varies (the
    /// standard deviation of its log): small when the clips hold their phrases.
    private func lengthSpread(
        of segmentation: Segmentation, in take: MeasuredTake, against rendering: ContentAligner.Rendering
    ) -> Double {
        let hop = take.envelope.hopFrames, hops = take.analysis.isSpeech.count
        let logRatios = zip(segmentation.segments, rendering.phrases).map { segment, span -> Double in
            let first = min(segment.startFrame / hop, hops), last = min(max(segment.endFrame / hop, first), hops)
            let spoken = take.analysis.speechHops(in: first..<last)
            let rendered = span.filter { !rendering.frames.quiet[$0] }.count
            return log(Double(max(spoken, 1)) / Double(max(rendered, 1)))
        }
        guard !logRatios.isEmpty else { return 0 }
        let mean = logRatios.reduce(0, +) / Double(logRatios.count)
        return (logRatios.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(logRatios.count)).squareRoot()
    }

    /// Clips for takes whose phrases are already roughly placed (subtitle cues, whose times are
    /// often half a second or more off): each run of phrases spoken without a break
    /// (`runs[k].frames`, from the start of its first phrase's speech to the end of its last's)
    /// is aligned with its texts, and the clips between its phrases are cut where the words
    /// change. A run whose words do not match its texts (music, another language, a cue that
    /// is not said) gets nil: its phrases keep the clips they had.
    public func cutRuns(
        path: String, runs: [(texts: [String], frames: Range<Int>)], loopLanguage: String?,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> (runs: [[Range<Int>]?], method: CuttingMethod, notes: [String]) {
        let texts = runs.flatMap(\.texts)
        guard !texts.isEmpty, let language = SpeechLanguage.resolve(given: language, loop: loopLanguage, text: texts)
        else {
            return (runs.map { _ in nil }, .pauses, [])
        }
        let renderingRate: Int
        do {
            renderingRate = try SpeechSynthesizer.shared.outputRate()
            _ = try SpeechSynthesizer.shared.render([texts[0]], in: language)
        } catch {
            return (
                runs.map { _ in nil }, .pauses, ["\(error.message): each cue keeps the speech around its own times"]
            )
        }
        let take = try measure(path: path, renderingRate: renderingRate, progress: progress)
        let envelope = take.envelope
        var clips: [[Range<Int>]?] = []
        for run in runs {
            let firstHop = run.frames.lowerBound / envelope.hopFrames
            let endHop = min(
                envelope.levels.count, (run.frames.upperBound + envelope.hopFrames - 1) / envelope.hopFrames)
            let hops = firstHop..<endHop
            guard run.texts.count > 1, hops.count > 2,
                let rendering = try? ContentAligner().render(
                    run.texts, in: language, upperFrequency: take.upperFrequency),
                let placed = try? place(rendering, in: take, hops: hops),
                placed.found.count == run.texts.count
            else {
                clips.append(nil)
                continue
            }
            // The run's own edges stay; between them, each phrase's speech with its padding. The
            // bounds stay inside the run and in order (a run may end on the take's last frame).
            var bounds = ([hops.lowerBound] + placed.cutHops + [hops.upperBound]).map {
                min(max($0, hops.lowerBound), hops.upperBound)
            }
            for index in bounds.indices.dropFirst() where bounds[index] < bounds[index - 1] {
                bounds[index] = bounds[index - 1]
            }
            let cuts = segmenter.segmentation(
                take.analysis, cutHops: bounds,
                confidences: Array(repeating: 1, count: placed.cutHops.count + 2),
                pauseDurations: Array(repeating: 0, count: placed.cutHops.count + 2))
            var ranges = cuts.segments.dropFirst().dropLast().map { $0.startFrame..<$0.endFrame }
            ranges[0] = run.frames.lowerBound..<max(ranges[0].upperBound, run.frames.lowerBound + 1)
            ranges[ranges.count - 1] =
                min(ranges[ranges.count - 1].lowerBound, run.frames.upperBound - 1)..<run.frames.upperBound
            clips.append(ranges)
        }
        return (clips, .text(language), [])
    }

    /// Where the cut for an aligned join goes: onto a real pause near it (the one with the most
    /// silence, nearer ones first), else onto the quietest point close to it; and the silence there.
    private func place(_ join: ClosedRange<Int>, _ analysis: PauseAnalysis, within hops: Range<Int>) -> (
        hop: Int, silence: Double
    ) {
        let hopDuration = analysis.envelope.hopDuration
        let reach = Int((parameters.pauseReach / hopDuration).rounded())
        let centre = (join.lowerBound + join.upperBound) / 2
        let near = (join.lowerBound - reach)...(join.upperBound + reach)
        let candidates = analysis.pauses.filter {
            hops.contains($0.cutHop)
                && near.overlaps($0.range.lowerBound...max($0.range.lowerBound, $0.range.upperBound - 1))
        }
        let scored = candidates.map { pause -> (PauseAnalysis.Pause, Double) in
            let inside = join.overlaps(pause.range.lowerBound...max(pause.range.lowerBound, pause.range.upperBound - 1))
            let distance =
                inside
                ? 0
                : Double(min(abs(pause.range.lowerBound - centre), abs(pause.range.upperBound - 1 - centre)))
                    * hopDuration
            return (pause, pause.silentDuration - distance * 0.5)
        }
        if let (pause, _) = scored.max(by: { $0.1 < $1.1 }), pause.silentDuration >= 0.03 {
            return (pause.cutHop, pause.silentDuration)
        }
        let quietReach = Int((parameters.quietReach / hopDuration).rounded())
        let window =
            max(
                hops.lowerBound, join.lowerBound - quietReach)...min(
                hops.upperBound - 1, analysis.smoothed.count - 1, join.upperBound + quietReach)
        let quietest =
            window.min {
                analysis.smoothed[$0] < analysis.smoothed[$1]
                    || (analysis.smoothed[$0] == analysis.smoothed[$1] && abs($0 - centre) < abs($1 - centre))
            } ?? centre
        return (quietest, 0)
    }

    /// How sure the cut is: the path's agreement with the take around the join, and whether a
    /// pause is there to take it.
    private func confidence(advantage: Double, silence: Double) -> Double {
        let pause = min(silence / 0.15, 1)
        return min(1, max(0, 0.3 + 2 * advantage + 0.3 * pause))
    }
}

/// The take's speech-band levels and cepstra, measured in one pass.
struct AlignmentMeter: TakeMeter {
    private var band: SpeechBandMeter
    private var cepstrum: CepstrumMeter

    init(sampleRate: Int, upperFrequency: Double) throws(SegmentationError) {
        let hop = EnergyEnvelope.hopFrames(sampleRate: sampleRate)
        band = SpeechBandMeter(sampleRate: sampleRate, hopFrames: hop)
        cepstrum = try CepstrumMeter(sampleRate: sampleRate, hopFrames: hop, upperFrequency: upperFrequency)
    }

    var framesConsumed: Int { band.framesConsumed }

    mutating func reserve(hops: Int) {
        band.reserve(hops: hops)
        cepstrum.reserve(hops: hops)
    }

    mutating func warmUp(_ samples: UnsafeBufferPointer<Float>) {
        band.warmUp(samples)
        cepstrum.warmUp(samples)
    }

    mutating func consume(_ samples: UnsafeBufferPointer<Float>) {
        band.consume(samples)
        cepstrum.consume(samples)
    }

    mutating func finish() -> (levels: [Float], cepstra: [Float]) { (band.finish(), cepstrum.finish()) }
}
