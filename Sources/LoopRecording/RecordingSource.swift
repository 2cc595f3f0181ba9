import Foundation
import LoopAudio
import LoopAudioFiles

/// Where recorded audio comes from: a microphone, or a file replayed as if it were one.
public protocol RecordingSource: AnyObject {
    var sampleRate: Int { get }
    var channelCount: Int { get }
    /// Times audio was lost because the reader fell behind.
    var overruns: Int { get }
    /// The next interleaved frames; 0 at the end of the input.
    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int
}

/// A sound card's input, through ALSA, read on a thread of its own: a device that delivers
/// nothing for ``CaptureFeed/defaultStallLimit`` fails the read with a line that says so.
public final class CaptureSource: RecordingSource {
    /// The capture, as it is read.
    public let feed: CaptureFeed
    /// The capture's sample rate in hertz.
    public var sampleRate: Int { feed.sampleRate }
    /// The capture's channel count.
    public var channelCount: Int { feed.channelCount }
    /// Times audio was lost because the reader fell behind.
    public var overruns: Int { feed.overruns }

    /// Opens ALSA's capture `device` (`default`, `hw:1`...), waiting until it is open.
    public init(device: String, sampleRate: Int = 48_000, channelCount: Int = 1) throws {
        feed = CaptureFeed(name: device, sampleRate: sampleRate, channelCount: channelCount)
        do { try feed.waitUntilOpen() } catch {
            _ = feed.stop()
            throw error
        }
    }

    deinit { _ = feed.stop() }

    /// The next interleaved frames from the card.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int { try feed.read(into: buffer) }
}

/// A recording replayed through the live pipeline, at real speed (as a microphone would
/// deliver it) or as fast as it decodes.
public final class FileSource: RecordingSource {
    /// The file's sample rate in hertz.
    public let sampleRate: Int
    /// The file's channel count.
    public let channelCount: Int
    /// None: a file never falls behind.
    public let overruns = 0
    private var reader: AudioFileReader
    private let realTime: Bool
    private let started = ContinuousClock.now
    private var delivered = 0

    /// Opens the recording at `path`; `realTime` delivers it no faster than it plays.
    public init(path: String, realTime: Bool) throws {
        let reader = try AudioFileReader(path: path)
        sampleRate = reader.info.sampleRate
        channelCount = reader.info.channelCount
        self.reader = reader
        self.realTime = realTime
    }

    /// The next interleaved frames, ten milliseconds at most.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        // Ten milliseconds at a time, as a capture period would be.
        let frames = min(buffer.count / channelCount, max(1, sampleRate / 100))
        let count = try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(frames * channelCount)]))
        delivered += count
        if realTime {
            let due = Duration.microseconds(Int64(delivered) * 1_000_000 / Int64(sampleRate))
            let ahead = due - (ContinuousClock.now - started)
            if ahead > .zero { Thread.sleep(forTimeInterval: ahead / .seconds(1)) }
        }
        return count
    }
}
