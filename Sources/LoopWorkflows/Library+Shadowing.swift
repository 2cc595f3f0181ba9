import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopModel
import LoopPlayback
import LoopShadowing
import LoopStore
import Synchronization

// Shadowing: an attempt recorded anywhere (a phone memo) scored against a model recording of
// the same phrase, and attempts recorded in a study session's gaps.

/// An attempt to score against its model.
public struct CompareRequest: Sendable {
    /// The learner's recording, and the model's.
    public var attempt: String, model: String
    /// The phrase's words.
    public var text: String
    /// The text's language (nil: guessed from the text).
    public var language: String?

    /// A comparison of the recording `attempt` with `model`, both reading `text`.
    public init(attempt: String, model: String, text: String, language: String? = nil) {
        (self.attempt, self.model, self.text, self.language) = (attempt, model, text, language)
    }

    /// Refuses a text with no words and a language tag that is not one.
    public func check() throws(RequestProblem) {
        if text.allSatisfy({ $0.isWhitespace || $0.isPunctuation }) {
            throw RequestProblem("{text} holds no words: give the phrase the recordings say")
        }
        try checkLanguage(language, field: "language")
    }
}

/// Shadowing outside a session.
public enum Shadowing {
    /// The attempts kept of each phrase: the last ones.
    public static let attemptsKeptPerPhrase = LibraryStore.attemptsKeptPerPhrase
    /// The attempts' recordings kept at most, in MiB, over the whole library.
    public static let attemptMebibytes = LibraryStore.attemptBytesLimit >> 20

    /// Scores the attempt against the model, whose words are the request's text. Throws when
    /// either file cannot be read or holds no speech.
    public static func compare(_ request: CompareRequest) throws -> AttemptScore {
        try request.check()
        let modelAudio = try MonoAudio(path: request.model)
        let attemptAudio = try MonoAudio(path: request.attempt)
        let scorer = try AttemptScorer(
            model: modelAudio.samples, sampleRate: modelAudio.sampleRate, attemptSampleRate: attemptAudio.sampleRate,
            text: request.text, language: request.language, synthesizer: Library.synthesizer)
        guard scorer.modelHoldsSpeech else {
            throw AudioError(.emptyFile, path: request.model, message: "no speech heard in the model recording")
        }
        guard let score = try scorer.score(attemptAudio.samples) else {
            throw AudioError(.emptyFile, path: request.attempt, message: "no speech heard in it")
        }
        return score
    }
}

/// Shadowing in a study session: the recorder the player tells of each gap, each attempt's
/// score as it comes, the attempts kept in the library, and the model then the learner's last
/// attempt to play aside.
public final class ShadowingSession: Sendable {
    /// What the session hears of.
    public enum Event: Sendable {
        /// An attempt at a phrase, scored (nil: no speech heard).
        case attempt(phrase: Int, score: AttemptScore?)
        /// Recording stopped (a microphone that failed): the study goes on without it.
        case stopped
    }

    let recorder: ShadowingRecorder
    private let shared = Shared()
    private let audio: StudyAudio

    private struct State {
        var scores: [Int: AttemptScore?] = [:]
        var lastAttempts: [Int: [Float]] = [:]
        var saving: [BlockingTask<Void>] = []
        var failure: (any Error)?
        var recordingStopped = false
        var kept = 0
    }

    /// What the recorder's threads and the session share.
    private final class Shared: Sendable {
        let state = Mutex(State())
        /// Told of each attempt as it is scored, on a thread of the recorder's.
        let announce = Mutex<(@Sendable (Event) -> Void)?>(nil)
    }

