import Foundation
import LoopModel

/// Shadowing's decisions as a value: told what happened (a gap to speak in began or ended, a
/// capture, a scorer or a score came back, the session ended), it says what to do next. It
/// never waits, reads a device or a clock: ``ShadowingRecorder``'s one thread does what it says
/// and tells it what came of it. `Scorer` is what scores a phrase's attempts (a test gives a
/// stand-in).
///
/// One capture runs at a time (a sound card's capture device may be opened once): a gap that
/// begins while the last is still being read, as where playing runs ahead of the clock (into a
/// file), is recorded after it. A gap cut short (a key) is no attempt; a phrase with no model
/// is not scored; after one failure (no microphone), nothing more is recorded.
public struct ShadowingMachine<Scorer: Sendable>: Sendable {
    /// A capture, named by the machine.
    public struct CaptureID: Hashable, Comparable, Sendable {
        fileprivate let number: Int

        /// Whether `a` was begun before `b`.
        public static func < (a: Self, b: Self) -> Bool { a.number < b.number }
    }

    /// What happened.
    public enum Event: Sendable {
        /// The gap after `phrase` began: `frames` to record, from `recordedAt`.
        case gapBegan(phrase: Int, frames: Int, recordedAt: Date)
        /// That gap ended, played to its end (`completed`) or cut short.
        case gapEnded(phrase: Int, completed: Bool)
        /// A capture ended: what it recorded, or why it could not.
        case captured(CaptureID, Result<[Float], any Error>)
        /// `phrase`'s scorer was made (nil: the phrase has no model), or could not be.
        case scorerMade(phrase: Int, Result<Scorer?, any Error>)
        /// An attempt was scored (nil: it held no speech), or could not be.
        case scored(CaptureID, Result<AttemptScore?, any Error>)
        /// The session ended: finish what is under way, start nothing more.
        case sessionEnded
    }

    /// What to do.
    public enum Action: Sendable {
        /// Record `frames` from the device, then tell ``Event/captured(_:_:)``.
        case startCapture(CaptureID, frames: Int)
        /// Stop that capture early (it still tells what it recorded).
        case stopCapture(CaptureID)
        /// Make `phrase`'s scorer, then tell ``Event/scorerMade(phrase:_:)``.
        case prepareScorer(phrase: Int)
        /// Score `samples` with `scorer`, then tell ``Event/scored(_:_:)``.
        case score(CaptureID, samples: [Float], scorer: Scorer)
        /// Hand on a scored attempt.
        case deliver(RecordedAttempt)
        /// Say why recording stopped (once: the first failure).
        case report(any Error)
        /// Nothing is under way any more and the session ended: stop.
        case finish
    }

    private enum Stage {
        /// Waiting for the capture before it to end: `frames` to record.
        case queued(frames: Int)
        case capturing(cutShort: Bool)
        case waitingForScorer(samples: [Float])
        case scoring(samples: [Float])
    }

    private struct Attempt {
        var phrase: Int
        var recordedAt: Date
        var stage: Stage
        /// Whether its gap is still open.
        var gapOpen = true
    }

    private enum ScorerState {
        case preparing
        case ready(Scorer?)
    }

    private var attempts: [CaptureID: Attempt] = [:]
    private var scorers: [Int: ScorerState] = [:]
    private var capturing: CaptureID?
    private var nextCapture = 0
    private var broken = false
    private var ending = false
    private var finished = false

    /// A machine with nothing recorded yet.
    public init() {}

    /// Whether a failure stopped recording.
    public var hasStopped: Bool { broken }

