/// How speech and pauses are told apart, for the offline segmenter (``PauseAnalysis``) and the
/// live tracker of a recording alike, so the two measure a take the same way.
///
/// Levels are dB in the speech band, one every 10 ms. Everything is relative to the take's own
/// noise floor and speech level, so the same rules hold for a studio take, a take 30 dB too
/// quiet and a take under hum or noise.
public struct PauseThresholds: Sendable, Equatable {
    /// The floor is never taken lower than this below the speech level (dB).
    public var maxDynamicRange: Float = 50
    /// Above the floor by this share of the floor-to-speech range (between the bounds, dB), a
    /// hop is sound.
    public var soundShare: Float = 0.35
    /// See ``soundShare``.
    public var soundBounds: ClosedRange<Float> = 3...18
    /// Below the floor plus this share of the range, a hop is fully silent.
    public var silenceShare: Float = 0.12
    /// See ``silenceShare``.
    public var silenceBounds: ClosedRange<Float> = 1.5...6
    /// Where a phrase's first and last sounds end, for its edges.
    public var edgeShare: Float = 0.2
    /// See ``edgeShare``.
    public var edgeBounds: ClosedRange<Float> = 2...10

    /// Against the neighbourhood (a reverberant room, whose tails keep pauses above the
    /// floor): the loudest sound within this many seconds either side...
    public var contrastWindow = 0.3
    /// ...and how far below it a hop starts to count as quiet (dB)...
    public var contrastQuiet: Float = 8
    /// ...and counts fully (dB).
    public var contrastSilent: Float = 16
    /// Against the neighbourhood, any dip between syllables is a valley: only one this long
    /// (seconds) can be a pause.
    public var minimumReverberantPause = 0.12

    /// The measures the development sets were tuned on.
    public init() {}

    /// The floor a take's levels are measured from: its own, or the speech level less
    /// ``maxDynamicRange``, whichever is higher.
    public func floor(noiseFloor: Float, speechLevel: Float) -> Float { max(noiseFloor, speechLevel - maxDynamicRange) }

    /// Above this a hop is sound (speech, or a click or breath to be ruled out).
    public func soundThreshold(floor: Float, speechLevel: Float) -> Float {
        floor + Self.clamp(soundShare * (speechLevel - floor), soundBounds)
    }

    /// Below this a hop is fully silent.
    public func silenceThreshold(floor: Float, speechLevel: Float) -> Float {
        floor + Self.clamp(silenceShare * (speechLevel - floor), silenceBounds)
    }

    /// Where the sound of a phrase's edges ends.
    public func edgeThreshold(floor: Float, speechLevel: Float) -> Float {
        floor + Self.clamp(edgeShare * (speechLevel - floor), edgeBounds)
    }

    /// The runs of `levels` (at least `minimumHops` long) that lie ``contrastQuiet`` dB or more
    /// below the loudest level within `window` hops either side: the pauses of a reverberant
    /// take, whose tails never reach the floor.
    public func contrastValleys(_ levels: [Float], window: Int, minimumHops: Int) -> [Range<Int>] {
        let peaks = Self.slidingMaximum(levels, radius: window)
        var valleys: [Range<Int>] = []
        var start: Int?
        for index in 0...levels.count {
            let quiet = index < levels.count && peaks[index] - levels[index] >= contrastQuiet
            if quiet, start == nil { start = index }
            if !quiet, let first = start {
                if index - first >= minimumHops { valleys.append(first..<index) }
                start = nil
            }
        }
        return valleys
    }

    /// The maximum of `values` within `radius` of each index (monotonic deque, linear time).
    public static func slidingMaximum(_ values: [Float], radius: Int) -> [Float] {
        let count = values.count
        var result = [Float](repeating: -120, count: count)
        var deque: [Int] = []
        deque.reserveCapacity(2 * radius + 2)
        var head = 0
        var next = 0
        for i in 0..<count {
            while next < count, next <= i + radius {
                while deque.count > head, values[deque[deque.count - 1]] <= values[next] { deque.removeLast() }
                deque.append(next)
                next += 1
            }
            while deque[head] < i - radius { head += 1 }
            result[i] = values[deque[head]]
            if head > 4096 {
                deque.removeFirst(head)
                head = 0
            }
        }
        return result
    }

    private static func clamp(_ value: Float, _ bounds: ClosedRange<Float>) -> Float {
        min(max(value, bounds.lowerBound), bounds.upperBound)
    }
}
