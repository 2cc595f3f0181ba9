import Foundation
import LoopCutting
import LoopModel

/// A recording's state, as a pure state machine: blocks of levels and the author's keys in,
/// actions out (what to save, whether to stop). No clock, no audio, no files: ``TakeRecorder``
/// performs the actions; tests drive it alone.
public struct TakeRecording: Sendable {
    /// How a recording ended: saved, thrown away (`q`, confirmed), or interrupted (Ctrl-C: the
    /// take stays on disk to be recovered).

    /// What the owner must do.
    public enum Action: Sendable, Equatable {
        /// Write the draft's sidecar again (a range was thrown away).
        case saveDraft(RecordingDraft)
        /// The phrase `index` ended at this frame (the highlight moves on).
        case phraseEnded(index: Int, frame: Int)
        /// Stop capturing, and how.
        case stop(RecordingStop)
    }

    /// The draft as it stands.
    public private(set) var draft: RecordingDraft
    /// One short take per phrase: capture pauses after each phrase until ``togglePause()``.
    public let perPhrase: Bool
    private var tracker = LivePhraseTracker(pauseHops: 30)
    /// The pace of the reading, for how long the phrase under way should last.
    private var pace: ReadingPace
    /// Where each phrase read so far ended, in frames.
    private var ends: [Int] = []
    /// Where the phrase under way (or the last one read) began, in frames.
    private var attemptStart: Int?
    /// Frames captured so far.
    public private(set) var frames = 0
    /// Whether capture is paused.
    public private(set) var paused = false
    /// How recording is stopping, once asked to.
    public private(set) var stopping: RecordingStop?
    private var peak: Float = -120
    private var clippedAt: Int?
    private var overruns = 0
    private let hopFrames: Int

    /// A recording of `draft`'s phrases.
    public init(draft: RecordingDraft, perPhrase: Bool = false) {
        self.draft = draft
        self.perPhrase = perPhrase
        pace = ReadingPace(phrases: draft.phraseTexts)
        hopFrames = StreamingEnvelope(sampleRate: draft.sampleRate).hopFrames
        tracker.expectedSpeechHops = pace.expectedSpeechHops(0)
    }

    /// The phrase to read next.
    public var phrase: Int { ends.count }

    /// A block arrived: `frames` frames whose hop levels are `levels`, `peak` its loudest sample
    /// (0...1); `overruns` the source's count so far. Paused, the block is not kept.
    public mutating func captured(frames count: Int, levels: [Float], peak blockPeak: Float, overruns: Int) -> [Action]
    {
        frames += count
        self.overruns = overruns
        peak = max(peak - 1.5, blockPeak > 0 ? 20 * log10(blockPeak) : -120)
        if blockPeak >= 0.99 { clippedAt = frames }
        var actions: [Action] = []
        for level in levels {
            for event in tracker.add(level) {
                switch event {
                case .started(let start):
                    if phrase < draft.phraseIds.count { attemptStart = start * hopFrames }
                case .ended(_, let end):
                    guard phrase < draft.phraseIds.count else { continue }
                    actions.append(phraseEnded(at: end * hopFrames))
                    attemptStart = nil
                    if perPhrase { paused = true }
                }
            }
        }
        return actions
    }

    /// The input ended: the phrase under way ends with it, and the recording finishes.
    public mutating func inputEnded() -> [Action] {
        var actions: [Action] = []
        if case .ended(_, let end)? = tracker.finish(), phrase < draft.phraseIds.count {
            actions.append(phraseEnded(at: end * hopFrames))
        }
        stopping = stopping ?? .finish
        actions.append(.stop(stopping ?? .finish))
        return actions
    }

    private mutating func phraseEnded(at frame: Int) -> Action {
        pace.read(phrase, speechHops: tracker.lastPhraseSpeechHops)
        ends.append(frame)
        tracker.expectedSpeechHops = pace.expectedSpeechHops(phrase)
        return .phraseEnded(index: ends.count - 1, frame: frame)
    }

    /// Reads the current phrase again: what was said of it so far is thrown away.
    public mutating func rerecord() -> Action? {
        defer {
            tracker.reset()
            attemptStart = nil
        }
        guard let start = attemptStart else { return nil }
        return discard(from: start)
    }

    /// Goes back one phrase, to read it again.
    public mutating func back() -> Action? {
        guard phrase > 0 else { return nil }
        let previousEnd = ends.count >= 2 ? ends[ends.count - 2] : 0
        let action = discard(from: previousEnd)
        ends.removeLast()
        tracker.expectedSpeechHops = pace.expectedSpeechHops(phrase)
        tracker.reset()
        attemptStart = nil
        return action
    }

    private mutating func discard(from start: Int) -> Action? {
        guard start < frames else { return nil }
        draft.discarded.append(start..<frames)
        return .saveDraft(draft)
    }

    /// Pauses, or goes on (a pause forgets the levels of the phrase under way).
    public mutating func togglePause() {
        paused.toggle()
        tracker.reset()
    }
    /// Stops, to save what was recorded.
    public mutating func finish() -> Action { stop(.finish) }
    /// Stops, to throw it away.
    public mutating func quit() -> Action { stop(.quit) }
    /// Stops, keeping a draft to save later.
    public mutating func interrupt() -> Action { stop(.interrupt) }

    private mutating func stop(_ how: RecordingStop) -> Action {
        stopping = how
        return .stop(how)
    }

    /// What the view shows now.
    public var status: RecordingStatus {
        RecordingStatus(
            phrase: phrase, phraseCount: draft.phraseIds.count, level: peak,
            clipping: clippedAt.map { frames - $0 < draft.sampleRate } ?? false, speaking: tracker.isSpeaking,
            paused: paused, seconds: Double(frames) / Double(draft.sampleRate), overruns: overruns,
            finished: stopping != nil)
    }
}
