import LoopAudio
import LoopAudioFiles
import LoopFoundation

/// A recording read whole as mono samples (the mean of its channels).
public struct MonoAudio: Sendable {
    /// The samples, mono.
    public var samples: [Float]
    /// Their sample rate in hertz.
    public var sampleRate: Int

    /// Audio from its samples.
    public init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// Reads the audio at `path` (a model clip, or an attempt: any file libsndfile reads, or
    /// whose audio FFmpeg's libraries decode, as a phone's m4a memo), refusing one longer than
    /// `longest` seconds.
    public init(path: String, longest: Double = 60) throws {
        let input = try MediaInput.open(path)
        var reader = try AudioFileReader(path: input.path)
        let info = reader.info
        let limit = Int(longest * Double(info.sampleRate))
        if info.frameCount > limit {
            throw AudioError(
                .invalidArgument, path: path,
                message: "it is longer than \(Int(longest)) s: a phrase and its attempt are a few seconds")
        }
        var samples: [Float] = []
        try reader.forEachMonoBlock(limit: limit + 1) { samples.append(contentsOf: $0) }
        if samples.count > limit {
            throw AudioError(
                .invalidArgument, path: path,
                message: "it is longer than \(Int(longest)) s: a phrase and its attempt are a few seconds")
        }
        self.init(samples: samples, sampleRate: info.sampleRate)
    }
}
