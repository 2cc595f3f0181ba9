import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopModel
import LoopPlayback
import LoopRecording
import LoopStore
import LoopText
import Synchronization

// Editing a loop: its details, its text through a draft an editor changes, its pictures, a
// clip's edges, and its phrases on the phrase editor's screen.

/// `loop edit`: a loop's title, language or tags, its text in an editor, or its phrases on
/// the phrase editor's screen.
public struct EditRequest: Sendable {
    /// The loop: an id, a start of it, a title or a start of it.
    public var loop: String
    /// A new title.
    public var title: String?
    /// A new language tag.
    public var language: String?
    /// Tags to add.
    public var addTags: [String] = []
    /// Tags to take off.
    public var removeTags: [String] = []
    /// A phrase whose text changes loses its clip (else it keeps it, marked as recorded for
    /// its earlier text).
    public var dropChangedAudio = false
    /// The phrase editor rather than the text.
    public var phrases = false
    /// With `phrases`: where it plays, and where and at what rate it records again.
    public var device = "default", captureDevice = "default", rate = 48_000

    /// An edit of `loop`'s text, in the person's editor.
    public init(loop: String) { self.loop = loop }

    /// Whether it changes details alone.
    public var changesDetails: Bool { title != nil || language != nil || !addTags.isEmpty || !removeTags.isEmpty }

    /// Refuses an edit that cannot be made (a language tag that is not one, options that exclude each other).
    public func check() throws(RequestProblem) {
        try checkLanguage(language, field: "language")
        try RequestProblem.check(
            phrases && (changesDetails || dropChangedAudio),
            RequestProblem(
                "{phrases} opens the phrase editor; give {title}, {language}, {tag}, {untag} or {dropChangedAudio} without it"
            ))
        try RequestProblem.check(
            !RecordRequest.rates.contains(rate), RequestProblem("{rate} takes 8000 to 192000 (Hz), not \(rate)"))
    }
}

/// What an edit did.
public enum EditOutcomeKind: Sendable {
    /// The details changed.
    case details(LoopDetail)
    /// The text was left as it was.
    case unchangedText
    /// The text changed: phrases that kept a clip of their earlier text, phrases needing audio.
    case text(EditOutcome, loopId: String)
    /// The phrase editor saved (nil: nothing saved), and how many groups being reviewed changed
    /// their text.
    case phrases(LoopDetail?, reviewsRestarted: Int)
}

/// A clip's edges moved, in seconds within its take, or both by an offset.
public struct AdjustRequest: Sendable {
    /// The loop: an id, a start of it, a title or a start of it.
    public var loop: String
    /// 1-based, across the loop.
    public var phrase: Int
    public var start: Double?, end: Double?
    /// Milliseconds (negative: earlier).
    public var shift: Double?

    /// A move of `phrase`'s clip: its edges to `start` and `end`, or both by `shift`.
    public init(loop: String, phrase: Int, start: Double? = nil, end: Double? = nil, shift: Double? = nil) {
        (self.loop, self.phrase, self.start, self.end, self.shift) = (loop, phrase, start, end, shift)
    }

    /// The longest take a clip can lie in (a day), and the furthest a shift moves it (an hour).
    public static let maxSeconds = 86_400.0, maxShiftMilliseconds = 3_600_000.0

    /// Refuses edges that are not numbers, lie past a day, or come with a shift.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(
            shift != nil && (start != nil || end != nil), RequestProblem("give {shift}, or {start}/{end}, not both"))
        try RequestProblem.check(
            shift == nil && start == nil && end == nil, RequestProblem("give {start}, {end} or {shift}"))
        try RequestProblem.check(phrase < 1, RequestProblem("the phrase number starts at 1, not \(phrase)"))
        for (name, value) in [("start", start), ("end", end)] {
            if let value {
                try RequestProblem.check(
                    !(value.isFinite && (0...Self.maxSeconds).contains(value)),
                    RequestProblem("{\(name)} takes seconds from 0 to \(Int(Self.maxSeconds)), not \(value)"))
            }
        }
        if let shift {
            try RequestProblem.check(
                !(shift.isFinite && abs(shift) <= Self.maxShiftMilliseconds),
                RequestProblem(
                    "{shift} takes milliseconds from -\(Int(Self.maxShiftMilliseconds)) to \(Int(Self.maxShiftMilliseconds)), not \(shift)"
                ))
        }
    }
}

