import Foundation
import LoopAudio
import LoopAuthoring
import Synchronization

/// What the recording view shows.
public struct RecordingStatus: Sendable, Equatable {
    /// The phrase expected next (0-based; `phraseCount` once all are read).
    public var phrase: Int
    public var phraseCount: Int
    /// The input's peak level over the last 50 ms, dBFS.
    public var level: Float
    /// Samples at or near full scale lately: the input is too loud.
    public var clipping: Bool
    public var speaking: Bool
    public var paused: Bool
    public var seconds: Double
    public var overruns: Int
    public var finished: Bool
}

/// A recording in progress, on disk as it is captured: `<id>.raw` (interleaved float32) and
/// `<id>.json` (what it is for), in the library's `recordings/` folder. A crash, Ctrl-C or a
/// full disk keeps what was recorded; `loop record --recover` saves it.
public struct RecordingDraft: Codable, Sendable, Equatable {
    public var loopId: String
    public var phraseIds: [Int64]
    public var phraseTexts: [String]
    public var language: String?
    public var sampleRate: Int
    public var channelCount: Int
    public var started: Date
    /// Frame ranges thrown away (re-recorded phrases).
    public var discarded: [Range<Int>]

    public init(loopId: String, phraseIds: [Int64], phraseTexts: [String], language: String?, sampleRate: Int, channelCount: Int) {
        self.loopId = loopId
        self.phraseIds = phraseIds
        self.phraseTexts = phraseTexts
        self.language = language
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.started = Date()
        self.discarded = []
    }

    public static func folder(library root: String) -> String { root + "/recordings" }

    /// Interrupted recordings in a library, oldest first: (sidecar path, draft, seconds).
    public static func interrupted(library root: String) -> [(path: String, draft: RecordingDraft, seconds: Double)] {
        let folder = folder(library: root)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            let path = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: path), let draft = try? JSONDecoder().decode(RecordingDraft.self, from: data) else { return nil }
            let raw = String(path.dropLast(5)) + ".raw"
            let bytes = ((try? FileManager.default.attributesOfItem(atPath: raw)[.size] as? Int) ?? nil) ?? 0
            return (path, draft, Double(bytes / 4 / max(draft.channelCount, 1)) / Double(draft.sampleRate))
        }
    }
}

/// Records a take through the live pipeline: every block is written to disk first, then
/// measured; pauses long enough to end a phrase move the highlight on. `run` blocks: give it a
/// thread of its own; the other methods may be called from the terminal's loop.
public final class TakeRecorder: Sendable {
    private struct State {
        var draft: RecordingDraft
        var tracker = LivePhraseTracker(pauseHops: 30)
        /// The pace of the reading, for how long the phrase under way should last.
        var pace: ReadingPace
        /// Where each phrase read so far ended, in frames; the tracker expects the next one's length.
        var ends: [Int] = [] {
            didSet { tracker.expectedSpeechHops = pace.expectedSpeechHops(phrase) }
        }
        /// The phrase to read next.
        var phrase: Int { ends.count }
        /// Where the phrase under way (or the last one read) began, in frames.
        var attemptStart: Int?
        var frames = 0
        var paused = false
        var stopping: Stop?
        var peak: Float = -120
        var clippedAt: Int?
        var overruns = 0
        /// When the pause threshold was reached and the highlight moved (for the benchmark).
        var highlightDelays: [Duration] = []

        init(draft: RecordingDraft) {
            self.draft = draft
            pace = ReadingPace(phrases: draft.phraseTexts)
            tracker.expectedSpeechHops = pace.expectedSpeechHops(0)
        }

        /// The phrase under way ended at `frame`: on to the next.
        mutating func phraseEnded(at frame: Int) {
            pace.read(phrase, speechHops: tracker.lastPhraseSpeechHops)
            ends.append(frame)
        }
    }

    /// How a recording ended: saved, thrown away (`q`, confirmed), or interrupted (Ctrl-C: the
    /// take stays on disk for `--recover`).
    public enum Stop: Sendable { case finish, quit, interrupt }

    private let state: Mutex<State>
    private nonisolated(unsafe) let source: any RecordingSource
    /// One short take per phrase: capture pauses after each phrase until ``togglePause()``.
    public let perPhrase: Bool
    public let rawPath: String
    public let draftPath: String

    public init(source: any RecordingSource, draft: RecordingDraft, library root: String, perPhrase: Bool = false) throws {
        self.perPhrase = perPhrase
        let folder = RecordingDraft.folder(library: root)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let name = folder + "/" + UUID().uuidString.lowercased()
        rawPath = name + ".raw"
        draftPath = name + ".json"
        self.source = source
        self.state = Mutex(State(draft: draft))
        try DurableFile.write(try JSONEncoder().encode(draft), to: draftPath)
        guard FileManager.default.createFile(atPath: rawPath, contents: nil) else {
            throw AudioError(.writeFailed, path: rawPath, message: "cannot create the recording")
        }
    }

