import LoopCutting

/// How long each phrase of a text should take to say, learnt from the reading itself: the
/// text's weights (``PhraseLengthModel``) times the speech per unit of weight of the phrases
/// read so far, starting from a usual pace.
public struct ReadingPace: Sendable {
    private let weights: [Double]
    private var speech: Double
    private var weight: Double

    /// A usual pace, in hops of speech per unit of weight: 17, 0.17 s a syllable, is the middle
    /// of the shared development set's readings.
    public static let usualHopsPerWeight = 17.0

    /// `hopsPerWeight` is the starting guess; it counts as `priorWeight` units of evidence
    /// against what the reading shows.
    public init(phrases: [String], hopsPerWeight: Double = usualHopsPerWeight, priorWeight: Double = 8) {
        let model = PhraseLengthModel()
        weights = phrases.map { model.weight(of: $0) }
        speech = hopsPerWeight * priorWeight
        weight = priorWeight
    }

    /// The speech (hops) phrase `index` should hold; nil past the text's end.
    public func expectedSpeechHops(_ index: Int) -> Double? {
        weights.indices.contains(index) ? weights[index] * speech / weight : nil
    }

    /// Phrase `index` was read with this much speech (hops).
    public mutating func read(_ index: Int, speechHops: Int) {
        guard weights.indices.contains(index) else { return }
        speech += Double(speechHops)
        weight += weights[index]
    }
}