/// A picture for a loop, a group or a phrase, or taken off.
public struct PictureRequest: Sendable {
    /// The loop: an id, a start of it, a title or a start of it.
    public var loop: String
    /// The picture file (nil with `remove`).
    public var file: String?
    /// The group or phrase (1-based) to give it to, rather than the loop.
    public var group: Int?, phrase: Int?
    /// Take the picture off rather than give one.
    public var remove = false

    /// A picture for `loop` (or its `group` or `phrase`), or one taken off.
    public init(loop: String, file: String?, group: Int? = nil, phrase: Int? = nil, remove: Bool = false) {
        (self.loop, self.file, self.group, self.phrase, self.remove) = (loop, file, group, phrase, remove)
    }

    /// Refuses a request for both a group and a phrase, or with neither a file nor `remove`.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(group != nil && phrase != nil, .exclusive("group", "phrase"))
        try RequestProblem.check(remove && file != nil, RequestProblem("give a picture file, or {remove}, not both"))
        try RequestProblem.check(!remove && file == nil, RequestProblem("give a picture file (or {remove})"))
        if let group { try RequestProblem.check(group < 1, RequestProblem("{group} starts at 1, not \(group)")) }
        if let phrase { try RequestProblem.check(phrase < 1, RequestProblem("{phrase} starts at 1, not \(phrase)")) }
    }
}

/// How the interface edits: the loop's text in the person's editor (a file to change), and
/// the phrase editor's screen (the editor as left, and whether to save it).
public struct EditDrivers: Sendable {
    /// Opens `draft` (a file of the loop's text) in the person's editor and returns once they are done.
    public var text: @Sendable (_ draft: String) throws -> Void
    /// Runs the phrase editor's screen over a session; the editor as left, and whether to save it.
    public var phrases: @Sendable (PhraseEditingSession) async throws -> (PhraseEditor, save: Bool)

    /// How the interface edits.
    public init(
        text: @escaping @Sendable (_ draft: String) throws -> Void,
        phrases: @escaping @Sendable (PhraseEditingSession) async throws -> (PhraseEditor, save: Bool)
    ) {
        (self.text, self.phrases) = (text, phrases)
    }
}

extension Library {
    /// Edits a loop as `request` says: its details, or its text in `drivers.text`'s editor
    /// (unchanged phrases keep their audio; a phrase changed in place keeps its clip, marked as
    /// recorded for its earlier text, or loses it), or its phrases on `drivers.phrases`'s screen
    /// (saved in one transaction).
    public func edit(_ request: EditRequest, drivers: EditDrivers, progress: WorkProgress? = nil) async throws
        -> EditOutcomeKind
    {
        try request.check()
        let id = try resolve(request.loop)
        if request.phrases {
            let session = try PhraseEditingSession(
                library: self, loop: id, playbackDevice: request.device,
                capture: { [device = request.captureDevice, rate = request.rate] in
                    try CaptureSource(device: device, sampleRate: rate, channelCount: 1)
                })
            defer { session.close() }
            let measuring = progress.map { report in { @Sendable (fraction: Double) in report(.loading, fraction) } }
            try await session.measureTakes(progress: measuring)
            let (editor, save) = try await drivers.phrases(session)
            guard save, editor.hasUnsavedChanges else { return .phrases(nil, reviewsRestarted: 0) }
            let saved = try await session.save(editor)
            return .phrases(saved, reviewsRestarted: session.reviewsRestartedSoFar)
        }
        if request.changesDetails {
            return .details(
                try store.updateMetadata(
                    ofLoop: id, title: request.title, language: request.language, addTags: request.addTags,
                    removeTags: request.removeTags))
        }
        let draft = try beginTextEdit(loop: id)
        do {
            try drivers.text(draft.path)
        } catch let error as DescribedError where !draft.isUnchanged {
            throw WorkflowError(
                .editorFailed, path: nil, message: error.description + "; your text is kept in \(draft.keep())")
        }
        guard case .edited(let outcome) = try finishTextEdit(draft, dropChangedAudio: request.dropChangedAudio) else {
            return .unchangedText
        }
        return .text(outcome, loopId: id)
    }

