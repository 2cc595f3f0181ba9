import LoopAudioFiles
import LoopFoundation

/// Converts audio from one sample rate to another (libsamplerate, its best sinc converter):
/// clips of a take recorded at another rate than the session's, made to play in it.
public struct Resampler: Sendable {
    /// The rate audio comes in at, in hertz.
    public let inputRate: Int
    /// The rate it goes out at, in hertz.
    public let outputRate: Int
    /// The audio's channel count.
    public let channelCount: Int

    /// A resampler from `inputRate` to `outputRate`; fails on a rate of 0 or below.
    public init(from inputRate: Int, to outputRate: Int, channelCount: Int) throws(AudioError) {
        guard inputRate > 0, outputRate > 0, channelCount > 0, Double(outputRate) / Double(inputRate) <= 256,
            Double(inputRate) / Double(outputRate) <= 256
        else {
            throw AudioError(.invalidArgument, path: nil, message: "cannot convert \(inputRate) Hz to \(outputRate) Hz")
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channelCount = channelCount
    }

    /// A whole clip (interleaved) at the output rate: as many frames as its length there.
    public func process(_ interleaved: [Float]) throws(AudioError) -> [Float] {
        guard inputRate != outputRate else { return interleaved }
        let frames = interleaved.count / channelCount
        let ratio = Double(outputRate) / Double(inputRate)
        let expected = Int((Double(frames) * ratio).rounded())
        let capacity = expected + 64
        var output = [Float](repeating: 0, count: capacity * channelCount)
        let converted = interleaved.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { buffer in
                SampleRate.convert(
                    input, frames: frames, into: buffer, capacity: capacity, ratio: ratio, channelCount: channelCount)
            }
        }
        let written = try converted.get()
        output.removeLast(output.count - min(written, expected) * channelCount)
        return output
    }
}
