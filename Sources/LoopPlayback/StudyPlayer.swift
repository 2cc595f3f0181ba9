import Foundation
import LoopAudio
import LoopStudy
import Synchronization

/// Plays a study session: asks the engine for each step and renders it to an output, in chunks
/// of 10 ms, so that an event that interrupts (a key press) silences the old sound and starts
/// the new one within a chunk.
///
/// ``run(onDisplay:)`` blocks: call it on a thread of its own. ``send(_:)`` may be called from
/// any thread (the terminal's loop), as may ``quit()``.
public final class StudyPlayer: Sendable {
    private struct State {
        var session: StudySession
        /// Bumped by every event that cuts the current step short.
        var generation = 0
        var quitting = false
        /// The study clock: what has been rendered.
        var clock: Microseconds = 0
        /// When the first frame of new sound after an event was written (for the benchmark).
        var lastInterrupt: ContinuousClock.Instant?
        var lastResponse: Duration?
    }

    private let state: Mutex<State>
    private let audio: StudyAudio
    private nonisolated(unsafe) let output: any StudyOutput
    /// Keep no more than this much sound ahead of the wall clock (outputs that do not pace
    /// themselves, like files or ALSA's null device, when a person is listening along).
    private let pacing: Duration?

    /// `realTime` paces rendering to the wall clock (for a person); otherwise the session is
    /// rendered as fast as the output takes it.
    public init(session: StudySession, audio: StudyAudio, output: any StudyOutput, realTime: Bool) {
        self.state = Mutex(State(session: session))
        self.audio = audio
        self.output = output
        self.pacing = realTime ? .milliseconds(60) : nil
        audio.prepare(speed: session.settings.speed)
    }

    /// Renders steps until the session ends or ``quit()``; calls `onDisplay` whenever what to
    /// show changes. Returns what was studied.
    @discardableResult
    public func run(onDisplay: @Sendable (StudyDisplay) -> Void = { _ in }) throws -> [Int: PhraseStudy] {
        let started = ContinuousClock.now
        let chunkFrames = max(1, audio.sampleRate / 100)
        let channels = output.channelCount
        var silence = [Float](repeating: 0, count: chunkFrames * channels)
        while true {
            let (step, generation, quitting, display) = state.withLock { state in
                (state.quitting ? nil : state.session.nextStep(at: state.clock), state.generation, state.quitting, state.session.display)
            }
            if quitting { break }
            guard let step else {
                if state.withLock({ $0.session.isFinished }) { break }
                // Paused: wait for an event.
                onDisplay(display)
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            onDisplay(display)
            let frames: [Float]
            switch step {
            case .play(let phrases, let speed, _):
                frames = try phrases.flatMap { try audio.clip($0, speed: speed) }
            case .silence(let duration):
                let count = Int((Double(duration) * Double(audio.sampleRate) / 1_000_000).rounded())
                if silence.count < count * channels { silence = [Float](repeating: 0, count: count * channels) }
                frames = Array(silence[0..<(count * channels)])
            }
            var offset = 0
            while offset < frames.count {
                if state.withLock({ $0.generation != generation || $0.quitting }) {
                    output.stop()
                    break
                }
                let end = min(frames.count, offset + chunkFrames * channels)
                try frames.withUnsafeBufferPointer { try output.write(UnsafeBufferPointer(rebasing: $0[offset..<end])) }
                let written = Microseconds((end - offset) / channels) * 1_000_000 / Microseconds(audio.sampleRate)
                state.withLock { state in
                    state.clock += written
                    if let asked = state.lastInterrupt {
                        state.lastResponse = ContinuousClock.now - asked
                        state.lastInterrupt = nil
                    }
                }
                offset = end
                if let pacing {
                    let ahead = Duration.microseconds(state.withLock { $0.clock }) - (ContinuousClock.now - started)
                    if ahead > pacing { Thread.sleep(forTimeInterval: (ahead - pacing) / .seconds(1)) }
                }
            }
        }
        if !state.withLock({ $0.quitting }) { try output.finish() } else { output.stop() }
        let final = state.withLock { state in
            if state.quitting { state.session.stop(at: state.clock) }
            return state.session
        }
        onDisplay(final.display)
        return final.study
    }

    /// Passes a learner's event to the engine; cuts the current sound short when it must.
    public func send(_ event: StudyEvent) {
        let speed = state.withLock { state in
            let reaction = state.session.handle(event, at: state.clock)
            if reaction == .interrupt || reaction == .pause {
                state.generation += 1
                state.lastInterrupt = ContinuousClock.now
            }
            return state.session.settings.speed
        }
        if event == .faster || event == .slower { audio.prepare(speed: speed) }
    }

    /// Ends the session at once.
    public func quit() {
        state.withLock { $0.quitting = true }
    }

    /// What to show now.
    public var display: StudyDisplay { state.withLock { $0.session.display } }

    /// How long the last interrupting event took to reach the output (new sound written).
    public var lastResponseTime: Duration? { state.withLock { $0.lastResponse } }
}
