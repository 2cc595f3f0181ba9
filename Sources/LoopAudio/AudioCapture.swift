import LoopAudioFiles

/// A microphone through ALSA: interleaved float frames, as they arrive.
public final class AudioCapture {
    /// The ALSA device's name.
    public let name: String
    /// The capture's sample rate in hertz.
    public let sampleRate: Int
    /// The capture's channel count.
    public let channelCount: Int
    /// Frames per period: the size of each read.
    public let periodFrames: Int
    /// Overruns so far: times the reader fell behind and the device dropped audio.
    public private(set) var overruns = 0
    private let pcm: ALSA.PCM

    /// Opens `name` (`default`, `hw:1`, `plughw:1,0`, ...) for capture at the given format.
    public init(
        name: String = "default", sampleRate: Int = 48_000, channelCount: Int = 1, latency: Duration = .milliseconds(50)
    ) throws(AudioError) {
        let (pcm, negotiated) = try ALSA.openCapture(
            device: name, sampleRate: sampleRate, channelCount: channelCount, latency: latency)
        self.name = name
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.pcm = pcm
        self.periodFrames = negotiated.periodFrames
    }

    deinit { ALSA.close(pcm) }

    /// Reads the next frames (at most one period), waiting for them; recovers from overruns
    /// and counts them.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var overrun = false
        let frames = try ALSA.read(
            pcm, into: base, frames: min(buffer.count / channelCount, periodFrames), overrun: &overrun)
        if overrun { overruns += 1 }
        return frames
    }
}
