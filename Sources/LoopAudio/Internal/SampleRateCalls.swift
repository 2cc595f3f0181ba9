internal import CSampleRate
internal import CSampleRateLoader
import LoopAudioFiles
import LoopFoundation

/// Every libsamplerate call of the package goes through here.
enum SampleRate {
    /// Converts `frames` interleaved frames in one call (`src_simple`, best sinc quality);
    /// returns the frames written to `output`, or libsamplerate's reason.
    static func convert(
        _ input: UnsafeBufferPointer<Float>, frames: Int, into output: UnsafeMutableBufferPointer<Float>, capacity: Int,
        ratio: Double, channelCount: Int
    ) -> Result<Int, AudioError> {
        guard let inputBase = input.baseAddress, let outputBase = output.baseAddress else { return .success(0) }
        if let missing = loop_samplerate_load_error().map({ String(cString: $0) }) {
            return .failure(
                AudioError(.libraryMissing, path: nil, message: "cannot convert the sample rate: \(missing)"))
        }
        var data = SRC_DATA(
            data_in: inputBase, data_out: outputBase, input_frames: Int(frames), output_frames: Int(capacity),
            input_frames_used: 0, output_frames_gen: 0, end_of_input: 1, src_ratio: ratio)
        let status = src_simple(&data, Int32(SRC_SINC_BEST_QUALITY), Int32(channelCount))
        guard status == 0 else {
            return .failure(
                AudioError(
                    .invalidArgument, path: nil, message: "cannot convert the sample rate",
                    cause: String(cString: src_strerror(status))))
        }
        return .success(Int(data.output_frames_gen))
    }
}
