import Foundation
import LoopFoundation
import Synchronization

/// Reads an audio file of any format the system's libsndfile decodes, block by block.
///
/// Blocks are read in order, so an hour of audio never has to sit in memory. The reader closes
/// its file when it goes out of scope.
public struct AudioFileReader: ~Copyable {
    /// The path as given.
    public let path: String
    /// Rate, channels, format and the announced length.
    public let info: AudioFileInfo
    private let handle: SndFile.Handle
    private var framesRead = 0
    /// Whether the samples are floating point, and so must be checked for values no audio has.
    private let holdsFloats: Bool

    /// The largest magnitude a floating-point sample may have: audio runs from -1 to 1, and a
    /// hot recording goes a little past it; NaN, infinities and 3.4e38 are not audio.
    static let largestSample: Float = 1_000

    /// Opens `path` for reading; throws an ``AudioError`` naming the file when it cannot be decoded.
    public init(path: String) throws(AudioError) {
        if let problem = RegularFile.problem(at: path) {
            throw AudioError(problem == "no such file" ? .fileNotFound : .notReadable, path: path, message: problem)
        }
        let opened = try SndFile.openForReading(path: path)
        // What a header declares is checked before anything is sized by it.
        if let refusal = Self.sampleRateRefusal(opened.info.sampleRate, path: path) {
            SndFile.close(opened.handle)
            throw refusal
        }
        self.path = path
        self.info = opened.info
        self.handle = opened.handle
        self.holdsFloats = opened.holdsFloats
    }

    deinit {
        SndFile.close(handle)
    }

    /// The sample rates loop reads (Hz).
    public static let sampleRates = 4_000...768_000

    /// Why `path`, declaring `sampleRate`, is not read; nil when the rate is one of ``sampleRates``.
    public static func sampleRateRefusal(_ sampleRate: Int, path: String) -> AudioError? {
        guard !sampleRates.contains(sampleRate) else { return nil }
        return AudioError(
            .unsupportedFormat, path: path,
            message:
                "it declares a sample rate of \(sampleRate) Hz: audio runs at 4,000 to 768,000 Hz (is the file damaged?)"
        )
    }

    /// Frames read so far.
    public var position: Int { framesRead }

    /// Whether ``seek(toFrame:)`` lands exactly on a frame (lossless formats).
    public var seeksExactly: Bool { info.format.isLossless }

    /// Moves the read position to `frame`.
    public mutating func seek(toFrame frame: Int) throws(AudioError) {
        guard SndFile.seek(handle, toFrame: frame) else {
            // Within what the header announces, a place that cannot be reached means the file
            // holds less than it says (a FLAC that announces 10 hours and holds 10 seconds).
            guard frame < info.frameCount else {
                throw AudioError(.decodeFailed, path: path, message: "cannot seek to frame \(frame)")
            }
            throw AudioError(
                .truncated, path: path,
                message:
                    "the file is truncated or damaged: it announces \(formatSeconds(info.frameCount)) of audio but cannot be read at \(formatSeconds(frame))"
            )
        }
        framesRead = frame
    }

