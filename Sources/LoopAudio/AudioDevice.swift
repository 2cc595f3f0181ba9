import Foundation
import LoopAudioFiles
import LoopFoundation

/// A sound card output through ALSA: interleaved float frames in, sound out.
///
/// Writes block until the device has room, so the device paces whoever writes. ``stop()``
/// discards what is queued at once, which is how a key press reaches the speaker quickly.
public final class AudioDevice {
    /// The ALSA device's name.
    public let name: String
    /// The playback's sample rate in hertz.
    public let sampleRate: Int
    /// The playback's channel count.
    public let channelCount: Int
    /// Frames ALSA buffers: the most that can be queued ahead of the speaker.
    public let bufferFrames: Int
    /// Frames per period: a good size for each write.
    public let periodFrames: Int
    private let pcm: ALSA.PCM

    /// Opens `name` (`default`, `hw:0`, `plughw:1,0`, `file:FILE=out.raw,FORMAT=raw`, ...) at the
    /// given format; ALSA converts to the card's own rate where it must. `latency` is the
    /// buffer length asked for: short enough for keys to feel immediate, long enough not to
    /// run dry.
    public init(name: String = "default", sampleRate: Int, channelCount: Int, latency: Duration = .milliseconds(40))
        throws(AudioError)
    {
        let (pcm, negotiated) = try ALSA.openPlayback(
            device: name, sampleRate: sampleRate, channelCount: channelCount, latency: latency)
        self.name = name
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.pcm = pcm
        self.bufferFrames = negotiated.bufferFrames
        self.periodFrames = negotiated.periodFrames
    }

    deinit { ALSA.close(pcm) }

    /// Queues interleaved frames, waiting for room; recovers from underruns.
    public func write(_ interleaved: UnsafeBufferPointer<Float>) throws(AudioError) {
        try ALSA.write(pcm, interleaved, channelCount: channelCount)
    }

    /// Discards everything queued, at once.
    public func stop() { ALSA.drop(pcm) }

    /// Waits until everything queued has been heard.
    public func drain() { ALSA.drain(pcm) }

    /// Frames queued but not yet heard.
    public var queuedFrames: Int { ALSA.delay(pcm) }
}

/// Changes the speed of audio without changing its pitch (SoundTouch's time-stretch). A change
/// of sample rate alone is the ``Resampler``'s.
public final class TimeStretcher {
    /// How much faster than recorded it plays (0.8: slower).
    public let speed: Double
    /// The audio's channel count.
    public let channelCount: Int
    private let instance: SoundTouch.Instance

    /// `speed` from 0.5 (half speed) to 1.5.
    public init(sampleRate: Int, channelCount: Int, speed: Double) throws(AudioError) {
        guard (0.25...4).contains(speed), sampleRate > 0 else {
            throw AudioError(.invalidArgument, path: nil, message: "cannot play at speed \(speed)")
        }
        if let missing = SoundTouch.loadError {
            throw AudioError(.libraryMissing, path: nil, message: "cannot play at speed \(speed): \(missing)")
        }
        guard
            let instance = SoundTouch.create(sampleRate: sampleRate, channelCount: channelCount, tempo: speed, rate: 1)
        else {
            throw AudioError(.invalidArgument, path: nil, message: "cannot play at speed \(speed)")
        }
        self.speed = speed
        self.channelCount = channelCount
        self.instance = instance
    }

    deinit { SoundTouch.destroy(instance) }

    /// Stretches a whole clip (interleaved) and returns it, the stretcher's tail included.
    public func process(_ interleaved: [Float]) -> [Float] {
        SoundTouch.clear(instance)
        let frames = interleaved.count / channelCount
        interleaved.withUnsafeBufferPointer { SoundTouch.put(instance, $0, frames: frames) }
        SoundTouch.flush(instance)
        var output: [Float] = []
        output.reserveCapacity(Int(Double(interleaved.count) / speed) + 8_192)
        var chunk = [Float](repeating: 0, count: 4_096 * channelCount)
        while true {
            let received = chunk.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { SoundTouch.receive(instance, into: $0, maxFrames: 4_096) } ?? 0
            }
            if received == 0 { break }
            output.append(contentsOf: chunk[0..<(received * channelCount)])
        }
        // SoundTouch's flush pads with silence beyond the stretched length: trim to it.
        let expected = Int((Double(frames) / speed).rounded()) * channelCount
        if output.count > expected { output.removeLast(output.count - expected) }
        return output
    }
}

extension AudioDevice {
    /// Opens `name` as ``init(name:sampleRate:channelCount:latency:)`` does, on a thread of its
    /// own, and gives up after `limit`: opening ALSA's `file` plugin on a FIFO nobody reads, or a
    /// hung driver, never returns (the thread is left behind; a device it opens late is closed).
    public static func open(
        name: String, sampleRate: Int, channelCount: Int, latency: Duration = .milliseconds(40),
        within limit: Duration = CaptureFeed.defaultStallLimit
    ) throws(AudioError) -> AudioDevice {
        let opening = Opening()
        let thread = Thread {
            opening.finish { () throws(AudioError) -> AudioDevice in
                try AudioDevice(name: name, sampleRate: sampleRate, channelCount: channelCount, latency: latency)
            }
        }
        thread.name = "loop playback open"
        thread.start()
        guard let opened = opening.wait(until: Date(timeIntervalSinceNow: limit / .seconds(1))) else {
            let seconds = Int((limit / .seconds(1)).rounded())
            throw AudioError(
                .noPlaybackDevice, path: nil,
                message:
                    "the sound device '\(name)' did not open within \(seconds) s: check that it is connected and not held by another program"
            )
        }
        return try opened.get()
    }

    /// A device being opened on another thread, and whether anyone still waits for it.
    private final class Opening: @unchecked Sendable {
        // Guarded by `condition`.
        private var result: Result<AudioDevice, AudioError>?
        private var abandoned = false
        private let condition = NSCondition()

        func finish(_ open: () throws(AudioError) -> AudioDevice) {
            let opened: Result<AudioDevice, AudioError>
            do throws(AudioError) { opened = .success(try open()) } catch { opened = .failure(error) }
            condition.lock()
            // Nobody waits: the device goes (and closes) with this thread.
            if !abandoned { result = opened }
            condition.broadcast()
            condition.unlock()
        }

        /// The device or why it could not be opened; nil when `deadline` passed first.
        func wait(until deadline: Date) -> Result<AudioDevice, AudioError>? {
            condition.lock()
            defer { condition.unlock() }
            while result == nil, condition.wait(until: deadline) {}
            defer { (abandoned, result) = (result == nil, nil) }
            return result
        }
    }
}
