import Foundation
import LoopFoundation
import LoopModel
import LoopStudy
import Synchronization

/// Plays a study session on a thread of its own: asks the engine for each step and renders it
/// to an output in chunks of 10 ms, so that an event that interrupts (a key press) silences the
/// old sound and starts the new one within a chunk. Paused, the thread sleeps until an event.
///
/// ``start()`` gives what to show as it changes; ``finished()`` waits for the end and returns
/// what was studied. ``send(_:)`` and ``quit()`` may be called from anywhere.
public final class StudyPlayer: StudyControls, Sendable {
    private struct State {
        var session: StudySession
        /// Bumped by every event that cuts the current step short.
        var generation = 0
        /// Bumped by every event (a paused player looks again).
        var events = 0
        var quitting = false
        /// The study clock: what has been rendered.
        var clock: Microseconds = 0
        /// In a group's play, the phrase whose clip is being rendered.
        var sounding: Int?
        /// Sound to play aside from the session while it is paused (``playAside(_:)``).
        var aside: [Float]?

        var display: StudyDisplay {
            var display = session.display
            if display.phrase == nil && display.phase == .listening { display.sounding = sounding }
            return display
        }
    }

    private let state: Mutex<State>
    /// Wakes the player thread from a pause (paired with ``State/events``).
    private let wake = NSCondition()
    private let audio: StudyAudio
    /// Written by the player thread only, once started; the lock hands it over.
    private let output: Mutex<any StudyOutput>
    private let format: (sampleRate: Int, channelCount: Int)
    /// Keep no more than this much sound ahead of the wall clock (outputs that do not pace
    /// themselves, like files or ALSA's null device, when a person is listening along).
    private let pacing: Duration?
    private let ending = Mutex<BlockingTask<[Int: PhraseStudy]>?>(nil)
    private let listener: (any SpeakAlongListener)?

    /// `realTime` paces rendering to the wall clock (for a person); otherwise the session is
    /// rendered as fast as the output takes it. `listener` hears of each gap to say a phrase along.
    public init(
        session: StudySession, audio: StudyAudio, output: sending any StudyOutput, realTime: Bool,
        listener: (any SpeakAlongListener)? = nil
    ) {
        self.state = Mutex(State(session: session))
        self.listener = listener
        self.audio = audio
        self.format = (output.sampleRate, output.channelCount)
        self.output = Mutex(output)
        self.pacing = realTime ? .milliseconds(60) : nil
        audio.prepare(speed: session.settings.speed)
    }

    /// Starts playing on the player's own thread. What to show arrives whenever it changes; the
    /// stream ends with the session.
    public func start() -> AsyncStream<StudyDisplay> {
        let (displays, continuation) = AsyncStream.makeStream(of: StudyDisplay.self)
        let player = self
        let task = BlockingWork.start("loop player") {
            defer { continuation.finish() }
            return try player.render { continuation.yield($0) }
        }
        ending.withLock { $0 = task }
        return displays
    }

    /// What was studied, once the session has ended (by itself, or by ``quit()``).
    public func finished() async throws -> [Int: PhraseStudy] {
        guard let task = ending.withLock({ $0 }) else { return state.withLock { $0.session.study } }
        return try await task.value
    }

    /// Plays the whole session (no view) and returns what was studied.
    public func play() async throws -> [Int: PhraseStudy] {
        for await _ in start() {}
        return try await finished()
    }

