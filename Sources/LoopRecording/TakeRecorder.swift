import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopModel
import Synchronization

/// A recording in progress, on disk as it is captured: `<id>.raw` (interleaved float32) and
/// `<id>.json` (what it is for), in a library's recordings folder. A crash, Ctrl-C or a full
/// disk keeps what was recorded; it can be saved later (recovered).
public struct RecordingDraft: Codable, Sendable, Equatable {
    /// The loop recorded for.
    public var loopId: String
    /// The phrases to read, in order.
    public var phraseIds: [Int64]
    /// Their texts, as the recording began.
    public var phraseTexts: [String]
    /// The loop's language (for cutting by text).
    public var language: String?
    /// The capture's sample rate in hertz.
    public var sampleRate: Int
    /// The capture's channel count.
    public var channelCount: Int
    /// When recording began.
    public var started: Date
    /// Frame ranges thrown away (re-recorded phrases).
    public var discarded: [Range<Int>]

    /// A draft of a recording that has just begun.
    public init(
        loopId: String, phraseIds: [Int64], phraseTexts: [String], language: String?, sampleRate: Int,
        channelCount: Int, started: Date = Date()
    ) {
        self.loopId = loopId
        self.phraseIds = phraseIds
        self.phraseTexts = phraseTexts
        self.language = language
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.started = started
        self.discarded = []
    }
}

/// A recording left on disk by a crash or an interruption, ready to be saved.
public struct InterruptedRecording: Sendable, Equatable {
    /// The sidecar (`<id>.json`); the audio is beside it (``rawPath``).
    public var draftPath: String
    /// What it was for.
    public var draft: RecordingDraft
    /// How long it is, in seconds.
    public var seconds: Double

    /// The audio: interleaved float32, beside the sidecar.
    public var rawPath: String { String(draftPath.dropLast(5)) + ".raw" }

    /// The interrupted recordings in `folder` (a library's recordings folder), oldest first.
    public static func all(in folder: String) -> [InterruptedRecording] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".json")
        }.sorted()
        return names.compactMap { name in
            let path = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: path),
                let draft = try? JSONDecoder().decode(RecordingDraft.self, from: data)
            else { return nil }
            let found = InterruptedRecording(draftPath: path, draft: draft, seconds: 0)
            let bytes = RegularFile.size(found.rawPath) ?? 0
            return InterruptedRecording(
                draftPath: path, draft: draft,
                seconds: Double(bytes / 4 / max(draft.channelCount, 1)) / Double(draft.sampleRate))
        }
    }
}

/// Records a take through the live pipeline on a thread of its own: every block is written to
/// disk first, then measured (``TakeRecording`` decides what it means). ``start()`` gives the
/// statuses as they change; ``stopped()`` waits for the end. The other methods (the author's
/// keys) may be called from anywhere.
public final class TakeRecorder: RecordingControls, Sendable {
    private let state: Mutex<TakeRecording>
    /// Read by the recorder's own thread only, once started; the lock hands it over.
    private let source: Mutex<any RecordingSource>
    private let format: (sampleRate: Int, channelCount: Int)
    /// The audio being written (interleaved float32).
    public let rawPath: String
    /// The sidecar saying what it is for.
    public let draftPath: String

    /// `folder` is where recordings in progress are kept (a library's recordings folder).
    public init(source: sending any RecordingSource, draft: RecordingDraft, folder: String, perPhrase: Bool = false)
        throws
    {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let name = folder + "/" + UUID().uuidString.lowercased()
        rawPath = name + ".raw"
        draftPath = name + ".json"
        format = (source.sampleRate, source.channelCount)
        self.source = Mutex(source)
        self.state = Mutex(TakeRecording(draft: draft, perPhrase: perPhrase))
        try DurableFile.write(try JSONEncoder().encode(draft), to: draftPath)
        guard FileManager.default.createFile(atPath: rawPath, contents: nil) else {
            throw AudioError(.writeFailed, path: rawPath, message: "cannot create the recording")
        }
    }

    /// Starts capturing on the recorder's own thread; the statuses arrive as they change and
    /// the stream ends when the recording stops (``stopped()`` tells how, or throws its error).
    public func start() -> AsyncStream<RecordingStatus> {
        let (statuses, continuation) = AsyncStream.makeStream(
            of: RecordingStatus.self, bufferingPolicy: .bufferingNewest(1))
        let recorder = self
        let ending = BlockingWork.start("loop recorder") {
            defer { continuation.finish() }
            return try recorder.capture { continuation.yield($0) }
        }
        outcome.withLock { $0 = ending }
        return statuses
    }