    init(prepared: PreparedStudy, store: LibraryStore, keepsAttempts: Bool, device: String) {
        let audio = prepared.audio
        self.audio = audio
        let texts = Dictionary(uniqueKeysWithValues: prepared.loop.phrases.map { ($0.number, $0.text) })
        let loopId = prepared.loop.summary.id
        let shared = self.shared
        recorder = ShadowingRecorder(
            device: device, language: prepared.loop.summary.language, synthesizer: Library.synthesizer,
            models: { phrase in
                guard let clip = audio.monoClip(phrase), let text = texts[phrase] else { return nil }
                return .init(samples: clip, sampleRate: audio.sampleRate, text: text)
            },
            delivered: { attempt in
                shared.state.withLock {
                    $0.scores[attempt.phrase] = .some(attempt.score)
                    $0.lastAttempts[attempt.phrase] = attempt.samples
                }
                shared.announce.withLock { $0 }?(.attempt(phrase: attempt.phrase, score: attempt.score))
                guard keepsAttempts, let score = attempt.score, let text = texts[attempt.phrase] else { return }
                let task = BlockingWork.start("loop keep attempt") {
                    do {
                        try Self.keep(attempt, score: score, text: text, loop: loopId, store: store)
                        shared.state.withLock { $0.kept += 1 }
                    } catch {
                        shared.state.withLock { $0.failure = $0.failure ?? error }
                    }
                }
                shared.state.withLock { $0.saving.append(task) }
            },
            failed: { error in
                shared.state.withLock {
                    $0.failure = $0.failure ?? error
                    $0.recordingStopped = true
                }
                shared.announce.withLock { $0 }?(.stopped)
            })
    }

    /// Whether recording stopped (a microphone that failed mid-session): the study goes on, and
    /// the session's summary says why.
    public var hasStopped: Bool { shared.state.withLock { $0.recordingStopped } }

    /// Calls `body` with each event from now on.
    public func onEvent(_ body: @escaping @Sendable (Event) -> Void) {
        shared.announce.withLock { $0 = body }
    }

    /// The last attempt's score at `phrase`: nil before any; `.some(nil)` when no speech was heard.
    public func lastScore(at phrase: Int) -> AttemptScore?? { shared.state.withLock { $0.scores[phrase] } }

    /// The model clip of `phrase`, a short pause, then the learner's last attempt at it, in the
    /// session's format (nil before any attempt).
    public func modelThenMine(_ phrase: Int) throws -> [Float]? {
        guard let attempt = shared.state.withLock({ $0.lastAttempts[phrase] }) else { return nil }
        let model = try audio.clip(phrase, speed: 1)
        let pause = [Float](repeating: 0, count: audio.sampleRate / 2 * audio.channelCount)
        return model + pause + (try audio.sessionFormat(attempt, rate: ShadowingRecorder.sampleRate))
    }

    /// Waits for the attempts still being recorded, scored or kept; the first failure, if any
    /// (the session itself went on without shadowing), and how many attempts were kept.
    @discardableResult
    public func waitForAttempts() async -> (kept: Int, failure: (any Error)?) {
        await recorder.finish()
        for task in shared.state.withLock({ $0.saving }) { _ = try? await task.value }
        return shared.state.withLock { ($0.kept, $0.failure) }
    }

    /// Writes the attempt as FLAC in the library's scratch space and keeps it.
    static func keep(
        _ attempt: RecordedAttempt, score: AttemptScore, text: String, loop: String,
        store: LibraryStore
    ) throws {
        let folder = store.scratchFolder(named: "attempt")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/attempt.flac"
        var writer = try AudioFileWriter(
            path: path, format: .flac, sampleRate: ShadowingRecorder.sampleRate, channelCount: 1)
        try writer.write(attempt.samples)
        try writer.commit()
        try store.keepAttempt(
            ShadowingAttempt(
                phraseText: text, recordedAt: attempt.recordedAt, coverage: score.coverage, match: score.match,
                lengthRatio: score.lengthRatio, intonation: score.intonation, missedWords: score.missedWords,
                timingWord: score.timingWord?.word, timingRatio: score.timingWord?.ratio),
            loop: loop, audioPath: path)
    }
}

extension Library {
    /// Shadowing for a session over `prepared`, recording from the ALSA capture `device`;
    /// throws when the device cannot record.
    func shadowing(_ prepared: PreparedStudy, device: String) throws -> ShadowingSession {
        do {
            try ShadowingRecorder.checkDevice(device)
        } catch let error as AudioError where error.kind == .noCaptureDevice {
            // The study's own option, not `loop record`'s.
            throw WorkflowError(
                .refused,
                "no capture device '\(device)' to record you from: choose one with --capture-device NAME (see `arecord -L`)"
            )
        } catch let error as AudioError where error.kind == .captureStalled {
            throw WorkflowError(
                .refused, "\(error.message); choose another with --capture-device NAME (see `arecord -L`)")
        }
        return ShadowingSession(
            prepared: prepared, store: store, keepsAttempts: readOnlyReason == nil, device: device)
    }
}
