import Foundation
import LoopCutting
import LoopFoundation
import LoopModel
import LoopRecording
import LoopStore

// Recording a loop's text live: a recorder for its phrases that a screen drives, and what was
// recorded (or what a crash left) saved as one take cut with the text, in one step.

/// A recording of a loop's text (or of one group's): from the microphone, or a recording read
/// from a file; or, with `recover`, the last recording a crash or an interruption left.
public struct RecordRequest: Sendable {
    /// The loop: an id, a start of it, a title or a start of it.
    public var loop: String
    /// Only this group (1-based).
    public var group: Int?
    /// The ALSA capture device, and the rate to capture at.
    public var device = "default", rate = 48_000
    /// A recording to read instead of the microphone, at real speed unless `fast`.
    public var input: MediaFile?
    /// Read `input` as fast as it goes.
    public var fast = false
    /// One short take a phrase: recording pauses after each until the author goes on.
    public var perPhrase = false
    /// Save the last interrupted recording instead of recording.
    public var recover = false

    /// A recording of `loop`'s phrases needing audio.
    public init(loop: String) { self.loop = loop }

    /// The capture rates taken.
    public static let rates = 8_000...192_000

    /// Refuses `fast` without an input, and a rate out of ``rates``.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(fast && input == nil, RequestProblem("{fast} goes with {input}"))
        try RequestProblem.check(
            !Self.rates.contains(rate), RequestProblem("{rate} takes 8000 to 192000 (Hz), not \(rate)"))
    }
}

/// A recording under way, as a screen shows and drives it.
public struct RecordingSession: Sendable {
    /// The loop recorded for.
    public var loop: LoopDetail
    /// The phrases to read, in order.
    public var phrases: [StoredPhrase]
    /// What the screen drives the recording with (pause, next phrase, stop).
    public var controls: any RecordingControls
    /// Earlier recordings of the loop that were interrupted and not saved.
    public var unsaved: [UnsavedRecording]
}

/// How a recording ended.
public enum RecordingOutcome: Sendable {
    /// Saved: the take cut and its clips given to the phrases read; how often the input overran.
    case saved(RecordedTake, overruns: Int)
    /// Nothing was recorded: the loop is unchanged (the recording is removed).
    case nothingRecorded
    /// Quit: the take is thrown away.
    case quit
    /// Interrupted: the take (this long) is kept, to save with `recover`.
    case interrupted(seconds: Double, loopId: String)
}

/// A recording saved: the loop, the phrases asked for, and those the take gave clips to.
public struct RecordedTake: Sendable {
    /// The loop as it now is.
    public var loop: LoopDetail
    /// The numbers (across the loop) of the phrases the recording was for.
    public var phrasesAsked: [Int]
    /// The numbers of the phrases that got a clip from the take.
    public var phrasesCut: [Int]
    /// The numbers of the phrases whose clip's edges the cutter was unsure of.
    public var doubtful: [Int]
}

extension Library {
    /// Records `request`'s phrases, the session driven by `drive` (a screen, or straight through
    /// the input), then saves the take, cut with the text of the phrases read; or, with
    /// `recover`, saves the last interrupted recording. The take is written as it is captured.
    public func record(
        _ request: RecordRequest, progress: WorkProgress? = nil,
        drive: (RecordingSession) async throws -> RecordingStop
    ) async throws -> RecordingOutcome {
        try request.check()
        let id = try resolve(request.loop)
        let saving = progress.map { report in { @Sendable (fraction: Double) in report(.saving, fraction) } }
        if request.recover {
            guard let last = interrupted(loop: id).last else {
                throw WorkflowError(
                    .refused, "no interrupted recording of '\(try store.loop(id: id).summary.title)' to recover")
            }
            return try await save(
                raw: last.rawPath, draft: last.draft, phrasesRead: nil, draftPath: last.draftPath, overruns: 0,
                progress: saving)
        }
        let detail = try store.loop(id: id)
        if let group = request.group, !(1...max(detail.groups.count, 1)).contains(group) {
            throw LibraryError(.phraseNotFound, "the loop has \(detail.groups.count) groups, not \(group)")
        }
        let phrases = detail.phrases.filter { request.group == nil || $0.group == request.group }
        let source: any RecordingSource
        if let media = request.input {
            // The source holds the file open: a decoded copy may go once it is open.
            source = try await media.reading(progress: progress) { try FileSource(path: $0, realTime: !request.fast) }
        } else {
            source = try CaptureSource(device: request.device, sampleRate: request.rate, channelCount: 1)
        }
        let recorder = try recorder(for: detail, phrases: phrases, source: source, perPhrase: request.perPhrase)
        let unsaved = interrupted(loop: id).map { UnsavedRecording(loopId: id, seconds: $0.seconds) }
        let stop = try await drive(
            RecordingSession(loop: detail, phrases: phrases, controls: recorder, unsaved: unsaved))
        switch stop {
        case .quit:
            recorder.delete()
            return .quit
        case .interrupt:
            return .interrupted(seconds: recorder.status.seconds, loopId: id)
        case .finish:
            return try await save(
                raw: recorder.rawPath, draft: recorder.draft, phrasesRead: recorder.phrasesRead,
                draftPath: recorder.draftPath, overruns: recorder.status.overruns, progress: saving)
        }
    }

    /// A recorder for `phrases` of `loop`, reading `source`, its take kept in the library's
    /// recordings folder as it is captured.
    func recorder(
        for loop: LoopDetail, phrases: [StoredPhrase], source: sending any RecordingSource, perPhrase: Bool = false
    ) throws -> TakeRecorder {
        let draft = RecordingDraft(
            loopId: loop.summary.id, phraseIds: phrases.map(\.id), phraseTexts: phrases.map(\.text),
            language: loop.summary.language, sampleRate: source.sampleRate, channelCount: source.channelCount)
        return try TakeRecorder(
            source: source, draft: draft, folder: store.layout.recordingsFolder, perPhrase: perPhrase)
    }

    /// Recordings of `loop` (or of every loop) that a crash or an interruption left, oldest first.
    func interrupted(loop id: String? = nil) -> [InterruptedRecording] {
        InterruptedRecording.all(in: store.layout.recordingsFolder).filter { id == nil || $0.draft.loopId == id }
    }

    /// The recordings a crash or an interruption left, of every loop.
    func interruptedRecordings() -> [UnsavedRecording] {
        interrupted().map { UnsavedRecording(loopId: $0.draft.loopId, seconds: $0.seconds) }
    }

    private func save(
        raw: String, draft: RecordingDraft, phrasesRead: Int?, draftPath: String, overruns: Int,
        progress: (@Sendable (Double) -> Void)?
    ) async throws -> RecordingOutcome {
        try await work("loop save recording") { store in
            // Killed while saving, the draft stays to be recovered and the scratch folder is a leftover for gc.
            let scratch = try ScratchFolder(in: store.layout.recordingsFolder, prefix: ".saving-")
            guard
                let result = try RecordingFinisher(synthesizer: Library.synthesizer).finish(
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
                    phrasesCut: result.phraseIds.compactMap { numbers[$0] }, doubtful: doubtful),
                overruns: overruns)
        }
    }
}