    /// Gives the loop, a group or a phrase the picture (checked, then stored), or takes it off.
    @discardableResult
    public func setPicture(_ request: PictureRequest) async throws -> LoopDetail {
        try request.check()
        let id = try resolve(request.loop)
        let place: PicturePlace = request.group.map { .group($0) } ?? request.phrase.map { .phrase($0) } ?? .loop
        let file = request.remove ? nil : request.file
        return try await work("loop image") { try $0.setPicture(file, ofLoop: id, at: place) }
    }

    /// Moves a phrase's clip within its take; the take is not re-encoded.
    @discardableResult
    public func adjust(_ request: AdjustRequest) async throws -> StoredPhrase {
        try request.check()
        let id = try resolve(request.loop)
        return try await work("loop adjust") { store in
            let detail = try store.loop(id: id)
            let number = request.phrase
            guard (1...max(detail.phrases.count, 1)).contains(number), number <= detail.phrases.count else {
                throw LibraryError(.phraseNotFound, "the loop has \(detail.phrases.count) phrases, not \(number)")
            }
            guard let audio = detail.phrases[number - 1].audio else {
                throw LibraryError(.phraseHasNoAudio, "phrase \(number) has no audio yet")
            }
            return try store.adjust(loop: id, phrase: number, to: try Self.frames(of: audio, after: request))
        }
    }

    /// The clip's frames after `request`'s change (seconds and milliseconds become frames here).
    static func frames(of audio: PhraseAudio, after request: AdjustRequest) throws -> Range<Int> {
        let rate = Double(audio.sampleRate)
        let current = audio.startFrame..<audio.endFrame
        if let milliseconds = request.shift {
            let frames = Int((milliseconds / 1000 * rate).rounded())
            return (current.lowerBound + frames)..<(current.upperBound + frames)
        }
        let newStart = request.start.map { Int(($0 * rate).rounded()) } ?? current.lowerBound
        let newEnd = request.end.map { Int(($0 * rate).rounded()) } ?? current.upperBound
        guard newStart < newEnd else {
            throw LibraryError(
                .invalidRange,
                String(
                    format: "the start (%.3f s) must come before the end (%.3f s)", Double(newStart) / rate,
                    Double(newEnd) / rate))
        }
        return newStart..<newEnd
    }
}

// MARK: - The text, through a draft

/// A loop's text written to a file for an editor, in a scratch folder of its own
/// (`$TMPDIR/loop-edit-*`): removed when the edit is done, or by the next edit if this process
/// is killed first. Text that could not be saved is kept beside it (``keep()``).
final class TextDraft: Sendable {
    let loopId: String
    /// The file to edit.
    let path: String
    /// The text as it was when the draft was written.
    let original: String
    private let folder: ScratchFolder

    init(loopId: String, original: String) throws {
        // The temporary folder must be there: it is not made.
        if let problem = TemporaryFolder.problem { throw POSIXError(problem == "missing" ? .ENOENT : .ENOTDIR) }
        folder = try ScratchFolder(in: TemporaryFolder.path, prefix: "loop-edit-")
        self.loopId = loopId
        self.original = original
        path = LibraryLayout.editDraft(loopId: loopId, in: folder.path)
    }