    /// Captures until ``finish()``, ``quit()`` or the end of the input. Returns how it stopped.
    public func run(onChange: @Sendable (RecordingStatus) -> Void) throws -> Stop {
        guard let output = FileHandle(forWritingAtPath: rawPath) else { throw AudioError(.writeFailed, path: rawPath, message: "cannot write the recording") }
        defer { try? output.close() }
        let channels = source.channelCount
        let rate = source.sampleRate
        var envelope = StreamingEnvelope(sampleRate: rate)
        let hop = envelope.hopFrames
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 8_192 * channels)
        defer { buffer.deallocate() }
        var mono = [Float](repeating: 0, count: 8_192)
        var sinceSync = 0
        while true {
            if let stop = state.withLock({ $0.stopping }) { try output.synchronize(); return stop }
            let frames = try source.read(into: buffer)
            let arrived = ContinuousClock.now
            if frames == 0 {
                // The end of the input ends the phrase under way.
                state.withLock { state in
                    if case .ended(_, let end)? = state.tracker.finish(), state.phrase < state.draft.phraseIds.count {
                        state.phraseEnded(at: end * hop)
                    }
                }
                try output.synchronize()
                return .finish
            }
            if state.withLock({ $0.paused }) { continue }
            let block = UnsafeBufferPointer(rebasing: buffer[0..<(frames * channels)])
            // To disk first: whatever happens next, what was captured is kept.
            try output.write(contentsOf: Data(buffer: block))
            sinceSync += frames
            if sinceSync >= rate { try output.synchronize(); sinceSync = 0 }
            var peak: Float = 0
            for sample in block { peak = max(peak, abs(sample)) }
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<channels { sum += block[frame * channels + channel] }
                mono[frame] = sum / Float(channels)
            }
            let levels = mono.withUnsafeBufferPointer { envelope.consume(UnsafeBufferPointer(rebasing: $0[0..<frames])) }
            let status = state.withLock { state -> RecordingStatus in
                let firstHop = state.frames / hop
                state.frames += frames
                state.overruns = source.overruns
                state.peak = max(state.peak - 1.5, peak > 0 ? 20 * log10(peak) : -120)
                if peak >= 0.99 { state.clippedAt = state.frames }
                for (offset, level) in levels.enumerated() {
                    for event in state.tracker.add(level) {
                        switch event {
                        case .started(let start):
                            if state.phrase < state.draft.phraseIds.count { state.attemptStart = start * hop }
                        case .ended(_, let end):
                            guard state.phrase < state.draft.phraseIds.count else { continue }
                            state.phraseEnded(at: end * hop)
                            state.attemptStart = nil
                            state.highlightDelays.append(ContinuousClock.now - arrived)
                            _ = offset + firstHop
                            if perPhrase { state.paused = true }
                        }
                    }
                }
                return Self.status(state, rate: rate)
            }
            onChange(status)
        }
    }

    /// Reads the current phrase again: what was said of it so far is thrown away.
    public func rerecord() {
        state.withLock { state in
            if let start = state.attemptStart { discard(&state, from: start) }
            state.tracker.reset()
            state.attemptStart = nil
        }
    }

    /// Goes back one phrase, to read it again.
    public func back() {
        state.withLock { state in
            guard state.phrase > 0 else { return }
            let previousEnd = state.ends.count >= 2 ? state.ends[state.ends.count - 2] : 0
            discard(&state, from: previousEnd)
            state.ends.removeLast()
            state.tracker.reset()
            state.attemptStart = nil
        }
    }

    private func discard(_ state: inout State, from start: Int) {
        guard start < state.frames else { return }
        state.draft.discarded.append(start..<state.frames)
        try? DurableFile.write(try JSONEncoder().encode(state.draft), to: draftPath)
    }

    public func togglePause() { state.withLock { $0.paused.toggle(); $0.tracker.reset() } }
    public func finish() { state.withLock { $0.stopping = .finish } }
    public func quit() { state.withLock { $0.stopping = .quit } }
    public func interrupt() { state.withLock { $0.stopping = .interrupt } }

    public var status: RecordingStatus { state.withLock { Self.status($0, rate: source.sampleRate) } }
    public var draft: RecordingDraft { state.withLock { $0.draft } }
    /// Phrases read, in order.
    public var phrasesRead: Int { state.withLock { $0.phrase } }
    public var highlightDelays: [Duration] { state.withLock { $0.highlightDelays } }

    private static func status(_ state: State, rate: Int) -> RecordingStatus {
        RecordingStatus(phrase: state.phrase, phraseCount: state.draft.phraseIds.count, level: state.peak,
                        clipping: state.clippedAt.map { state.frames - $0 < rate } ?? false, speaking: state.tracker.isSpeaking,
                        paused: state.paused, seconds: Double(state.frames) / Double(rate), overruns: state.overruns,
                        finished: state.stopping != nil)
    }

    /// Throws the recording away.
    public func delete() {
        try? FileManager.default.removeItem(atPath: rawPath)
        try? FileManager.default.removeItem(atPath: draftPath)
    }
}
