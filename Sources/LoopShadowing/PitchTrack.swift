internal import CAubio
internal import CAubioLoader
import Foundation
import LoopAudioFiles
import LoopFoundation

/// A recording's pitch every 10 ms, by aubio's YIN: every aubio call of the package goes
/// through here.
public struct PitchTrack: Sendable {
    /// Per 10 ms frame: the fundamental in Hz, or nil where the voice is not clearly voiced.
    public var hertz: [Float?]

    /// The lowest and highest pitch a speaking voice is taken to have.
    static let range: ClosedRange<Float> = 60...500
    /// YIN's confidence (one less its dip) a voiced frame reaches.
    static let leastConfidence: Float = 0.8

    /// Tracks mono `samples` at `sampleRate`.
    public init(samples: [Float], sampleRate: Int) throws(AudioError) {
        if let missing = loop_aubio_load_error().map({ String(cString: $0) }) {
            throw AudioError(.libraryMissing, path: nil, message: "cannot measure pitch: \(missing)")
        }
        let hop = max(1, Int((Double(sampleRate) / 100).rounded()))
        // A window of at least 40 ms: two periods of the lowest voice.
        var window = 256
        while Double(window) < Double(sampleRate) * 0.04 { window *= 2 }
        guard let pitch = new_aubio_pitch("yinfast", UInt32(window), UInt32(hop), UInt32(sampleRate)) else {
            throw AudioError(.invalidArgument, path: nil, message: "aubio cannot track pitch at \(sampleRate) Hz")
        }
        defer { del_aubio_pitch(pitch) }
        _ = aubio_pitch_set_unit(pitch, "Hz")
        _ = aubio_pitch_set_silence(pitch, -60)
        guard let input = new_fvec(UInt32(hop)), let output = new_fvec(1) else {
            throw AudioError(.invalidArgument, path: nil, message: "aubio cannot allocate its buffers")
        }
        defer {
            del_fvec(input)
            del_fvec(output)
        }
        var values: [Float?] = []
        values.reserveCapacity(samples.count / hop + 1)
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + hop)
            for index in 0..<hop { input.pointee.data[index] = start + index < end ? samples[start + index] : 0 }
            aubio_pitch_do(pitch, input, output)
            let frequency = output.pointee.data[0]
            let confidence = aubio_pitch_get_confidence(pitch)
            values.append(confidence >= Self.leastConfidence && Self.range.contains(frequency) ? frequency : nil)
            start += hop
        }
        // aubio reports each hop's pitch for the window ending there: half a window late.
        let delay = min(values.count, (window / 2) / hop)
        hertz = Array(values.dropFirst(delay)) + [Float?](repeating: nil, count: delay)
    }

    /// Each voiced frame in semitones from the recording's median pitch (the speaker's own
    /// middle), so that voices high and low compare.
    public var semitones: [Float?] {
        let voiced = hertz.compactMap { $0 }.sorted()
        guard !voiced.isEmpty else { return hertz.map { _ in nil } }
        let median = voiced[voiced.count / 2]
        return hertz.map { $0.map { 12 * log2($0 / median) } }
    }
}
