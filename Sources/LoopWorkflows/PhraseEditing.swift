import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopModel
import LoopRecording
import LoopStore
import Synchronization

/// The phrase editor's work with the library: the loop to edit, the energy of its takes (for
/// the waveform strip and the pauses to split at), a phrase recorded again, clips joined, and
/// saving everything in one transaction.
public final class PhraseEditingWorkflow: Sendable {
    let store: LibraryStore
    public let loopId: String
    /// The loop's revision when the editor opened it or last saved it: a save is refused if it
    /// moved meanwhile (another process changed the loop).
    public var revision: Int { savedRevision.withLock { $0 } }
    private let savedRevision: Mutex<Int>
    /// Groups being reviewed whose text the saves changed (their reviews start anew).
    public var reviewsRestartedSoFar: Int { reviewsRestarted.withLock { $0 } }
    private let reviewsRestarted = Mutex(0)
    /// New takes (recorded again, joined) live here until they are saved or thrown away.
    public let scratch: String
    private let envelopes = Mutex<[String: EnergyEnvelope]>([:])

    package init(store: LibraryStore, loop id: String) throws {
        self.store = store
        loopId = id
        savedRevision = Mutex(try store.loop(id: id).summary.revision)
        scratch = store.scratchFolder(named: "edit")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// The editor's model for the loop as stored now.
    public func editor() throws -> PhraseEditor { PhraseEditor(try store.loop(id: loopId)) }

    /// Measures the energy of every take the loop's clips lie in, off the caller's thread, so
    /// that the editor's screen (its waveform strip, its splits) never waits on a long take.
    public func measureTakes(progress: (@Sendable (Double) -> Void)? = nil) async throws {
        let takes = Set(try store.loop(id: loopId).phrases.compactMap { $0.audio?.path }).sorted()
        try await BlockingWork.run("loop edit measure") {
            // One long take is the usual case: the bar moves within each take, not only between them.
            let share = 1 / Double(max(takes.count, 1))
            for (index, take) in takes.enumerated() {
                _ = try self.envelope(of: take) { done in progress?((Double(index) + done) * share) }
            }
        }
    }

    /// The energy envelope of a take (measured once, then kept).
    public func envelope(of take: String, progress: (@Sendable (Double) -> Void)? = nil) throws -> EnergyEnvelope {
        if let known = envelopes.withLock({ $0[take] }) { return known }
        let measured = try EnergyEnvelope.measure(path: take, progress: progress)
        envelopes.withLock { $0[take] = measured }
        return measured
    }

    /// Where the phrase at the cursor splits in its audio: the pause nearest the share of its
    /// clip that the text before the text cursor takes.
    public func splitFrame(for editor: PhraseEditor) throws -> Int? {
        guard let clip = editor.current.clip, !editor.current.text.isEmpty else { return nil }
        let share = Double(editor.textCursor) / Double(editor.current.text.count)
        let estimate = clip.frames.lowerBound + Int(share * Double(clip.frames.count))
        return PhraseEditorAudio.pause(in: try envelope(of: clip.take), clip: clip.frames, near: estimate)
    }

    /// The clip the phrase at the cursor and the next one make together.
    public func joinedClip(for editor: PhraseEditor) throws -> EditorClip? {
        let phrases = editor.phrases
        guard editor.cursor + 1 < phrases.count else { return nil }
        let a = phrases[editor.cursor].clip, b = phrases[editor.cursor + 1].clip
        if let same = PhraseEditor.contiguous(a, b) { return same }
        guard let a, let b else { return nil }
        return try PhraseEditorAudio.join(a, b, in: scratch)
    }

    /// A recorder for the phrase at the cursor alone, reading `source`.
    public func rerecorder(for editor: PhraseEditor, source: sending any RecordingSource) throws -> TakeRecorder {
        let loop = try store.loop(id: loopId)
        let draft = RecordingDraft(
            loopId: loopId, phraseIds: [loop.phrases.first?.id ?? 0], phraseTexts: [editor.current.text],
            language: loop.summary.language, sampleRate: source.sampleRate, channelCount: source.channelCount)
        return try TakeRecorder(source: source, draft: draft, folder: scratch)
    }

    /// The phrase a finished re-recording holds, cut by its silences, as a new take's clip; nil
    /// when nothing was recorded. The recorder's own files go.
    public func clip(from recorder: TakeRecorder) async throws -> EditorClip? {
        let scratch = self.scratch
        defer { recorder.delete() }
        return try await BlockingWork.run("loop edit re-record") {
            guard
                let result = try RecordingFinisher().finish(
                    rawPath: recorder.rawPath, draft: recorder.draft, phrasesRead: 1, into: scratch),
                let range = result.ranges.first
            else { return nil }
            let info = try AudioFileReader(path: result.takePath).info
            return EditorClip(
                take: result.takePath, sha256: nil, sampleRate: info.sampleRate, channelCount: info.channelCount,
                takeFrames: info.frameCount, frames: range)
        }
    }

    /// Saves the editor's phrases in one transaction.
    public func save(_ editor: PhraseEditor) async throws -> LoopDetail {
        let (store, id, revision, phrases) = (self.store, loopId, self.revision, editor.replacement)
        let (saved, restarted) = try await BlockingWork.run("loop edit save") {
            try store.replacePhrases(ofLoop: id, revision: revision, with: phrases)
        }
        savedRevision.withLock { $0 = saved.summary.revision }
        reviewsRestarted.withLock { $0 += restarted }
        return saved
    }

    /// Throws away the new takes no save took.
    public func close() {
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