    /// Reads up to `buffer.count / channelCount` interleaved frames into `buffer`.
    ///
    /// Returns the number of frames read; 0 means the end of the file. A file that stops before
    /// the length it announces, or whose data cannot be decoded, throws ``AudioError``.
    public mutating func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioError) -> Int {
        let capacity = buffer.count / info.channelCount
        guard capacity > 0, let base = buffer.baseAddress else { return 0 }
        let count = SndFile.readFrames(handle, into: base, frames: capacity)
        if count > 0 {
            if holdsFloats,
                let bad = (0..<(count * info.channelCount)).first(where: { !(abs(base[$0]) <= Self.largestSample) })
            {
                let value = base[bad]
                let what = value.isNaN ? "NaN" : value.isInfinite ? "infinite" : "\(value)"
                throw AudioError(
                    .decodeFailed, path: path,
                    message:
                        "its samples are not valid audio: one at \(formatSeconds(framesRead + bad / info.channelCount)) is \(what) (audio runs from -1 to 1)"
                )
            }
            framesRead += count
            return count
        }
        if let cause = SndFile.pendingError(handle) {
            throw AudioError(
                .decodeFailed, path: path,
                message: "the audio data is damaged after \(formatSeconds(framesRead)) (\(cause))", cause: cause)
        }
        if info.format.isLossless, info.frameCount > 0, framesRead < info.frameCount {
            throw AudioError(
                .truncated, path: path,
                message:
                    "the file is truncated: it announces \(formatSeconds(info.frameCount)) of audio but ends after \(formatSeconds(framesRead))"
            )
        }
        return 0
    }

    /// Calls `body` with consecutive blocks of interleaved frames (`blockFrames` frames at most
    /// each) until the end of the file, or until `limit` frames have been read.
    public mutating func forEachBlock(
        blockFrames: Int = 16_384, limit: Int = .max,
        _ body: (_ interleaved: UnsafeBufferPointer<Float>, _ frames: Int) throws -> Void
    ) throws {
        let channels = info.channelCount
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames * channels)
        defer { buffer.deallocate() }
        var remaining = limit
        while remaining > 0 {
            let wanted = min(blockFrames, remaining)
            let frames = try read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(wanted * channels)]))
            if frames == 0 { break }
            remaining -= frames
            try body(UnsafeBufferPointer(rebasing: buffer[0..<(frames * channels)]), frames)
        }
    }

    /// Calls `body` with consecutive blocks of mono samples (the mean of all channels), until
    /// the end of the file or `limit` frames.
    public mutating func forEachMonoBlock(
        blockFrames: Int = 16_384, limit: Int = .max,
        _ body: (_ mono: UnsafeBufferPointer<Float>) throws -> Void
    ) throws {
        let channels = info.channelCount
        if channels == 1 {
            try forEachBlock(blockFrames: blockFrames, limit: limit) { interleaved, _ in try body(interleaved) }
            return
        }
        let mono = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames)
        defer { mono.deallocate() }
        let scale = 1 / Float(channels)
        try forEachBlock(blockFrames: blockFrames, limit: limit) { interleaved, frames in
            AudioDownmix.mean(interleaved, channels: channels, frames: frames, scale: scale, into: mono)
            try body(UnsafeBufferPointer(rebasing: mono[0..<frames]))
        }
    }

    private func formatSeconds(_ frames: Int) -> String {
        let seconds = Double(frames) / Double(info.sampleRate)
        return String(format: "%.2f s", seconds)
    }
}

extension AudioFileFormat {
    /// Formats whose announced length is exact, so a shortfall means the file was cut off.
    public var isLossless: Bool { self == .wav || self == .flac || self == .aiff }
}

/// Channel mixing.
public enum AudioDownmix {
    /// Writes the mean of each frame's channels to `output` (which holds at least `frames`).
    public static func mean(
        _ interleaved: UnsafeBufferPointer<Float>, channels: Int, frames: Int, scale: Float,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        if channels == 2 {
            for frame in 0..<frames {
                output[frame] = (interleaved[2 * frame] + interleaved[2 * frame + 1]) * scale
            }
            return
        }
        for frame in 0..<frames {
            var sum: Float = 0
            let base = frame * channels
            for channel in 0..<channels { sum += interleaved[base + channel] }
            output[frame] = sum * scale
        }
    }
}

extension AudioFileReader {
    /// Decodes the whole file to prove it decodes, on `parallelism` threads at once for formats
    /// that seek exactly; throws the first decoding error.
    public static func verifyDecodes(path: String, parallelism: Int = ProcessInfo.processInfo.activeProcessorCount)
        throws
    {
        let reader = try AudioFileReader(path: path)
        let info = reader.info
        let parts = reader.seeksExactly && info.frameCount > 10 * info.sampleRate ? min(max(parallelism, 1), 8) : 1
        let perPart = (info.frameCount + parts - 1) / parts
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            do {
                var reader = try AudioFileReader(path: path)
                let start = part * perPart
                if start > 0 { try reader.seek(toFrame: start) }
                var frames = 0
                try reader.forEachBlock(limit: parts == 1 ? .max : min(perPart, info.frameCount - start)) { _, count in
                    frames += count
                }
                if parts > 1, frames != min(perPart, info.frameCount - start) {
                    throw AudioError(.truncated, path: path, message: "the audio ends before the length it announces")
                }
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