    private let outcome = Mutex<BlockingTask<RecordingStop>?>(nil)

    /// How the recording stopped, once it has.
    public func stopped() async throws -> RecordingStop {
        guard let task = outcome.withLock({ $0 }) else { return state.withLock { $0.stopping ?? .finish } }
        return try await task.value
    }

    /// Captures until the recording is stopped or the input ends (blocking).
    private func capture(onChange: (RecordingStatus) -> Void) throws -> RecordingStop {
        guard let output = FileHandle(forWritingAtPath: rawPath) else {
            throw AudioError(.writeFailed, path: rawPath, message: "cannot write the recording")
        }
        defer { try? output.close() }
        let (rate, channels) = format
        var envelope = StreamingEnvelope(sampleRate: rate)
        var mono = [Float](repeating: 0, count: 8_192)
        var sinceSync = 0
        while true {
            if let stop = state.withLock({ $0.stopping }) {
                try output.synchronize()
                return stop
            }
            let (buffer, frames, overruns) = try source.withLock { source in
                var samples = [Float](repeating: 0, count: 8_192 * channels)
                let frames = try samples.withUnsafeMutableBufferPointer { try source.read(into: $0) }
                return (samples, frames, source.overruns)
            }
            if frames == 0 {
                let actions = state.withLock { $0.inputEnded() }
                try perform(actions)
                try output.synchronize()
                onChange(status)
                return state.withLock { $0.stopping ?? .finish }
            }
            if state.withLock({ $0.paused }) { continue }
            let levels = try buffer.withUnsafeBufferPointer { samples in
                let block = UnsafeBufferPointer(rebasing: samples[0..<(frames * channels)])
                // To disk first: whatever happens next, what was captured is kept.
                try output.write(contentsOf: Data(buffer: block))
                return mono.withUnsafeMutableBufferPointer { mono in
                    AudioDownmix.mean(block, channels: channels, frames: frames, scale: 1 / Float(channels), into: mono)
                    return envelope.consume(UnsafeBufferPointer(rebasing: mono[0..<frames]))
                }
            }
            sinceSync += frames
            if sinceSync >= rate {
                try output.synchronize()
                sinceSync = 0
            }
            let peak = buffer[0..<(frames * channels)].reduce(Float(0)) { max($0, abs($1)) }
            let actions = state.withLock { $0.captured(frames: frames, levels: levels, peak: peak, overruns: overruns) }
            try perform(actions)
            onChange(status)
        }
    }

    /// Does what the state asked, outside its lock (a draft written and synced).
    private func perform(_ actions: [TakeRecording.Action]) throws {
        for case .saveDraft(let draft) in actions {
            try DurableFile.write(try JSONEncoder().encode(draft), to: draftPath)
        }
    }

    /// Reads the current phrase again: what was said of it so far is thrown away.
    public func rerecord() { try? perform(state.withLock { $0.rerecord() }.map { [$0] } ?? []) }
    /// Goes back one phrase, to read it again.
    public func back() { try? perform(state.withLock { $0.back() }.map { [$0] } ?? []) }
    /// Pauses capture, or goes on.
    public func togglePause() { state.withLock { $0.togglePause() } }
    /// Stops, to save what was recorded.
    public func finish() { _ = state.withLock { $0.finish() } }
    /// Stops and throws the recording away.
    public func quit() { _ = state.withLock { $0.quit() } }
    /// Stops and keeps the recording as a draft, to save later.
    public func interrupt() { _ = state.withLock { $0.interrupt() } }

    /// What the author sees now.
    public var status: RecordingStatus { state.withLock { $0.status } }
    /// The draft as it stands.
    public var draft: RecordingDraft { state.withLock { $0.draft } }
    /// Whether each phrase is its own short take.
    public var perPhrase: Bool { state.withLock { $0.perPhrase } }
    /// Phrases read, in order.
    public var phrasesRead: Int { state.withLock { $0.phrase } }

    /// Throws the recording away.
    public func delete() {
        try? FileManager.default.removeItem(atPath: rawPath)
        try? FileManager.default.removeItem(atPath: draftPath)
    }
}
