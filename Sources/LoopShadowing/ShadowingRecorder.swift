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
/// both on. A gap cut short (a key) is no attempt.
public final class ShadowingRecorder: SpeakAlongListener, Sendable {
    /// A recorded, scored attempt.
    public struct Attempt: Sendable {
        public var phrase: Int
        /// Mono, at ``ShadowingRecorder/sampleRate``.
        public var samples: [Float]
        public var recordedAt: Date
        /// Nil when it held no speech.
        public var score: AttemptScore?
    }

    /// The phrase a model is of: its clip (mono) and text.
    public struct Model: Sendable {
        public var samples: [Float]
        public var sampleRate: Int
        public var text: String

        public init(samples: [Float], sampleRate: Int, text: String) {
            self.samples = samples
            self.sampleRate = sampleRate
            self.text = text
        }
    }

    /// Attempts are recorded mono at this rate (what speech needs).
    public static let sampleRate = 16_000

    private let device: String
    private let language: String?
    private let models: @Sendable (Int) -> Model?
    private let delivered: @Sendable (Attempt) -> Void
    private let failed: @Sendable (any Error) -> Void
    /// Scorers made so far, by phrase (a model is measured once).
    private let scorers = Mutex<[Int: PreparedScorer]>([:])
    /// The gaps being recorded, by phrase: set when one is cut short.
    private let stops = Mutex<[Int: [StopFlag]]>([:])
    private let inFlight = Mutex<[BlockingTask<Void>]>([])
    /// After one failure to record (no microphone), no more tries.
    private let broken = Atomic<Bool>(false)
    private let synthesizer: SpeechSynthesizer

    /// Records from `device` (an ALSA capture device); `models` gives a phrase's clip and
    /// text, `language` is the loop's. `delivered` receives each attempt (on a thread of the
    /// recorder's), `failed` the first error recording or scoring, after which it stops;
    /// `synthesizer` renders each phrase's words to find them in its model.
    public init(
        device: String, language: String?, synthesizer: SpeechSynthesizer, models: @escaping @Sendable (Int) -> Model?,
        delivered: @escaping @Sendable (Attempt) -> Void, failed: @escaping @Sendable (any Error) -> Void
    ) {
        self.synthesizer = synthesizer
        self.device = device
        self.language = language
        self.models = models
        self.delivered = delivered
        self.failed = failed
    }

    /// Opens `device` for capture once, so that a missing microphone is said before a session.
    public static func checkDevice(_ device: String) throws {
        _ = try AudioCapture(name: device, sampleRate: sampleRate, channelCount: 1)
    }

    public func speakAlongBegan(phrase: Int, duration: Microseconds) {
        guard !broken.load(ordering: .relaxed) else { return }
        let stopped = StopFlag()
        let frames = Int(duration * Int64(Self.sampleRate) / 1_000_000)
        let scorer = scorer(for: phrase)
        let recorder = self
        let task = BlockingWork.start("loop shadowing") {
            do {
                let recordedAt = Date()
                let samples = try recorder.capture(frames: frames, stopped: stopped)
                guard !stopped.isSet else { return }
                guard let scorer = try scorer.wait() else { return }
                let score = try scorer.score(samples)
                recorder.delivered(Attempt(phrase: phrase, samples: samples, recordedAt: recordedAt, score: score))
            } catch {
                if !recorder.broken.exchange(true, ordering: .relaxed) { recorder.failed(error) }
            }
        }
        inFlight.withLock { $0.append(task) }
        stops.withLock { $0[phrase, default: []].append(stopped) }
    }

    public func speakAlongEnded(phrase: Int, completed: Bool) {
        let recording = stops.withLock { $0.removeValue(forKey: phrase) ?? [] }
        // Cut short: the learner moved on; what was recorded is no attempt.
        if !completed { for stopped in recording { stopped.set() } }
    }

    /// Waits for every attempt being recorded or scored (the session's end).
    public func finish() async {
        for task in inFlight.withLock({ $0 }) { _ = try? await task.value }
    }

    // MARK: -

    /// The scorer of `phrase`'s model, made on a thread of its own the first time it is asked for.
    private func scorer(for phrase: Int) -> PreparedScorer {
        scorers.withLock { scorers in
            if let made = scorers[phrase] { return made }
            let (models, language, synthesizer) = (self.models, self.language, self.synthesizer)
            let prepared = PreparedScorer()
            _ = BlockingWork.start("loop shadowing model") {
                prepared.complete(
                    Result {
                        guard let model = models(phrase) else { return nil }
                        return try AttemptScorer(
                            model: model.samples, sampleRate: model.sampleRate, attemptSampleRate: Self.sampleRate,
                            text: model.text, language: language, synthesizer: synthesizer)
                    })
            }
            scorers[phrase] = prepared
            return prepared
        }
    }

    /// Reads `frames` from the capture device (fewer when `stopped` is set).
    private func capture(frames: Int, stopped: StopFlag) throws -> [Float] {
        let capture = try AudioCapture(name: device, sampleRate: Self.sampleRate, channelCount: 1)
        var samples = [Float](repeating: 0, count: frames)
        var read = 0
        try samples.withUnsafeMutableBufferPointer { buffer in
            while read < frames, !stopped.isSet {
                let got = try capture.read(
                    into: UnsafeMutableBufferPointer(rebasing: buffer[read..<min(frames, read + capture.periodFrames)]))
                if got == 0 { break }
                read += got
            }
        }
        return Array(samples.prefix(read))
    }
}

/// Set once, from any thread.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// A phrase's scorer, made on a thread of its own; the recording threads wait for it.
private final class PreparedScorer: Sendable {
    private let result = Mutex<Result<AttemptScorer?, any Error>?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func complete(_ made: Result<AttemptScorer?, any Error>) {
        result.withLock { $0 = made }
        ready.signal()
    }

    /// Blocks until the scorer is made (the calling thread is one of the recorder's own).
    func wait() throws -> AttemptScorer? {
        ready.wait()
        ready.signal()
        return try result.withLock { $0! }.get()
    }
}