    /// What to do now that `event` happened.
    public mutating func handle(_ event: Event) -> [Action] {
        guard !finished else { return [] }
        var actions: [Action] = []
        switch event {
        case .gapBegan(let phrase, let frames, let recordedAt):
            guard !broken, !ending, frames > 0 else { break }
            let id = CaptureID(number: nextCapture)
            nextCapture += 1
            attempts[id] = Attempt(phrase: phrase, recordedAt: recordedAt, stage: .queued(frames: frames))
            actions += startNextCapture()
            if scorers[phrase] == nil {
                scorers[phrase] = .preparing
                actions.append(.prepareScorer(phrase: phrase))
            }
        case .gapEnded(let phrase, let completed):
            for (id, attempt) in attempts where attempt.phrase == phrase && attempt.gapOpen {
                attempts[id]?.gapOpen = false
                // Cut short: the learner moved on; what was recorded is no attempt.
                guard !completed else { continue }
                switch attempt.stage {
                case .queued: attempts[id] = nil
                case .capturing:
                    attempts[id]?.stage = .capturing(cutShort: true)
                    if capturing == id { actions.append(.stopCapture(id)) }
                case .waitingForScorer, .scoring: break
                }
            }
        case .captured(let id, let result):
            if capturing == id { capturing = nil }
            defer { actions += startNextCapture() }
            guard let attempt = attempts[id], case .capturing(let cutShort) = attempt.stage else { break }
            switch result {
            case .failure(let error):
                attempts[id] = nil
                actions += fail(error)
            case .success where cutShort:
                attempts[id] = nil
            case .success(let samples):
                switch scorers[attempt.phrase] {
                case .ready(let scorer?):
                    attempts[id]?.stage = .scoring(samples: samples)
                    actions.append(.score(id, samples: samples, scorer: scorer))
                case .ready(nil), nil:
                    attempts[id] = nil
                case .preparing:
                    attempts[id]?.stage = .waitingForScorer(samples: samples)
                }
            }
        case .scorerMade(let phrase, let result):
            switch result {
            case .failure(let error):
                scorers[phrase] = .ready(nil)
                for (id, attempt) in attempts where attempt.phrase == phrase {
                    if case .waitingForScorer = attempt.stage { attempts[id] = nil }
                }
                actions += fail(error)
            case .success(let scorer):
                scorers[phrase] = .ready(scorer)
                for (id, attempt) in attempts.sorted(by: { $0.key < $1.key }) where attempt.phrase == phrase {
                    guard case .waitingForScorer(let samples) = attempt.stage else { continue }
                    if let scorer {
                        attempts[id]?.stage = .scoring(samples: samples)
                        actions.append(.score(id, samples: samples, scorer: scorer))
                    } else {
                        attempts[id] = nil
                    }
                }
            }
        case .scored(let id, let result):
            guard let attempt = attempts.removeValue(forKey: id), case .scoring(let samples) = attempt.stage
            else { break }
            switch result {
            case .failure(let error):
                actions += fail(error)
            case .success(let score):
                actions.append(
                    .deliver(
                        RecordedAttempt(
                            phrase: attempt.phrase, samples: samples, recordedAt: attempt.recordedAt, score: score)))
            }
        case .sessionEnded:
            ending = true
        }
        let preparing = scorers.values.contains {
            if case .preparing = $0 { true } else { false }
        }
        if ending, attempts.isEmpty, !preparing {
            finished = true
            actions.append(.finish)
        }
        return actions
    }

    /// The capture of the first gap queued, when none is under way.
    private mutating func startNextCapture() -> [Action] {
        guard capturing == nil, !broken else { return [] }
        let queued = attempts.compactMap { id, attempt -> (id: CaptureID, frames: Int)? in
            if case .queued(let frames) = attempt.stage { (id, frames) } else { nil }
        }
        guard let next = queued.min(by: { $0.id < $1.id }) else { return [] }
        attempts[next.id]?.stage = .capturing(cutShort: false)
        capturing = next.id
        return [.startCapture(next.id, frames: next.frames)]
    }

    /// The first failure stops recording: said once; what is under way still ends, what is
    /// queued never starts.
    private mutating func fail(_ error: any Error) -> [Action] {
        guard !broken else { return [] }
        broken = true
        for (id, attempt) in attempts {
            if case .queued = attempt.stage { attempts[id] = nil }
        }
        return [.report(error)]
    }
}

/// A recorded, scored attempt at a phrase.
public struct RecordedAttempt: Sendable {
    /// The phrase's index in the session.
    public var phrase: Int
    /// Mono, at ``ShadowingRecorder/sampleRate``.
    public var samples: [Float]
    /// When the gap began.
    public var recordedAt: Date
    /// Nil when it held no speech.
    public var score: AttemptScore?
}