    /// Renders steps until the session ends or ``quit()`` (blocking: the player's thread).
    private func render(onDisplay: (StudyDisplay) -> Void) throws -> [Int: PhraseStudy] {
        let started = ContinuousClock.now
        let chunkFrames = max(1, audio.sampleRate / 100)
        let channels = format.channelCount
        var silence = [Float](repeating: 0, count: chunkFrames * channels)
        var shown: StudyDisplay?
        func show(_ display: StudyDisplay) {
            if display != shown {
                shown = display
                onDisplay(display)
            }
        }
        while true {
            let (step, generation, events, quitting, display, finished) = state.withLock { state in
                state.sounding = nil
                return (
                    state.quitting ? nil : state.session.nextStep(at: state.clock), state.generation, state.events,
                    state.quitting,
                    state.display, state.session.isFinished
                )
            }
            if quitting || (step == nil && finished) { break }
            show(display)
            if let aside = state.withLock({ $0.aside.take() }) {
                try renderAside(aside, generation: generation, chunkFrames: chunkFrames)
                continue
            }
            guard let step else {
                // Paused: sleep until an event changes something.
                wake.lock()
                while state.withLock({ $0.events == events && !$0.quitting }) { wake.wait() }
                wake.unlock()
                continue
            }
            let frames: [Float]
            // Where each clip of a group's play ends, in samples, and its phrase.
            var clipEnds: [(end: Int, phrase: Int)] = []
            switch step {
            case .play(let phrases, let speed, _):
                var joined: [Float] = []
                for phrase in phrases {
                    joined += try audio.clip(phrase, speed: speed)
                    clipEnds.append((joined.count, phrase))
                }
                frames = joined
            case .silence(let duration):
                let count = Int((Double(duration) * Double(audio.sampleRate) / 1_000_000).rounded())
                if silence.count < count * channels { silence = [Float](repeating: 0, count: count * channels) }
                frames = Array(silence[0..<(count * channels)])
            }
            // The learner's turn to say one phrase along: a listener may record it.
            let speakingAlong =
                if case .silence(let duration) = step, display.phase == .speakAlong, let phrase = display.phrase {
                    (phrase, duration) as (Int, Microseconds)?
                } else { nil as (Int, Microseconds)? }
            if let speakingAlong { listener?.speakAlongBegan(phrase: speakingAlong.0, duration: speakingAlong.1) }
            var offset = 0
            defer {
                if let speakingAlong {
                    listener?.speakAlongEnded(phrase: speakingAlong.0, completed: offset >= frames.count)
                }
            }
            var clip = 0
            var shownClip = -1
            while offset < frames.count {
                if state.withLock({ $0.generation != generation || $0.quitting }) {
                    output.withLock { $0.stop() }
                    break
                }
                let end = min(frames.count, offset + chunkFrames * channels)
                // A group's next clip: said once, as it starts (not at every chunk).
                while clip < clipEnds.count && offset >= clipEnds[clip].end { clip += 1 }
                if clipEnds.count > 1, clip < clipEnds.count, clip != shownClip {
                    shownClip = clip
                    let phrase = clipEnds[clip].phrase
                    show(
                        state.withLock { state in
                            state.sounding = phrase
                            return state.display
                        })
                }
                try output.withLock { output in
                    try frames.withUnsafeBufferPointer {
                        try output.write(UnsafeBufferPointer(rebasing: $0[offset..<end]))
                    }
                }
                let written = Microseconds((end - offset) / channels) * 1_000_000 / Microseconds(audio.sampleRate)
                let clock = state.withLock { state in
                    state.clock += written
                    return state.clock
                }
                offset = end
                if let pacing {
                    let ahead = Duration.microseconds(clock) - (ContinuousClock.now - started)
                    if ahead > pacing { Thread.sleep(forTimeInterval: (ahead - pacing) / .seconds(1)) }
                }
            }
        }
        let quitting = state.withLock { $0.quitting }
        try output.withLock { output in
            if quitting { output.stop() } else { try output.finish() }
        }
        let final = state.withLock { state in
            if state.quitting { state.session.stop(at: state.clock) }
            return state.session
        }
        show(final.display)
        return final.study
    }

    /// Plays `aside` (interleaved frames in the session's format: a model clip, then the
    /// learner's attempt) outside the session: pauses the session first, which stays paused.
    public func playAside(_ aside: [Float]) {
        wake.lock()
        state.withLock { state in
            if !state.session.isPaused { _ = state.session.handle(.playPause, at: state.clock) }
            state.generation += 1
            state.aside = aside
            state.events += 1
        }
        wake.broadcast()
        wake.unlock()
    }

    /// Renders sound played aside, chunk by chunk, until it ends or another event cuts it short.
    private func renderAside(_ frames: [Float], generation: Int, chunkFrames: Int) throws {
        let chunk = chunkFrames * format.channelCount
        var offset = 0
        while offset < frames.count {
            if state.withLock({ $0.generation != generation || $0.quitting }) {
                output.withLock { $0.stop() }
                return
            }
            let end = min(frames.count, offset + chunk)
            try output.withLock { output in
                try frames.withUnsafeBufferPointer { try output.write(UnsafeBufferPointer(rebasing: $0[offset..<end])) }
            }
            offset = end
        }
    }

    /// Passes a learner's event to the engine; cuts the current sound short when it must.
    public func send(_ event: StudyEvent) {
        wake.lock()
        let speed = state.withLock { state in
            let reaction = state.session.handle(event, at: state.clock)
            if reaction == .interrupt || reaction == .pause { state.generation += 1 }
            state.events += 1
            return state.session.settings.speed
        }
        wake.broadcast()
        wake.unlock()
        if event == .faster || event == .slower { audio.prepare(speed: speed) }
    }

    /// Ends the session at once.
    public func quit() {
        wake.lock()
        state.withLock { $0.quitting = true }
        wake.broadcast()
        wake.unlock()
    }

    /// What to show now.
    public var display: StudyDisplay { state.withLock { $0.display } }

    /// The groups (0-based) studied through so far, in the order each was first finished.
    public var studiedGroups: [Int] { state.withLock { $0.session.studiedGroups } }
}
