import Foundation
import LoopAudioFiles
import Synchronization

/// The loudness of a take in the speech band, one value every 10 ms.
///
/// Built in one streaming pass: the audio is mixed to mono, band-limited to the speech band
/// (a high-pass removes DC offset, hum and rumble; a low-pass at 7 kHz, where the rate carries
/// more, removes hiss above the voice but keeps the fricatives, whose energy lies at 4-7 kHz),
/// and the mean power of each hop is kept in dB. An hour of audio is 360,000 values.
public struct EnergyEnvelope: Sendable {
    /// Audio frames per hop.
    public let hopFrames: Int
    /// The take's sample rate in hertz.
    public let sampleRate: Int
    /// The take's channel count.
    public let channelCount: Int
    /// Audio frames in the take.
    public let frameCount: Int
    /// Power of each hop in dB relative to full scale (floored at -120).
    public let levels: [Float]

    /// An envelope from its figures.
    public init(hopFrames: Int, sampleRate: Int, channelCount: Int, frameCount: Int, levels: [Float]) {
        self.hopFrames = hopFrames
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.levels = levels
    }

    /// The hop length in seconds.
    public var hopDuration: Double { Double(hopFrames) / Double(sampleRate) }

    /// The take's length in seconds, as read (not as its header says).
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// The first audio frame of hop `index`.
    public func frame(ofHop index: Int) -> Int { min(index * hopFrames, frameCount) }

