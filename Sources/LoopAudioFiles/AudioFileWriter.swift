import Foundation
import LoopFoundation

/// Writes an audio file atomically: frames go to a temporary file beside the destination, and
/// only ``commit()`` (flush, fsync, rename, directory fsync) puts it in place. A writer dropped
/// without committing removes its temporary file, so a failure never leaves a half-written file.
public struct AudioFileWriter: ~Copyable {
    /// Where the file will be once committed.
    public let path: String
    private let temporaryPath: String
    private var handle: SndFile.Handle?
    private let channelCount: Int

    /// Starts a file of `format` at `path` (WAV, FLAC and AIFF 16-bit; Ogg Vorbis, Opus, MP3).
    public init(path: String, format: AudioFileFormat, sampleRate: Int, channelCount: Int) throws(AudioError) {
        guard sampleRate > 0, channelCount > 0 else {
            throw AudioError(
                .invalidArgument, path: path,
                message: "cannot write audio with \(channelCount) channels at \(sampleRate) Hz")
        }
        // Refused before any audio is made, not after: only a regular file is ever replaced.
        do {
            try DurableFile.checkReplaceable(path)
        } catch let error as FileSystemError {
            throw AudioError(.writeFailed, path: path, message: error.message)
        } catch {
            throw AudioError(.writeFailed, path: path, message: "\(error)")
        }
        let temporaryPath = DurableFile.temporaryPath(besides: path)
        let handle: SndFile.Handle
        do {
            handle = try SndFile.openForWriting(
                path: temporaryPath, format: format, sampleRate: sampleRate, channelCount: channelCount)
        } catch {
            // Named as the person named it, never by the hidden temporary file beside it.
            throw AudioError(.writeFailed, path: path, message: DurableFile.whyNotCreatable(path), cause: "\(error)")
        }
        self.path = path
        self.channelCount = channelCount
        self.temporaryPath = temporaryPath
        self.handle = handle
    }

    deinit {
        if let handle {
            SndFile.close(handle)
            unlink(temporaryPath)
        }
    }

    /// Appends interleaved frames.
    public mutating func write(_ interleaved: UnsafeBufferPointer<Float>) throws(AudioError) {
        guard let handle, let base = interleaved.baseAddress else { return }
        let frames = interleaved.count / channelCount
        let written = SndFile.writeFrames(handle, base, frames: frames)
        if written != frames {
            let cause = SndFile.pendingError(handle) ?? "short write"
            throw AudioError(
                .writeFailed, path: path, message: "cannot write audio (\(cause)); is the disk full?", cause: cause)
        }
    }

    /// Appends interleaved frames from an array.
    public mutating func write(_ interleaved: [Float]) throws(AudioError) {
        try interleaved.withUnsafeBufferPointer { (buffer) throws(AudioError) in try write(buffer) }
    }

    /// Flushes, syncs and moves the file into place.
    public consuming func commit() throws(AudioError) {
        guard let open = handle else { return }
        SndFile.flush(open)
        SndFile.close(open)
        handle = nil
        do {
            try DurableFile.syncAndRename(temporaryPath, to: path)
        } catch {
            unlink(temporaryPath)
            throw AudioError(
                .writeFailed, path: path, message: "cannot put the file in place (\(error))", cause: "\(error)")
        }
    }
}
