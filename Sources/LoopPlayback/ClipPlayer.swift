import Foundation
import LoopAudioFiles
import LoopFoundation
import Synchronization

/// A stretch of a take to play: its file, format, and the frames.
public struct TakeClip: Sendable, Equatable {
    /// The take's file.
    public var take: String
    /// The take's sample rate in hertz.
    public var sampleRate: Int
    /// The take's channel count.
    public var channelCount: Int
    /// The frames to play.
    public var frames: Range<Int>

    /// A clip from its take and frames.
    public init(take: String, sampleRate: Int, channelCount: Int, frames: Range<Int>) {
        self.take = take
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frames = frames
    }
}

/// Plays one clip at a time through ALSA, off the caller's loop (a terminal's): a new clip stops
/// the one playing (within a block, about 40 ms), so moving and nudging are heard at once.
public final class ClipPlayer: Sendable {
    /// The ALSA device it plays on.
    public let device: String
    private let generation = Atomic<Int>(0)
    /// Held by the thread using the sound device: the next waits for the last to let go.
    private let deviceInUse = Mutex<Void>(())
    private let failure = Mutex<String?>(nil)

    /// A player on ALSA's `device`.
    public init(device: String) {
        self.device = device
    }

    /// Plays `clip`, stopping whatever plays.
    public func play(_ clip: TakeClip) {
        let mine = generation.add(1, ordering: .sequentiallyConsistent).newValue
        _ = BlockingWork.start("loop edit play") { [self] in
            deviceInUse.withLock { _ in
                guard generation.load(ordering: .sequentiallyConsistent) == mine else { return }
                do {
                    try play(clip, while: { self.generation.load(ordering: .sequentiallyConsistent) == mine })
                } catch {
                    failure.withLock { $0 = "cannot play: \(error)" }
                }
            }
        }
    }

    /// Stops what plays.
    public func stop() { generation.add(1, ordering: .sequentiallyConsistent) }

    /// The last playback failure, once.
    public func takeFailure() -> String? {
        failure.withLock { value in
            defer { value = nil }
            return value
        }
    }

    private func play(_ clip: TakeClip, while current: () -> Bool) throws {
        let output = try DeviceOutput(device: device, sampleRate: clip.sampleRate, channelCount: clip.channelCount)
        var reader = try AudioFileReader(path: clip.take)
        try reader.seek(toFrame: clip.frames.lowerBound)
        let block = 2_048
        var buffer = [Float](repeating: 0, count: block * clip.channelCount)
        var remaining = clip.frames.count
        while remaining > 0 {
            guard current() else {
                output.stop()
                return
            }
            let frames = min(block, remaining)
            let read = try buffer.withUnsafeMutableBufferPointer {
                try reader.read(into: UnsafeMutableBufferPointer(rebasing: $0[..<(frames * clip.channelCount)]))
            }
            guard read > 0 else { break }
            try buffer.withUnsafeBufferPointer {
                try output.write(UnsafeBufferPointer(rebasing: $0[..<(read * clip.channelCount)]))
            }
            remaining -= read
        }
        try output.finish()
    }
}
