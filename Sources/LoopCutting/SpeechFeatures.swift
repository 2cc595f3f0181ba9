import Foundation
import LoopFFmpeg
import LoopFoundation

/// Frame features of speech for comparing two recordings of the same words: mel-frequency
/// cepstral coefficients every 10 ms (c1-c12 of a window of about 25 ms, over a band both recordings
/// carry), normalised to zero mean and unit variance over the recording's speech, with their
/// deltas. Loudness, the microphone and the room mostly shift the cepstrum's mean, which the
/// normalisation removes.
struct FeatureMatrix: Sendable {
    static let cepstra = 12
    static let dimension = cepstra * 2

    /// Frames, each ``dimension`` values: cepstra then deltas.
    var values: [Float]
    var frameCount: Int { values.count / Self.dimension }

    init(values: [Float]) { self.values = values }

    /// Mean and variance normalisation over the frames where `isSpeech`, then the deltas.
    mutating func normalise(isSpeech: (Int) -> Bool) {
        let d = Self.dimension
        let c = Self.cepstra
        let frames = frameCount
        guard frames > 0 else { return }
        var sum = [Double](repeating: 0, count: c)
        var squares = [Double](repeating: 0, count: c)
        var counted = 0
        values.withUnsafeBufferPointer { v in
            for frame in 0..<frames where isSpeech(frame) {
                counted += 1
                for k in 0..<c {
                    let x = Double(v[frame * d + k])
                    sum[k] += x
                    squares[k] += x * x
                }
            }
        }
        if counted < 10 {
            // Too little speech to measure: normalise over everything.
            counted = frames
            sum = [Double](repeating: 0, count: c)
            squares = sum
            values.withUnsafeBufferPointer { v in
                for frame in 0..<frames {
                    for k in 0..<c {
                        let x = Double(v[frame * d + k])
                        sum[k] += x
                        squares[k] += x * x
                    }
                }
            }
        }
        let mean = sum.map { Float($0 / Double(counted)) }
        let scale = zip(sum, squares).map { s, q -> Float in
            let m = s / Double(counted)
            return Float(1 / max(sqrt(max(q / Double(counted) - m * m, 0)), 1e-3))
        }
        values.withUnsafeMutableBufferPointer { v in
            for frame in 0..<frames {
                for k in 0..<c { v[frame * d + k] = (v[frame * d + k] - mean[k]) * scale[k] }
            }
            // Deltas: the regression slope over +-2 frames.
            for frame in 0..<frames {
                let a = max(frame - 2, 0)
                let b = max(frame - 1, 0)
                let e = min(frame + 1, frames - 1)
                let f = min(frame + 2, frames - 1)
                for k in 0..<c {
                    let slope = (v[e * d + k] - v[b * d + k]) + 2 * (v[f * d + k] - v[a * d + k])
                    v[frame * d + c + k] = slope / 10
                }
            }
        }
    }
}

/// Computes a cepstral frame every hop from audio arriving in blocks.
struct CepstrumMeter: TakeMeter {
    let hopFrames: Int
    /// Input samples averaged into one analysed sample (``analysisStep(_:)``).
    private let step: Int
    /// The window, in analysed samples...
    private let windowLength: Int
    /// ...and in input samples.
    private let span: Int
    private let window: [Float]
    private let transform: SpectrumTransform
    /// Each mel filter's first bin and where its weights start in ``filterWeights`` (one more
    /// entry at the end, where the last filter's weights end).
    private let filterFirstBin: [Int]
    private let filterWeightStart: [Int]
    private let filterWeights: [Float]
    private let dct: [Float]
    private var pending: [Float] = []
    private var pendingStart = 0
    private var lastSample: Float = 0
    private var power: [Float]
    private var melLog: [Float]
    private(set) var values: [Float] = []
    private(set) var framesProduced = 0
    private(set) var framesConsumed = 0

    static let melBands = 26

    /// The band both recordings carry: up to 7.6 kHz, or just below half the slower rate.
    static func upperFrequency(sampleRates: [Int]) -> Double {
        let slowest = sampleRates.map { Double($0) / Double(analysisStep($0)) }.min() ?? 16_000
        return min(7_600, slowest / 2 * 0.95)
    }

    /// Input samples averaged into one analysed sample: a recording at 32 kHz or more is analysed
    /// at half (or a third) its rate, which still carries the band measured. (A band up to 5.2 kHz
    /// at 11 kHz, for a transform half the size, was tried: Mandarin's fricatives, mostly above
    /// it, then no longer told a take of its text from another text.)
    static func analysisStep(_ sampleRate: Int) -> Int { max(1, sampleRate / 16_000) }