    /// Reads the whole file behind `reader` and measures it. `progress` is called with the share
    /// done (0...1) every few seconds of audio.
    public static func measure(
        _ reader: inout AudioFileReader, progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> EnergyEnvelope {
        let sampleRate = reader.info.sampleRate
        let hop = hopFrames(sampleRate: sampleRate)
        let (frames, levels) = try TakeReading.read(
            &reader, meter: SpeechBandMeter(sampleRate: sampleRate, hopFrames: hop), progress: progress)
        return EnergyEnvelope(
            hopFrames: hop, sampleRate: sampleRate, channelCount: reader.info.channelCount, frameCount: frames,
            levels: levels)
    }

    /// Opens and measures the file at `path`.
    ///
    /// A long take in a format that seeks exactly (WAV, FLAC, AIFF) is measured in `parallelism`
    /// ranges at once, each on its own thread and file handle; each range first runs its
    /// filters over the 50 ms before it, so the joined envelope matches a single pass.
    public static func measure(
        path: String, parallelism: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> EnergyEnvelope {
        let (info, frames, parts) = try TakeReading.read(path: path, parallelism: parallelism, progress: progress) {
            info in
            SpeechBandMeter(sampleRate: info.sampleRate, hopFrames: hopFrames(sampleRate: info.sampleRate))
        }
        return EnergyEnvelope(
            hopFrames: hopFrames(sampleRate: info.sampleRate), sampleRate: info.sampleRate,
            channelCount: info.channelCount,
            frameCount: frames, levels: parts.flatMap { $0 })
    }

    /// Audio frames per 10 ms hop.
    static func hopFrames(sampleRate: Int) -> Int { max(1, Int((Double(sampleRate) / 100).rounded())) }
}

/// A streaming speech-band power meter: two biquads and a running sum per hop.
struct SpeechBandMeter: TakeMeter {
    private var highPass: Biquad
    private var lowPass: Biquad?
    private let hopFrames: Int
    private var accumulated: Float = 0
    private var inHop = 0
    private var levels: [Float] = []
    private(set) var framesConsumed = 0

    /// The levels of the hops completed so far.
    var completedLevels: [Float] { levels }

    init(sampleRate: Int, hopFrames: Int) {
        self.hopFrames = hopFrames
        highPass = Biquad.highPass(cutoff: 150, sampleRate: Double(sampleRate))
        let nyquist = Double(sampleRate) / 2
        // Up to 7 kHz, wideband speech: a final "s" or "ch" is mostly above 4 kHz, and under
        // low-frequency noise it is all that shows of a word's end. A 16 kHz take is kept whole.
        lowPass = nyquist > 8_000 ? Biquad.lowPass(cutoff: 7_000, sampleRate: Double(sampleRate)) : nil
    }

    mutating func reserve(hops: Int) { levels.reserveCapacity(hops) }

    /// Runs the filters over audio just before the range to measure, without measuring it.
    mutating func warmUp(_ samples: UnsafeBufferPointer<Float>) {
        for sample in samples {
            let y = highPass.process(sample)
            _ = lowPass?.process(y)
        }
    }

    mutating func consume(_ samples: UnsafeBufferPointer<Float>) {
        framesConsumed += samples.count
        var index = 0
        while index < samples.count {
            let take = min(hopFrames - inHop, samples.count - index)
            var sum: Float = 0
            if var low = lowPass {
                var high = highPass
                for k in index..<(index + take) {
                    let y = low.process(high.process(samples[k]))
                    sum += y * y
                }
                highPass = high
                lowPass = low
            } else {
                var high = highPass
                for k in index..<(index + take) {
                    let y = high.process(samples[k])
                    sum += y * y
                }
                highPass = high
            }
            accumulated += sum
            inHop += take
            index += take
            if inHop == hopFrames { closeHop() }
        }
    }

    mutating func finish() -> [Float] {
        if inHop > 0 { closeHop() }
        return levels
    }

    private mutating func closeHop() {
        let power = accumulated / Float(inHop)
        levels.append(power > 1e-12 ? 10 * log10(power) : -120)
        accumulated = 0
        inHop = 0
    }
}

/// A second-order IIR filter (transposed direct form II), after the RBJ audio EQ cookbook.
struct Biquad {
    private let b0, b1, b2, a1, a2: Float
    private var z1: Float = 0, z2: Float = 0

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = Float(b0 / a0)
        self.b1 = Float(b1 / a0)
        self.b2 = Float(b2 / a0)
        self.a1 = Float(a1 / a0)
        self.a2 = Float(a2 / a0)
    }

    static func highPass(cutoff: Double, sampleRate: Double, q: Double = 0.7071) -> Biquad {
        let w = 2 * Double.pi * cutoff / sampleRate
        let alpha = sin(w) / (2 * q)
        let c = cos(w)
        return Biquad(b0: (1 + c) / 2, b1: -(1 + c), b2: (1 + c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    static func lowPass(cutoff: Double, sampleRate: Double, q: Double = 0.7071) -> Biquad {
        let w = 2 * Double.pi * cutoff / sampleRate
        let alpha = sin(w) / (2 * q)
        let c = cos(w)
        return Biquad(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    /// Transposed direct form II. The terms that do not wait for `y` are added first, so each
    /// sample waits on the one before through a multiplication and two additions, not three.
    @inline(__always)
    mutating func process(_ x: Float) -> Float {
        let y = b0 * x + z1
        z1 = (b1 * x + z2) - a1 * y
        z2 = b2 * x - a2 * y
        return y
    }
}

/// The speech-band level of audio arriving in blocks: one dB value per 10 ms hop, as soon as
/// each hop is complete (the live form of ``EnergyEnvelope``).
public struct StreamingEnvelope: Sendable {
    private var meter: SpeechBandMeter
    private var delivered = 0
    /// Audio frames per hop (10 ms).
    public let hopFrames: Int

    /// A meter for audio at `sampleRate`.
    public init(sampleRate: Int) {
        hopFrames = EnergyEnvelope.hopFrames(sampleRate: sampleRate)
        meter = SpeechBandMeter(sampleRate: sampleRate, hopFrames: hopFrames)
    }

    /// Takes mono samples; returns the levels of the hops they completed.
    public mutating func consume(_ mono: UnsafeBufferPointer<Float>) -> [Float] {
        meter.consume(mono)
        let levels = meter.completedLevels
        defer { delivered = levels.count }
        return Array(levels[delivered...])
    }
}
