import Foundation
import LoopFoundation
import LoopSpeech

/// A short recording measured for comparison with another of the same words (a model clip, or
/// a learner's attempt at it): frame features every 10 ms (``FeatureMatrix``) and which frames
/// hold speech.
public struct MeasuredRecording: Sendable {
    /// Seconds per frame.
    public static let hopDuration = 0.01
    /// Per frame: speech (rather than silence or noise between words).
    public let speech: [Bool]
    let features: FeatureMatrix
    /// The band measured (Hz; both recordings compared must share it).
    public let band: Double
    var upperFrequency: Double { band }

    /// Measures mono `samples` at `sampleRate` on the band up to `upperFrequency`
    /// (``upperFrequency(sampleRates:)`` of both recordings to be compared).
    public init(samples: [Float], sampleRate: Int, upperFrequency: Double) throws {
        let hop = EnergyEnvelope.hopFrames(sampleRate: sampleRate)
        var meter = try CepstrumMeter(sampleRate: sampleRate, hopFrames: hop, upperFrequency: upperFrequency)
        var band = SpeechBandMeter(sampleRate: sampleRate, hopFrames: hop)
        samples.withUnsafeBufferPointer { samples in
            meter.consume(samples)
            band.consume(samples)
        }
        let cepstra = meter.finish()
        let levels = band.finish()
        let count = min(levels.count, cepstra.count / FeatureMatrix.dimension)
        let speech = Self.speech(Array(levels.prefix(count)))
        var features = FeatureMatrix(values: Array(cepstra.prefix(count * FeatureMatrix.dimension)))
        features.normalise { speech[$0] }
        self.features = features
        self.speech = speech
        self.band = upperFrequency
    }

    /// The band two recordings at these rates share.
    public static func upperFrequency(sampleRates: [Int]) -> Double {
        CepstrumMeter.upperFrequency(sampleRates: sampleRates)
    }

    /// Frames this far below the loudest, or near the recording's floor (its quietest tenth),
    /// are not speech: a clean recording's pauses and a phone's hiss alike.
    static func speech(_ levels: [Float]) -> [Bool] {
        guard let loudest = levels.max() else { return [] }
        let floor = levels.sorted()[levels.count / 10]
        let threshold = max(loudest - 40, floor + 0.35 * (loudest - floor))
        return levels.map { $0 >= threshold && $0 > -90 }
    }

    /// The frames `range` as the warping reads them.
    func frames(_ range: Range<Int>, backwards: Bool = false) -> DynamicTimeWarping.Frames {
        let d = FeatureMatrix.dimension
        var order = Array(range)
        if backwards { order.reverse() }
        var values: [Float] = []
        values.reserveCapacity(order.count * d)
        for frame in order { values.append(contentsOf: features.values[(frame * d)..<(frame * d + d)]) }
        return .init(features: values, quiet: order.map { !speech[$0] })
    }

    /// From a few frames before the first speech to a few after the last (nil: no speech).
    var spoken: Range<Int>? {
        guard let first = speech.firstIndex(of: true), let last = speech.lastIndex(of: true) else { return nil }
        return max(0, first - 3)..<min(speech.count, last + 4)
    }
}

/// A learner's attempt at a phrase aligned with the model's recording of it: which of the
/// model's frames the attempt says, where, and how clearly its words are the model's.
public struct RecordingComparison: Sendable {
    /// Per frame of the model: the attempt's frames the alignment puts there; nil where the
    /// attempt does not say it (it stopped early, or began late) or outside the model's speech.
    public var attemptFrames: [ClosedRange<Int>?]
    /// How clearly the attempt says the model's words: the share of the attempt's speech frames
    /// that fit the model better than the same sounds played backwards (about one half for
    /// other words, near 1 for these).
    public var agreement: Double
    /// The attempt's speech's cost against the model over its cost against the model played
    /// backwards: about 0.95 for other words, 0.6-0.8 for these.
    public var costRatio: Double

