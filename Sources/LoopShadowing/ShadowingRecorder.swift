import Foundation
import LoopAudio
import LoopAudioFiles
import LoopFoundation
import LoopModel
import LoopSpeech
import LoopStudy
import Synchronization

/// Shadowing in a study session: records the learner from the sound card during each gap to
/// say a phrase along (ALSA capture), scores each attempt against the phrase's clip, and hands
/// both on. What to do is decided by a ``ShadowingMachine``; one thread of the recorder's own
/// does it (captures, hands attempts on, says why it stopped), and the measuring of models and
/// attempts runs beside it, its results told back to that thread.
public final class ShadowingRecorder: SpeakAlongListener, Sendable {
    /// The phrase a model is of: its clip (mono) and text.
    public struct Model: Sendable {
        /// The model's clip, mono.
        public var samples: [Float]
        /// Its sample rate in hertz.
        public var sampleRate: Int
        /// The phrase's text.
        public var text: String

        /// A model from its clip and text.
        public init(samples: [Float], sampleRate: Int, text: String) {
            self.samples = samples
            self.sampleRate = sampleRate
            self.text = text
        }
    }

    /// Attempts are recorded mono at this rate (what speech needs).
    public static let sampleRate = 16_000

    /// A gap is recorded for an hour at most (a study's gaps last seconds).
    static let longestGap: Microseconds = 3_600_000_000

    typealias Machine = ShadowingMachine<AttemptScorer>

    /// Events for the recorder's thread, from the player's and the measuring threads.
    private let inbox = Inbox<Machine.Event>()
    private let owner: BlockingTask<Void>

    /// Records from `device` (an ALSA capture device); `models` gives a phrase's clip and
    /// text, `language` is the loop's. `delivered` receives each attempt (on the recorder's
    /// thread), `failed` the first error recording or scoring, after which it records no more;
    /// `synthesizer` renders each phrase's words to find them in its model.
    public init(
        device: String, language: String?, synthesizer: SpeechSynthesizer, models: @escaping @Sendable (Int) -> Model?,
        delivered: @escaping @Sendable (RecordedAttempt) -> Void, failed: @escaping @Sendable (any Error) -> Void
    ) {
        let inbox = self.inbox
        let effects = Effects(
            device: device, inbox: inbox, delivered: delivered, failed: failed,
            prepare: { phrase in
                guard let model = models(phrase) else { return nil }
                return try AttemptScorer(
                    model: model.samples, sampleRate: model.sampleRate, attemptSampleRate: Self.sampleRate,
                    text: model.text, language: language, synthesizer: synthesizer)
            })
        owner = BlockingWork.start("loop shadowing") { effects.run() }
    }

    /// Opens `device` for capture once, so that a missing microphone is said before a session.
    public static func checkDevice(_ device: String) throws {
        try CaptureFeed.check(name: device, sampleRate: sampleRate, channelCount: 1)
    }

    /// The gap after `phrase` began, lasting `duration`: the learner's turn is recorded.
    public func speakAlongBegan(phrase: Int, duration: Microseconds) {
        let frames = Int(min(max(duration, 0), Self.longestGap) * Int64(Self.sampleRate) / 1_000_000)
        inbox.post(.gapBegan(phrase: phrase, frames: frames, recordedAt: Date()))
    }

    /// The gap after `phrase` ended, whole or (`completed` false) cut short by a key.
    public func speakAlongEnded(phrase: Int, completed: Bool) {
        inbox.post(.gapEnded(phrase: phrase, completed: completed))
    }

    /// Waits for every attempt being recorded or scored (the session's end).
    public func finish() async {
        inbox.post(.sessionEnded)
        _ = try? await owner.value
    }
}

/// What the recorder's thread does: the machine's actions, and the one capture under way.
private struct Effects: Sendable {
    let device: String
    let inbox: Inbox<ShadowingRecorder.Machine.Event>
    let delivered: @Sendable (RecordedAttempt) -> Void
    let failed: @Sendable (any Error) -> Void
    let prepare: @Sendable (Int) throws -> AttemptScorer?

    /// A capture under way, read on its feed's thread; it posts `.captured` when it completes.
    private struct Capture {
        let id: ShadowingMachine<AttemptScorer>.CaptureID
        let feed: CaptureFeed
    }

    /// Runs the machine until it says to finish.
    func run() {
        var machine = ShadowingRecorder.Machine()
        var capture: Capture?
        var pending: [ShadowingRecorder.Machine.Event] = []
        while true {
            if pending.isEmpty {
                // With a capture under way, waiting ends when its device would have stalled.
                pending += inbox.waitForEvents(until: capture?.feed.stallDeadline)
                if pending.isEmpty, let running = capture, let stall = running.feed.stallFailure() {
                    capture = nil
                    pending.append(.captured(running.id, .failure(stall)))
                }
            }
            while !pending.isEmpty {
                let event = pending.removeFirst()
                if case .captured(let id, _) = event, capture?.id == id { capture = nil }
                for action in machine.handle(event) {
                    switch action {
                    case .startCapture(let id, let frames):
                        let inbox = inbox
                        let feed = CaptureFeed(
                            name: device, sampleRate: ShadowingRecorder.sampleRate, channelCount: 1, frames: frames
                        ) { result in inbox.post(.captured(id, result.mapError { $0 })) }
                        capture = Capture(id: id, feed: feed)
                    case .stopCapture(let id):
                        guard let running = capture, running.id == id else { break }
                        capture = nil
                        // Nil when it completed: its `.captured` is on its way.
                        if let samples = running.feed.stop() { pending.append(.captured(id, .success(samples))) }
                    case .prepareScorer(let phrase):
                        let (inbox, prepare) = (inbox, prepare)
                        _ = BlockingWork.start("loop shadowing model") {
                            inbox.post(.scorerMade(phrase: phrase, Result { try prepare(phrase) }))
                        }
                    case .score(let id, let samples, let scorer):
                        let inbox = inbox
                        _ = BlockingWork.start("loop shadowing score") {
                            inbox.post(.scored(id, Result { try scorer.score(samples) }))
                        }
                    case .deliver(let attempt):
                        delivered(attempt)
                    case .report(let error):
                        failed(error)
                    case .finish:
                        // A capture still under way lets its device go now, not at its gap's end.
                        _ = capture?.feed.stop()
                        return
                    }
                }
            }
        }
    }
}

/// Events posted from any thread, taken by one.
private final class Inbox<Event: Sendable>: @unchecked Sendable {
    // Guarded by `condition`.
    private var events: [Event] = []
    private let condition = NSCondition()

    func post(_ event: Event) {
        condition.lock()
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// The events posted so far, waiting for one when there are none, until `deadline` at
    /// most (then perhaps none).
    func waitForEvents(until deadline: ContinuousClock.Instant? = nil) -> [Event] {
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty {
            guard let deadline else {
                condition.wait()
                continue
            }
            let left = deadline - .now
            if left <= .zero { break }
            _ = condition.wait(until: Date(timeIntervalSinceNow: left / .seconds(1)))
        }
        defer { events = [] }
        return events
    }
}