    init(sampleRate: Int, hopFrames: Int, upperFrequency: Double) throws(SegmentationError) {
        self.hopFrames = hopFrames
        step = Self.analysisStep(sampleRate)
        let analysisRate = Double(sampleRate) / Double(step)
        // The largest power of two within 25 ms (16-23 ms at 16-22 kHz): a transform without padding.
        let windowLength = 1 << max(4, Int(log2(analysisRate * 0.025)))
        self.windowLength = windowLength
        span = windowLength * step
        let length = windowLength
        do {
            transform = try SpectrumTransform(length: length)
        } catch {
            throw SegmentationError(.alignerMissing, error.message)
        }
        window = (0..<windowLength).map {
            Float(0.54 - 0.46 * cos(2 * Double.pi * Double($0) / Double(windowLength - 1)))
        }
        power = [Float](repeating: 0, count: length / 2 + 1)
        melLog = [Float](repeating: 0, count: Self.melBands)

        let mel = { (f: Double) in 2595 * log10(1 + f / 700) }
        let hertz = { (m: Double) in 700 * (pow(10, m / 2595) - 1) }
        let low = mel(80)
        let high = mel(upperFrequency)
        let edges = (0...(Self.melBands + 1)).map { hertz(low + (high - low) * Double($0) / Double(Self.melBands + 1)) }
        let binHertz = analysisRate / Double(length)
        let filters = (0..<Self.melBands).map { band -> (first: Int, weights: [Float]) in
            let (left, centre, right) = (edges[band], edges[band + 1], edges[band + 2])
            let first = max(1, Int(ceil(left / binHertz)))
            let last = min(length / 2, Int(floor(right / binHertz)))
            guard first <= last else { return (first: min(first, length / 2), weights: [1]) }
            let weights = (first...last).map { bin -> Float in
                let f = Double(bin) * binHertz
                return Float(f <= centre ? (f - left) / (centre - left) : (right - f) / (right - centre))
            }
            return (first: first, weights: weights)
        }
        filterFirstBin = filters.map(\.first)
        filterWeightStart = filters.reduce(into: [0]) { $0.append(($0.last ?? 0) + $1.weights.count) }
        filterWeights = filters.flatMap(\.weights)
        let c = FeatureMatrix.cepstra
        let m = Self.melBands
        dct = (0..<(c * m)).map { index in
            let k = index / m + 1
            let n = index % m
            return Float(cos(Double.pi * Double(k) * (Double(n) + 0.5) / Double(m)))
        }
    }

    mutating func reserve(hops: Int) { values.reserveCapacity(hops * FeatureMatrix.dimension) }

    /// Takes the samples just before the range measured: they only set the pre-emphasis.
    mutating func warmUp(_ samples: UnsafeBufferPointer<Float>) {
        if let last = samples.last { lastSample = last }
    }

    /// Takes mono samples; computes every frame whose window they complete.
    mutating func consume(_ samples: UnsafeBufferPointer<Float>) {
        guard let first = samples.first else { return }
        let start = pending.count
        let previous = lastSample
        pending.append(contentsOf: repeatElement(0, count: samples.count))
        // Pre-emphasis: each sample less 0.97 of the one before.
        pending.withUnsafeMutableBufferPointer { pending in
            let emphasised = pending.address + start
            emphasised[0] = first - 0.97 * previous
            for index in 1..<samples.count { emphasised[index] = samples[index] - 0.97 * samples[index - 1] }
        }
        lastSample = samples[samples.count - 1]
        framesConsumed += samples.count
        produceFrames(upTo: framesConsumed)
    }

    /// Computes the frames left, the last windows padded with silence.
    mutating func finish() -> [Float] {
        let hops = (framesConsumed + hopFrames - 1) / hopFrames
        let needed = (hops - 1) * hopFrames + span
        if needed > framesConsumed { pending.append(contentsOf: repeatElement(0, count: needed - framesConsumed)) }
        produceFrames(upTo: needed, hopLimit: hops)
        return values
    }

    private mutating func produceFrames(upTo available: Int, hopLimit: Int = .max) {
        while framesProduced < hopLimit, framesProduced * hopFrames + span <= available {
            let start = framesProduced * hopFrames - pendingStart
            computeFrame(at: start)
            framesProduced += 1
        }
        // Drop what no later window needs.
        let keepFrom = framesProduced * hopFrames - pendingStart
        if keepFrom > 65_536 {
            pending.removeFirst(keepFrom)
            pendingStart += keepFrom
        }
    }

    private mutating func computeFrame(at start: Int) {
        let windowLength = windowLength
        let step = step
        // The window is written straight into the transform's input.
        pending.withUnsafeBufferPointer { pending in
            window.withUnsafeBufferPointer { window in
                let samples = pending.address + start
                let window = window.address
                power.withUnsafeMutableBufferPointer { power in
                    transform.power(into: power) { input in
                        if step == 1 {
                            for index in 0..<windowLength { input[index] = samples[index] * window[index] }
                        } else {
                            let scale = 1 / Float(step)
                            for index in 0..<windowLength {
                                var sum: Float = 0
                                for offset in 0..<step { sum += samples[index &* step &+ offset] }
                                input[index] = sum * scale * window[index]
                            }
                        }
                        return windowLength
                    }
                }
            }
        }
        let c = FeatureMatrix.cepstra
        let m = Self.melBands
        let d = FeatureMatrix.dimension
        power.withUnsafeBufferPointer { power in
            filterWeights.withUnsafeBufferPointer { weights in
                filterFirstBin.withUnsafeBufferPointer { firstBins in
                    filterWeightStart.withUnsafeBufferPointer { starts in
                        melLog.withUnsafeMutableBufferPointer { melLog in
                            for band in 0..<m {
                                let from = starts[band]
                                let count = starts[band &+ 1] &- from
                                let bins = power.address + firstBins[band]
                                let weights = weights.address + from
                                var energy: Float = 0
                                for index in 0..<count { energy += weights[index] * bins[index] }
                                melLog[band] = log(energy + 1e-10)
                            }
                        }
                    }
                }
            }
        }
        // The cepstra, then room for the deltas (filled in by the normalisation).
        let at = values.count
        values.append(contentsOf: repeatElement(0, count: d))
        dct.withUnsafeBufferPointer { dct in
            melLog.withUnsafeBufferPointer { melLog in
                values.withUnsafeMutableBufferPointer { values in
                    for k in 0..<c {
                        let row = dct.address + k &* m
                        var sum: Float = 0
                        for n in 0..<m { sum += row[n] * melLog[n] }
                        values[at &+ k] = sum
                    }
                }
            }
        }
    }
}