    /// Aligns `attempt` with `model` (measured on the same band); nil when either holds no speech.
    /// Leaving the model's first or last speech frames out costs less than saying them
    /// silently, so an attempt that stops halfway leaves the rest unmatched.
    public init?(model: MeasuredRecording, attempt: MeasuredRecording) {
        guard let modelSpan = model.spoken, let attemptSpan = attempt.spoken else { return nil }
        let forward = model.frames(modelSpan)
        let backward = model.frames(modelSpan, backwards: true)
        let take = attempt.frames(attemptSpan)
        let aligner = ContentAligner()
        let warping = aligner.scaledWarping(take: take, rendering: forward)
        let scale = warping.parameters.stepPenalty / aligner.warping.parameters.stepPenalty
        let path = warping.align(take: take, rendering: forward, skipCost: Self.skipCost * scale)
        var frames = [ClosedRange<Int>?](repeating: nil, count: model.speech.count)
        for cell in path {
            let column = Int(cell.column) + modelSpan.lowerBound
            let row = Int(cell.row) + attemptSpan.lowerBound
            frames[column] = frames[column].map { min($0.lowerBound, row)...max($0.upperBound, row) } ?? row...row
        }
        // The path runs from its first column to its last: the model's speech outside is unsaid.
        let columns = path.map { Int($0.column) + modelSpan.lowerBound }
        if let first = columns.min(), let last = columns.max() {
            for column in frames.indices where column < first || column > last { frames[column] = nil }
        }
        attemptFrames = frames
        // Against the model's sounds backwards, over the stretch of it the attempt says, on the
        // low cepstra alone (the shape of the spectrum, which voices share, rather than its
        // detail, which is the speaker's): the cutter's test of a phrase told apart.
        let kept = aligner.parameters.identificationCepstra
        let lowTake = take.keepingLowCepstra(kept)
        let lowForward = forward.keepingLowCepstra(kept)
        let lowBackward = backward.keepingLowCepstra(kept)
        let lowWarping = aligner.scaledWarping(take: lowTake, rendering: lowForward)
        let lowScale = lowWarping.parameters.stepPenalty / aligner.warping.parameters.stepPenalty
        let forwardPath = lowWarping.align(take: lowTake, rendering: lowForward, skipCost: Self.skipCost * lowScale)
        let backwardPath = lowWarping.align(take: lowTake, rendering: lowBackward, skipCost: Self.skipCost * lowScale)
        let forwardCosts = aligner.rowCosts(forwardPath, take: lowTake, rendering: lowForward, lowWarping.parameters)
        let backwardCosts = aligner.rowCosts(
            backwardPath, take: lowTake, rendering: lowBackward, lowWarping.parameters)
        let forwardNear = ContentAligner.windowed(forwardCosts, radius: 10)
        let backwardNear = ContentAligner.windowed(backwardCosts, radius: 10)
        var better = 0
        var speech = 0
        var forwardSum = 0.0
        var backwardSum = 0.0
        for row in 0..<take.count where !take.quiet[row] {
            speech += 1
            if forwardNear[row] < backwardNear[row] { better += 1 }
            forwardSum += Double(forwardCosts[row])
            backwardSum += Double(backwardCosts[row])
        }
        agreement = speech == 0 ? 0 : Double(better) / Double(speech)
        costRatio = backwardSum > 0 ? forwardSum / backwardSum : 1
    }

    /// Leaving one of the model's speech frames out, in units of the distance between unrelated
    /// speech frames: below what saying it silently costs (0.7), above what its words cost.
    static let skipCost: Float = 0.45
}

/// Where each word of a phrase lies in a recording of it: the words rendered one by one by the
/// synthesizer, aligned with the recording as a take with its text.
public enum WordSpans {
    /// Each word's frames in `recording` (measured at `sampleRate`'s band); nil when the
    /// synthesizer cannot render `language` or the words cannot be placed.
    public static func find(
        _ words: [String], in recording: MeasuredRecording, sampleRate: Int, language: String?,
        synthesizer: SpeechSynthesizer
    ) -> [Range<Int>]? {
        guard words.count > 1, let span = recording.spoken,
            let resolved = SpeechLanguage.resolve(given: language, loop: nil, text: [words.joined(separator: " ")]),
            let rate = try? synthesizer.outputRate()
        else { return nil }
        let upper = recording.upperFrequency
        guard upper <= CepstrumMeter.upperFrequency(sampleRates: [sampleRate, rate]) + 1,
            let rendering = try? render(words, in: resolved, upperFrequency: upper, synthesizer: synthesizer)
        else { return nil }
        let take = recording.frames(span)
        let aligner = ContentAligner()
        let warping = aligner.scaledWarping(take: take, rendering: rendering.frames)
        let path = warping.align(take: take, rendering: rendering.frames)
        var columnWord = [Int](repeating: -1, count: rendering.frames.count)
        for (index, word) in rendering.phrases.enumerated() { for column in word { columnWord[column] = index } }
        var low = [Int](repeating: .max, count: words.count)
        var high = [Int](repeating: .min, count: words.count)
        for cell in path {
            let word = columnWord[Int(cell.column)]
            guard word >= 0 else { continue }
            low[word] = min(low[word], Int(cell.row) + span.lowerBound)
            high[word] = max(high[word], Int(cell.row) + span.lowerBound + 1)
        }
        // A word the path passed over (its rendering all silence) sits where the one before ends.
        var spans: [Range<Int>] = []
        var end = span.lowerBound
        for index in words.indices {
            let start = low[index] == .max ? end : max(low[index], end)
            let stop = high[index] == .min ? start : max(high[index], start)
            spans.append(start..<stop)
            end = stop
        }
        return spans
    }

    /// The words rendered by a second process where one can start: espeak-ng's output depends
    /// on what its process rendered before, so scoring a learner leaves the cutter's renderings
    /// in this process as they were.
    private static func render(
        _ words: [String], in language: SpeechLanguage, upperFrequency: Double, synthesizer: SpeechSynthesizer
    ) throws -> ContentAligner.Rendering {
        guard let child = try synthesizer.renderInChildProcess(words, in: language) else {
            return try ContentAligner().render(
                words, in: language, upperFrequency: upperFrequency, synthesizer: synthesizer)
        }
        var speech: [RenderedSpeech] = []
        while let next = try child.next() { speech.append(next) }
        return try ContentAligner().rendering(of: speech, upperFrequency: upperFrequency)
    }
}
