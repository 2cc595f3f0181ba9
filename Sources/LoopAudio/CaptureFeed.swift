import Foundation
import LoopAudioFiles
import LoopFoundation

/// A capture device opened and read on a thread of its own, so that a device that stalls (a
/// pipe with no writer behind ALSA's `file` plugin, a hung driver, a card unplugged mid-read)
/// is said after ``stallLimit`` instead of holding whoever records: neither opening nor
/// reading an ALSA device has a deadline of its own.
///
/// A thread stuck in the device is left behind when the feed gives up on it; it closes the
/// device if the device ever answers.
public final class CaptureFeed: @unchecked Sendable {
    /// How long a capture may deliver nothing (opening included) before it is given up.
    /// A working device delivers a period every few tens of milliseconds; long enough for a
    /// machine under load, short enough that a learner is told within seconds.
    public static let defaultStallLimit: Duration = .seconds(5)

    /// The device's name, as given.
    public let name: String
    /// The capture's sample rate in hertz.
    public let sampleRate: Int
    /// The capture's channel count.
    public let channelCount: Int
    /// How long the device may deliver nothing before it is given up.
    public let stallLimit: Duration

    // Guarded by `condition`.
    private var samples: [Float] = []
    private var taken = 0
    private var framesRead = 0
    private var overrunCount = 0
    private var lastProgress = ContinuousClock.now
    private var ended: Result<Void, AudioError>?
    /// Set when the feed is stopped or gives up: its thread reads no more.
    private var abandoned = false
    private var stallReported = false
    private var opened = false
    private let condition = NSCondition()

    /// Opens `name` for capture and reads it until `frames` frames are in (forever when nil),
    /// the device ends, or the feed is stopped. `completed` is called (on the feed's thread)
    /// when the device ends on its own: the frames reached, an end of input, or an error; never
    /// after ``stop()`` or a stall.
    public init(
        name: String, sampleRate: Int, channelCount: Int, frames: Int? = nil,
        stallLimit: Duration = CaptureFeed.defaultStallLimit,
        completed: (@Sendable (Result<[Float], AudioError>) -> Void)? = nil
    ) {
        (self.name, self.sampleRate, self.channelCount, self.stallLimit) = (name, sampleRate, channelCount, stallLimit)
        let thread = Thread { [self] in read(frames: frames, completed: completed) }
        thread.name = "loop capture"
        thread.start()
    }

    /// The thread's work: opens the device and reads it a period at a time.
    private func read(frames limit: Int?, completed: (@Sendable (Result<[Float], AudioError>) -> Void)?) {
        var outcome: Result<Void, AudioError> = .success(())
        do throws(AudioError) {
            let device = try AudioCapture(name: name, sampleRate: sampleRate, channelCount: channelCount)
            let period = UnsafeMutableBufferPointer<Float>.allocate(capacity: device.periodFrames * channelCount)
            defer { period.deallocate() }
            condition.lock()
            (opened, lastProgress) = (true, .now)
            condition.broadcast()
            condition.unlock()
            reading: while true {
                condition.lock()
                let wanted = min(device.periodFrames, limit.map { $0 - framesRead } ?? .max)
                condition.unlock()
                let got = try device.read(
                    into: UnsafeMutableBufferPointer(rebasing: period[0..<(wanted * channelCount)]))
                condition.lock()
                samples += period.prefix(got * channelCount)
                framesRead += got
                overrunCount = device.overruns
                lastProgress = .now
                let done = abandoned || got == 0 || limit.map { framesRead >= $0 } ?? false
                condition.broadcast()
                condition.unlock()
                if done { break reading }
            }
        } catch {
            outcome = .failure(error)
        }
        condition.lock()
        let wasAbandoned = abandoned
        ended = outcome
        let all = samples
        condition.broadcast()
        condition.unlock()
        if !wasAbandoned { completed?(outcome.map { all }) }
    }

    /// Stops the capture and returns everything read so far; nil when it had ended on its own
    /// (its `completed` is called or being called) or was stopped already.
    public func stop() -> [Float]? {
        condition.lock()
        defer { condition.unlock() }
        guard ended == nil, !abandoned else { return nil }
        abandoned = true
        return samples
    }

    /// When the device will be said to have stalled, unless it delivers before.
    public var stallDeadline: ContinuousClock.Instant {
        condition.lock()
        defer { condition.unlock() }
        return lastProgress + stallLimit
    }

    /// Gives the capture up when it has delivered nothing for ``stallLimit``, returning the
    /// error that says so; nil while it is delivering, or once it has ended or been stopped.
    public func stallFailure(at now: ContinuousClock.Instant = .now) -> AudioError? {
        condition.lock()
        defer { condition.unlock() }
        guard ended == nil, !abandoned, now >= lastProgress + stallLimit else { return nil }
        (abandoned, stallReported) = (true, true)
        return stalled
    }

    /// What a stall is said as (the lock held).
    private var stalled: AudioError {
        let seconds = Int((stallLimit / .seconds(1)).rounded())
        let what = opened ? "delivered no sound for \(seconds) s" : "did not open within \(seconds) s"
        return AudioError(
            .captureStalled, path: nil,
            message: "the capture device '\(name)' \(what): check that it is connected and not held by another program")
    }

    /// Waits until the device is open, throwing why it could not be opened (or its stall).
    public func waitUntilOpen() throws(AudioError) {
        condition.lock()
        defer { condition.unlock() }
        while !opened {
            if case .failure(let error) = ended { throw error }
            try waitForNews()
        }
    }

    /// Waits (the lock held) for news from the feed's thread until the device would have
    /// stalled; past that, gives the device up and throws the stall.
    private func waitForNews() throws(AudioError) {
        if stallReported { throw stalled }
        let deadline = lastProgress + stallLimit
        let now = ContinuousClock.now
        if now >= deadline {
            (abandoned, stallReported) = (true, true)
            throw stalled
        }
        _ = condition.wait(until: Date(timeIntervalSinceNow: (deadline - now) / .seconds(1)))
    }

    /// Opens `name` and closes it again, within the stall limit: whether it can record is said
    /// before a session that needs it begins.
    public static func check(
        name: String, sampleRate: Int, channelCount: Int, stallLimit: Duration = defaultStallLimit
    ) throws(AudioError) {
        try CaptureFeed(
            name: name, sampleRate: sampleRate, channelCount: channelCount, frames: 0, stallLimit: stallLimit
        )
        .waitUntilOpen()
    }

    /// Times the device fell behind and dropped audio, so far.
    public var overruns: Int {
        condition.lock()
        defer { condition.unlock() }
        return overrunCount
    }

    /// The next frames read (interleaved), at most `buffer.count` samples, waiting for them;
    /// 0 once the device has ended (or the feed was stopped) and all is taken. Throws the
    /// device's error, or the stall. What is taken is no longer kept: ``stop()`` returns only
    /// what was not.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioError) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while samples.count == taken, ended == nil, !abandoned { try waitForNews() }
        let count = min(buffer.count / channelCount, (samples.count - taken) / channelCount) * channelCount
        if count == 0, stallReported { throw stalled }
        if count == 0, case .failure(let error) = ended { throw error }
        for index in 0..<count { buffer[index] = samples[taken + index] }
        taken += count
        // What is taken is not kept.
        if taken == samples.count {
            samples.removeAll(keepingCapacity: true)
            taken = 0
        }
        return count / channelCount
    }
}