    /// Moves the draft out of its scratch folder, where it outlives the edit, and returns
    /// where: `$TMPDIR/loop-edit-<id>-<random>.txt`.
    func keep() -> String {
        let parent = (folder.path as NSString).deletingLastPathComponent
        let kept = LibraryLayout.editDraft(loopId: loopId, in: parent)
        return rename(path, kept) == 0 ? kept : path
    }

    /// Whether the draft holds the text it was written with (the editor changed nothing).
    var isUnchanged: Bool {
        FileManager.default.contents(atPath: path).map { $0 == Data(original.utf8) } ?? true
    }
}

extension Library {
    /// What saving an edited draft did.
    enum TextEdit: Sendable {
        /// The text did not change; the draft is removed.
        case unchanged
        case edited(EditOutcome)
    }

    /// Writes the loop's text to a draft file (in the system's temporary folder) to edit.
    func beginTextEdit(loop id: String) throws -> TextDraft {
        let detail = try store.loop(id: id)
        let draft: TextDraft
        do {
            draft = try TextDraft(loopId: id, original: detail.sourceText)
            try DurableFile.write(Data(detail.sourceText.utf8), to: draft.path)
        } catch {
            throw WorkflowError(
                .draftUnwritable, path: TemporaryFolder.path,
                message:
                    "cannot write the draft to edit (\(FileSystemError.reason(error))); set TMPDIR to a folder you can write; the loop is unchanged"
            )
        }
        return draft
    }

    /// Reads the edited draft back and, when it changed and parses, replaces the loop's text.
    /// Text that does not parse changes nothing, and the draft is kept for another try.
    func finishTextEdit(_ draft: TextDraft, dropChangedAudio: Bool = false) throws -> TextEdit {
        guard let bytes = FileManager.default.contents(atPath: draft.path) else {
            throw WorkflowError(
                .draftUnreadable, path: draft.path, message: "the editor left no draft to read; the loop is unchanged")
        }
        guard let edited = String(data: bytes, encoding: .utf8) else {
            throw WorkflowError(
                .draftUnreadable, path: draft.keep(),
                message:
                    "the editor saved text that is not UTF-8; the loop is unchanged and your text is kept in that file (save it as UTF-8, then edit the loop again and copy it back)"
            )
        }
        guard edited != draft.original else { return .unchanged }
        let source: LoopSource
        do {
            source = try LoopSource(parsing: edited)
        } catch {
            throw LoopSourceError(
                .invalid, path: draft.keep(), line: error.line,
                message: error.message + "; the loop is unchanged and your text is kept in that file")
        }
        return .edited(
            try store.replaceSource(
                ofLoop: draft.loopId, with: source, text: edited, dropChangedAudio: dropChangedAudio))
    }
}

// MARK: - The phrase editor

/// A take's loudness for the phrase editor's waveform: the level (dBFS) of each hop of frames.
public struct TakeLevels: Sendable {
    /// The take's length in frames.
    public var frameCount: Int
    /// Frames a level stands for.
    public var hopFrames: Int
    /// Each hop's level, dBFS.
    public var levels: [Float]
}

/// The phrase editor's work with the library: the loop to edit, its takes' loudness (for the
/// waveform strip and the pauses to split at), its clips played, a phrase recorded again, clips
/// joined, and everything saved in one transaction.
public final class PhraseEditingSession: Sendable {
    let library: Library
    /// The loop being edited.
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
    /// The loop's title.
    public let title: String
    private let envelopes = Mutex<[String: EnergyEnvelope]>([:])
    private let player: ClipPlayer
    private let capture: @Sendable () throws -> any RecordingSource
    private let rerecording = Mutex<TakeRecorder?>(nil)

