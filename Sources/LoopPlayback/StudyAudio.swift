import Foundation
import LoopAudio
import LoopAudioFiles
import LoopFoundation
import LoopModel
import LoopStudy
import Synchronization

/// Where a phrase's audio is: a frame range of a take.
public struct ClipSource: Sendable, Equatable {
    /// The phrase's index in the session.
    public var phrase: Int
    /// The take's file.
    public var takePath: String
    /// The phrase's frames in it.
    public var frames: Range<Int>

    /// A clip source from its parts.
    public init(phrase: Int, takePath: String, frames: Range<Int>) {
        self.phrase = phrase
        self.takePath = takePath
        self.frames = frames
    }
}

/// The clips of a study session, decoded once and in one output format.
///
/// Each take is read once, front to back. The output format is the first take's rate and
/// channels; clips of other takes are converted to it. Clips at other speeds are stretched
/// (pitch kept) on first use and kept.
public final class StudyAudio: Sendable {
    /// The output's sample rate in hertz (the first take's).
    public let sampleRate: Int
    /// The output's channel count (the first take's).
    public let channelCount: Int
    /// Per phrase: interleaved frames at normal speed, in the output format.
    private let clips: [Int: [Float]]
    /// Stretched clips by speed; the player and the warming thread may both fill it.
    private let stretched = Mutex<[Double: [Int: [Float]]]>([:])
    /// The speed the warming thread works towards, and whether it is running.
    private let warming = Mutex<(speed: Double, running: Bool)>((1, false))

    init(sampleRate: Int, channelCount: Int, clips: [Int: [Float]]) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.clips = clips
    }

    /// Reads the clips' takes. `progress` receives the share read.
    public static func load(_ sources: [ClipSource], progress: (@Sendable (Double) -> Void)? = nil) throws -> StudyAudio
    {
        guard let first = sources.first else { throw StudyError(.noAudio, "nothing to play: no phrase has audio") }
        let format = try AudioFileReader(path: first.takePath).info
        var clips: [Int: [Float]] = [:]
        let byTake = Dictionary(grouping: sources, by: \.takePath)
        var done = 0
        for (path, wanted) in byTake.sorted(by: { $0.key < $1.key }) {
            var reader = try AudioFileReader(path: path)
            let info = reader.info
            let channels = info.channelCount
            // One pass over the take, copying only the clips' frames: a long take never sits in memory.
            var pieces = [[Float]](repeating: [], count: wanted.count)
            for (index, source) in wanted.enumerated() { pieces[index].reserveCapacity(source.frames.count * channels) }
            let end = wanted.map(\.frames.upperBound).max() ?? 0
            var position = 0
            try reader.forEachBlock(limit: end) { block, frames in
                let blockRange = position..<(position + frames)
                for (index, source) in wanted.enumerated() {
                    let overlap = source.frames.clamped(to: blockRange)
                    guard !overlap.isEmpty else { continue }
                    pieces[index].append(
                        contentsOf: block[
                            ((overlap.lowerBound - position) * channels)..<((overlap.upperBound - position) * channels)]
                    )
                }
                position += frames
            }
            for (index, source) in wanted.enumerated() {
                var clip = convertChannels(pieces[index], from: channels, to: format.channelCount)
                if info.sampleRate != format.sampleRate {
                    clip = try Resampler(
                        from: info.sampleRate, to: format.sampleRate, channelCount: format.channelCount
                    ).process(clip)
                }
                clips[source.phrase] = clip
                done += 1
                progress?(Double(done) / Double(sources.count))
            }
        }
        return StudyAudio(sampleRate: format.sampleRate, channelCount: format.channelCount, clips: clips)
    }

    /// A phrase's length at normal speed.
    public func duration(of phrase: Int) -> Microseconds? {
        clips[phrase].map { Microseconds($0.count / channelCount) * 1_000_000 / Microseconds(sampleRate) }
    }

    /// A phrase's clip at normal speed as mono samples (a model for shadowing).
    public func monoClip(_ phrase: Int) -> [Float]? {
        clips[phrase].map { Self.convertChannels($0, from: channelCount, to: 1) }
    }

    /// Mono `samples` at `rate` in the session's format (to be played aside).
    public func sessionFormat(_ samples: [Float], rate: Int) throws -> [Float] {
        let resampled =
            rate == sampleRate
            ? samples : try Resampler(from: rate, to: sampleRate, channelCount: 1).process(samples)
        return Self.convertChannels(resampled, from: 1, to: channelCount)
    }

    /// A phrase's frames at `speed` (interleaved).
    public func clip(_ phrase: Int, speed: Double) throws -> [Float] {
        guard let clip = clips[phrase] else { return [] }
        if speed == 1 { return clip }
        if let cached = stretched.withLock({ $0[speed]?[phrase] }) { return cached }
        let result = try TimeStretcher(sampleRate: sampleRate, channelCount: channelCount, speed: speed).process(clip)
        stretched.withLock { $0[speed, default: [:]][phrase] = result }
        return result
    }

    /// Stretches every clip to `speed` ahead of playback, so that a new speed finds its clips
    /// ready and never waits (which would leave a gap in the sound). One warming thread at a
    /// time: keys pressed in a row only change the speed it works towards, and it stops
    /// working on a speed as soon as another is asked for.
    public func prepare(speed: Double) {
        let start = warming.withLock { state -> Bool in
            state.speed = speed
            defer { state.running = true }
            return !state.running
        }
        guard start else { return }
        let audio = self
        _ = BlockingWork.start("loop stretch clips") { audio.warm() }
    }

    /// Stretches clips towards the speed asked for, until every clip of it is ready.
    private func warm() {
        let phrases = Array(clips.keys).sorted()
        // Clips that would not stretch: left to the player, which reports the error.
        var failed: Set<[Double]> = []
        while true {
            let speed = warming.withLock { $0.speed }
            let missing =
                speed == 1
                ? nil
                : phrases.first { phrase in
                    !failed.contains([speed, Double(phrase)]) && stretched.withLock { $0[speed]?[phrase] == nil }
                }
            guard let phrase = missing else {
                // Done, unless the speed changed meanwhile.
                let finished = warming.withLock { state -> Bool in
                    guard state.speed == speed else { return false }
                    state.running = false
                    return true
                }
                if finished { return }
                continue
            }
            if (try? clip(phrase, speed: speed)) == nil { failed.insert([speed, Double(phrase)]) }
        }
    }

    static func convertChannels(_ samples: [Float], from source: Int, to target: Int) -> [Float] {
        guard source != target else { return samples }
        let frames = samples.count / source
        var mono = [Float](repeating: 0, count: frames)
        samples.withUnsafeBufferPointer { interleaved in
            mono.withUnsafeMutableBufferPointer {
                AudioDownmix.mean(interleaved, channels: source, frames: frames, scale: 1 / Float(source), into: $0)
            }
        }
        guard target > 1 else { return mono }
        // More channels: the ones the source has, then the mix; fewer: the mix in each.
        var output = [Float](repeating: 0, count: frames * target)
        for frame in 0..<frames {
            for channel in 0..<target {
                output[frame * target + channel] =
                    target >= source && channel < source ? samples[frame * source + channel] : mono[frame]
            }
        }
        return output
    }
}
