import Foundation
import LoopAudio
import LoopAudioFiles
import LoopFoundation

/// Where a study session's sound goes.
public protocol StudyOutput: AnyObject {
    var sampleRate: Int { get }
    var channelCount: Int { get }
    /// Queues interleaved frames.
    func write(_ interleaved: UnsafeBufferPointer<Float>) throws
    /// Discards what is queued but not yet heard, at once.
    func stop()
    /// The session is over: let the last sound play out, or close the file.
    func finish() throws
}

/// A sound card, through ALSA.
public final class DeviceOutput: StudyOutput {
    /// The ALSA playback device.
    public let device: AudioDevice
    /// The device's sample rate in hertz.
    public var sampleRate: Int { device.sampleRate }
    /// The device's channel count.
    public var channelCount: Int { device.channelCount }

    /// Opens ALSA's playback device `name` in this format, `latency` of sound queued ahead.
    public init(device name: String, sampleRate: Int, channelCount: Int, latency: Duration = .milliseconds(40)) throws {
        device = try AudioDevice.open(name: name, sampleRate: sampleRate, channelCount: channelCount, latency: latency)
    }

    /// Queues frames on the device.
    public func write(_ interleaved: UnsafeBufferPointer<Float>) throws { try device.write(interleaved) }
    /// Drops what the device has queued.
    public func stop() { device.stop() }
    /// Waits until the device has played what is queued.
    public func finish() throws { device.drain() }
}

/// An audio file (WAV, FLAC, Ogg Vorbis, Opus, MP3 or AIFF, as its extension says): a study
/// track to take along. It appears only when the session completes.
public final class FileOutput: StudyOutput {
    /// The file's sample rate in hertz.
    public let sampleRate: Int
    /// The file's channel count.
    public let channelCount: Int
    private var writer: AudioFileWriter?

    /// A file to write at `path`, in the format its extension names.
    public init(path: String, sampleRate: Int, channelCount: Int) throws {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        guard let format = AudioFileFormat(pathExtension: path) else {
            // A path that is no file to write at all (a folder, a FIFO, a link) says so first.
            do {
                try DurableFile.checkReplaceable(path)
            } catch let error as FileSystemError {
                throw AudioError(.writeFailed, path: path, message: error.message)
            }
            throw AudioError(
                .invalidArgument, path: path,
                message:
                    "the file name does not say which audio format to write: end it in .wav, .flac, .ogg, .opus, .mp3 or .aiff"
            )
        }
        writer = try AudioFileWriter(path: path, format: format, sampleRate: sampleRate, channelCount: channelCount)
    }

    /// Appends frames to the file.
    public func write(_ interleaved: UnsafeBufferPointer<Float>) throws { try writer?.write(interleaved) }
    /// Nothing: a file has nothing queued to drop.
    public func stop() {}
    /// Finishes the file and puts it in place.
    public func finish() throws {
        if let open = writer.take() { try open.commit() }
    }
}

/// Nowhere: for trying a session out, and for tests.
public final class NullOutput: StudyOutput {
    /// The sample rate it pretends to play at.
    public let sampleRate: Int
    /// The channel count it pretends to play.
    public let channelCount: Int
    /// Frames it was given so far.
    public private(set) var framesWritten = 0

    /// An output that plays nothing in this format.
    public init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// Counts the frames.
    public func write(_ interleaved: UnsafeBufferPointer<Float>) throws {
        framesWritten += interleaved.count / channelCount
    }
    /// Nothing.
    public func stop() {}
    /// Nothing.
    public func finish() throws {}
}