    package init(
        library: Library, loop id: String, playbackDevice: String = "default",
        capture: @escaping @Sendable () throws -> any RecordingSource = {
            try CaptureSource(device: "default", sampleRate: 48_000, channelCount: 1)
        }
    ) throws {
        self.library = library
        loopId = id
        let loop = try library.store.loop(id: id)
        title = loop.summary.title
        savedRevision = Mutex(loop.summary.revision)
        scratch = library.store.scratchFolder(named: "edit")
        player = ClipPlayer(device: playbackDevice)
        self.capture = capture
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    /// The editor's model for the loop as stored now.
    public func editor() throws -> PhraseEditor { PhraseEditor(try library.store.loop(id: loopId)) }

    /// Measures the energy of every take the loop's clips lie in, off the caller's thread, so
    /// that the editor's screen (its waveform strip, its splits) never waits on a long take.
    func measureTakes(progress: (@Sendable (Double) -> Void)? = nil) async throws {
        let takes = Set(try library.store.loop(id: loopId).phrases.compactMap { $0.audio?.path }).sorted()
        try await BlockingWork.run("loop edit measure") {
            // One long take is the usual case: the bar moves within each take, not only between them.
            let share = 1 / Double(max(takes.count, 1))
            for (index, take) in takes.enumerated() {
                _ = try self.envelope(of: take) { done in progress?((Double(index) + done) * share) }
            }
        }
    }

    /// The energy envelope of a take (measured once, then kept).
    func envelope(of take: String, progress: (@Sendable (Double) -> Void)? = nil) throws -> EnergyEnvelope {
        if let known = envelopes.withLock({ $0[take] }) { return known }
        let measured = try EnergyEnvelope.measure(path: take, progress: progress)
        envelopes.withLock { $0[take] = measured }
        return measured
    }

    /// A take's loudness (measured once, then kept).
    public func levels(of take: String) throws -> TakeLevels {
        let envelope = try envelope(of: take)
        return TakeLevels(frameCount: envelope.frameCount, hopFrames: envelope.hopFrames, levels: envelope.levels)
    }

    /// Plays `clip`, or the `frames` of its take, at once (what played before stops).
    public func play(_ clip: EditorClip, frames: Range<Int>? = nil) {
        var playable = clip.playable
        if let frames { playable.frames = frames }
        player.play(playable)
    }

    /// Stops what plays.
    public func stopPlaying() { player.stop() }

    /// Why the last sound could not be played, once.
    public func playbackFailure() -> String? { player.takeFailure() }

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
        let a = phrases[editor.cursor].clip
        let b = phrases[editor.cursor + 1].clip
        if let same = PhraseEditor.contiguous(a, b) { return same }
        guard let a, let b else { return nil }
        return try PhraseEditorAudio.join(a, b, in: scratch)
    }

    /// Starts recording the phrase at the cursor alone; its controls, for the screen.
    public func rerecord(_ editor: PhraseEditor) throws -> any RecordingControls {
        let loop = try library.store.loop(id: loopId)
        let source = try capture()
        let draft = RecordingDraft(
            loopId: loopId, phraseIds: [loop.phrases.first?.id ?? 0], phraseTexts: [editor.current.text],
            language: loop.summary.language, sampleRate: source.sampleRate, channelCount: source.channelCount)
        let recorder = try TakeRecorder(source: source, draft: draft, folder: scratch)
        rerecording.withLock { $0 = recorder }
        return recorder
    }

    /// The phrase the finished re-recording holds, cut by its silences, as a new take's clip; nil
    /// when nothing was recorded. The recorder's own files go.
    public func rerecordedClip() async throws -> EditorClip? {
        guard let recorder = rerecording.withLock({ $0 }) else { return nil }
        rerecording.withLock { $0 = nil }
        let scratch = self.scratch
        defer { recorder.delete() }
        return try await BlockingWork.run("loop edit re-record") {
            guard
                let result = try RecordingFinisher(synthesizer: Library.synthesizer).finish(
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
        let (id, revision, phrases) = (loopId, self.revision, editor.replacement)
        let (saved, restarted) = try await library.work("loop edit save") { store in
            try store.replacePhrases(ofLoop: id, revision: revision, with: phrases)
        }
        savedRevision.withLock { $0 = saved.summary.revision }
        reviewsRestarted.withLock { $0 += restarted }
        return saved
    }

    /// Throws away the new takes no save took.
    func close() {
        player.stop()
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
