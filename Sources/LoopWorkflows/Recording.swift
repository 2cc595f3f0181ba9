import Foundation
import LoopCutting
import LoopFoundation
import LoopModel
import LoopRecording
import LoopStore

/// Recording a loop's text live: the recorder for its phrases, and saving what was recorded
/// (or recovering what a crash left) as one take cut with the text, in one step.
public struct RecordingWorkflow: Sendable {
    let store: LibraryStore

    package init(store: LibraryStore) {
        self.store = store
    }

    /// What a recording is for: the loop, and the phrases to read (all, or one group's).
    public struct Plan: Sendable {
        public var loop: LoopDetail
        public var phrases: [StoredPhrase]
    }

    /// The phrases of `loop` (of one group, if given) to record.
    public func plan(loop id: String, group: Int? = nil) throws -> Plan {
        let detail = try store.loop(id: id)
        if let group, !(1...max(detail.groups.count, 1)).contains(group) {
            throw LibraryError(.phraseNotFound, "the loop has \(detail.groups.count) groups, not \(group)")
        }
        return Plan(loop: detail, phrases: detail.phrases.filter { group == nil || $0.group == group })
    }

    /// Where a recording comes from.
    public enum Input: Sendable {
        /// The sound card's capture device (ALSA), at `sampleRate`, one channel.
        case microphone(device: String, sampleRate: Int)
        /// A recording read from a file (any audio or video file), in real time or as fast as
        /// it reads.
        case file(MediaFile, realTime: Bool)
    }

    /// A recorder for the plan's phrases reading `input`: see ``recorder(for:source:perPhrase:)``.
    public func recorder(for plan: Plan, input: Input, perPhrase: Bool = false, progress: WorkProgress? = nil)
        async throws -> TakeRecorder
    {
        let source: any RecordingSource
        switch input {
        case .microphone(let device, let sampleRate):
            source = try CaptureSource(device: device, sampleRate: sampleRate, channelCount: 1)
        case .file(let media, let realTime):
            // The source holds the file open: a decoded copy may go once it is open.
            source = try await media.reading(progress: progress) { try FileSource(path: $0, realTime: realTime) }
        }
        return try recorder(for: plan, source: source, perPhrase: perPhrase)
    }

    /// A recorder for the plan's phrases, reading `source`, its take kept in the library's
    /// recordings folder as it is captured.
    public func recorder(for plan: Plan, source: sending any RecordingSource, perPhrase: Bool = false) throws
        -> TakeRecorder
    {
        let draft = RecordingDraft(
            loopId: plan.loop.summary.id, phraseIds: plan.phrases.map(\.id), phraseTexts: plan.phrases.map(\.text),
            language: plan.loop.summary.language, sampleRate: source.sampleRate, channelCount: source.channelCount)
        return try TakeRecorder(
            source: source, draft: draft, folder: store.layout.recordingsFolder, perPhrase: perPhrase)
    }

    /// Recordings of `loop` (or of every loop) that a crash or an interruption left, oldest first.
    public func interrupted(loop id: String? = nil) -> [InterruptedRecording] {
        InterruptedRecording.all(in: store.layout.recordingsFolder).filter { id == nil || $0.draft.loopId == id }
    }

    /// What saving a recording did.
    public enum Saved: Sendable {
        /// Nothing was recorded: the loop is unchanged (the recording is removed).
        case nothingRecorded
        /// The take was cut and its clips given to the phrases read.
        case saved(RecordedTake)
    }

    /// A recording saved: the loop, the phrases asked for, and those the take gave clips to.
    public struct RecordedTake: Sendable {
        public var loop: LoopDetail
        /// The numbers (across the loop) of the phrases the recording was for.
        public var phrasesAsked: [Int]
        /// The numbers of the phrases that got a clip from the take.
        public var phrasesCut: [Int]
        /// The numbers of the phrases whose clip's edges the cutter was unsure of.
        public var doubtful: [Int]
    }

    /// Saves a finished recording: what was kept (re-read attempts left out) as one FLAC take,
    /// cut with the text of the `phrasesRead` phrases the live view counted.
    public func save(_ recorder: TakeRecorder, progress: (@Sendable (Double) -> Void)? = nil) async throws -> Saved {
        try await save(
            raw: recorder.rawPath, draft: recorder.draft, phrasesRead: recorder.phrasesRead,
            draftPath: recorder.draftPath, progress: progress)
    }

    /// Saves the latest interrupted recording of `loop`, letting the take say how many phrases
    /// it holds; refused when there is none.
    public func recover(loop id: String, progress: (@Sendable (Double) -> Void)? = nil) async throws -> Saved {
        guard let last = interrupted(loop: id).last else {
            throw WorkflowError(
                .refused, "no interrupted recording of '\(try store.loop(id: id).summary.title)' to recover")
        }
        return try await save(
            raw: last.rawPath, draft: last.draft, phrasesRead: nil, draftPath: last.draftPath, progress: progress)
    }

    private func save(
        raw: String, draft: RecordingDraft, phrasesRead: Int?, draftPath: String,
        progress: (@Sendable (Double) -> Void)?
    ) async throws -> Saved {
        let store = self.store
        return try await BlockingWork.run("loop save recording") {
            // Killed while saving, the draft stays to be recovered and the scratch folder is a leftover for gc.
            let scratch = try ScratchFolder(in: store.layout.recordingsFolder, prefix: ".saving-")
            guard
                let result = try RecordingFinisher().finish(
                    rawPath: raw, draft: draft, phrasesRead: phrasesRead, into: scratch.path)
            else {
                for path in [raw, draftPath] { try? FileManager.default.removeItem(atPath: path) }
                return .nothingRecorded
            }
            let loop = try store.attach(
                loop: draft.loopId, phraseIds: result.phraseIds,
                take: CutTake(path: result.takePath, ranges: result.ranges, confidences: result.confidences),
                progress: progress)
            for path in [raw, draftPath] { try? FileManager.default.removeItem(atPath: path) }
            _ = consume scratch
            let numbers = Dictionary(loop.phrases.map { ($0.id, $0.number) }, uniquingKeysWith: { first, _ in first })
            let doubtful = zip(result.phraseIds, result.confidences).filter { $0.1 < Cut.lowConfidence }.compactMap {
                numbers[$0.0]
            }
            return .saved(
                RecordedTake(
                    loop: loop, phrasesAsked: draft.phraseIds.compactMap { numbers[$0] },
                    phrasesCut: result.phraseIds.compactMap { numbers[$0] }, doubtful: doubtful))
        }
    }
}
