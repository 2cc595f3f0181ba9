internal import CFFmpeg
internal import CFFmpegLoader
import LoopAudioFiles
import LoopFoundation

/// A real-input FFT of a fixed power-of-two length: FFmpeg's `av_tx` (libavutil, opened on
/// first use with the rest of FFmpeg). The cutter measures speech with it.
public final class SpectrumTransform {
    /// The transform's length, in samples.
    public let length: Int
    private var context: OpaquePointer?
    private let transform: av_tx_fn
    private var input: UnsafeMutableBufferPointer<Float>
    private var output: UnsafeMutableBufferPointer<AVComplexFloat>

    /// A transform of `length` samples (a power of two); throws `.libraryMissing` when
    /// FFmpeg's libavutil cannot be opened or refuses the length.
    public init(length: Int) throws(AudioError) {
        self.length = length
        var context: OpaquePointer?
        var function: av_tx_fn?
        var scale: Float = 1
        // No flags: the buffers below are aligned. Told they may not be (AV_TX_UNALIGNED),
        // FFmpeg 5.1 leaves out its SIMD transforms and takes twice as long.
        let status = av_tx_init(&context, &function, AV_TX_FLOAT_RDFT, 0, Int32(length), &scale, 0)
        guard status >= 0, let context, let function else {
            let reason =
                loop_ffmpeg_transforms_load_error().map { String(cString: $0) }
                ?? "FFmpeg's av_tx refused a transform of \(length)"
            throw AudioError(.libraryMissing, reason)
        }
        self.context = context
        transform = function
        // Aligned for the transform's vector instructions.
        input = UnsafeMutableRawPointer.allocate(byteCount: (length + 16) * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: length + 16).asBuffer(count: length + 16)
        input.initialize(repeating: 0)
        output = UnsafeMutableRawPointer.allocate(
            byteCount: (length / 2 + 16) * MemoryLayout<AVComplexFloat>.stride, alignment: 64
        )
        .bindMemory(to: AVComplexFloat.self, capacity: length / 2 + 16).asBuffer(count: length / 2 + 16)
        output.initialize(repeating: AVComplexFloat(re: 0, im: 0))
    }

    deinit {
        av_tx_uninit(&context)
        input.deallocate()
        output.deallocate()
    }

    /// The power of each bin (`length / 2 + 1` of them) of the samples `fill` writes into the
    /// transform's input (it returns how many it wrote, at most `length`; the rest are zero),
    /// written into `power`.
    public func power(
        into power: UnsafeMutableBufferPointer<Float>, fill: (UnsafeMutablePointer<Float>) -> Int
    ) {
        let count = min(fill(input.address), length)
        for index in count..<length { input[index] = 0 }
        transform(context, output.baseAddress, input.baseAddress, MemoryLayout<Float>.stride)
        let bins = output.address
        let power = power.address
        for bin in 0...(length / 2) {
            let value = bins[bin]
            power[bin] = value.re * value.re + value.im * value.im
        }
    }
}

extension UnsafeMutablePointer {
    fileprivate func asBuffer(count: Int) -> UnsafeMutableBufferPointer<Pointee> {
        UnsafeMutableBufferPointer(start: self, count: count)
    }
}
