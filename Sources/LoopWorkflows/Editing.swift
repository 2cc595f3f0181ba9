import Foundation
import LoopFoundation
import LoopModel
import LoopStore
import LoopText

/// Editing a loop: its clip boundaries in seconds, and its text through a draft file that an
/// editor changes.
public struct EditingWorkflow: Sendable {
    let store: LibraryStore

    package init(store: LibraryStore) {
        self.store = store
    }

    /// How to move a clip: to new bounds (seconds within its take), or by an offset.
    public enum ClipChange: Sendable, Equatable {
        case bounds(start: Double?, end: Double?)
        case shift(milliseconds: Double)
    }

    /// Gives the loop, a group or a phrase the picture at `file` (checked, then stored), or
    /// takes it off (nil).
    @discardableResult
    public func setPicture(_ file: String?, ofLoop id: String, at place: PicturePlace) async throws -> LoopDetail {
        let store = self.store
        return try await BlockingWork.run("loop image") { try store.setPicture(file, ofLoop: id, at: place) }
    }

    /// Moves phrase `number`'s clip within its take; the take is not re-encoded.
    @discardableResult
    public func adjust(loop id: String, phrase number: Int, _ change: ClipChange) async throws -> StoredPhrase {
        let store = self.store
        return try await BlockingWork.run("loop adjust") {
            let detail = try store.loop(id: id)
            guard (1...max(detail.phrases.count, 1)).contains(number), number <= detail.phrases.count else {
                throw LibraryError(.phraseNotFound, "the loop has \(detail.phrases.count) phrases, not \(number)")
            }
            guard let audio = detail.phrases[number - 1].audio else {
                throw LibraryError(.phraseHasNoAudio, "phrase \(number) has no audio yet")
            }
            let range = try Self.frames(of: audio, after: change)
            return try store.adjust(loop: id, phrase: number, to: range)
        }
    }

    /// The clip's frames after `change` (seconds and milliseconds become frames here).
    static func frames(of audio: PhraseAudio, after change: ClipChange) throws -> Range<Int> {
        let rate = Double(audio.sampleRate)
        let current = audio.startFrame..<audio.endFrame
        switch change {
        case .shift(let milliseconds):
            let frames = Int((milliseconds / 1000 * rate).rounded())
            return (current.lowerBound + frames)..<(current.upperBound + frames)
        case .bounds(let start, let end):
            let newStart = start.map { Int(($0 * rate).rounded()) } ?? current.lowerBound
            let newEnd = end.map { Int(($0 * rate).rounded()) } ?? current.upperBound
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

    /// A loop's text written to a file for an editor, in a scratch folder of its own
    /// (`$TMPDIR/loop-edit-*`): removed when the edit is done, or by the next edit if this
    /// process is killed first. Text that could not be saved is kept beside it (``keep()``).
    public final class TextDraft: Sendable {
        public let loopId: String
        /// The file to edit.
        public let path: String
        /// The text as it was when the draft was written.
        public let original: String
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
        public func keep() -> String {
            let parent = (folder.path as NSString).deletingLastPathComponent
            let kept = LibraryLayout.editDraft(loopId: loopId, in: parent)
            return rename(path, kept) == 0 ? kept : path
        }

        /// Whether the draft holds the text it was written with (the editor changed nothing).
        public var isUnchanged: Bool {
            FileManager.default.contents(atPath: path).map { $0 == Data(original.utf8) } ?? true
        }
    }

    /// What saving an edited draft did.
    public enum TextEdit: Sendable {
        /// The text did not change; the draft is removed.
        case unchanged
        case edited(EditOutcome)
    }

    /// Writes the loop's text to a draft file (in the system's temporary folder) to edit.
    public func beginTextEdit(loop id: String) throws -> TextDraft {
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

    /// Reads the edited draft back and, when it changed and parses, replaces the loop's text:
    /// unchanged phrases keep their audio; a phrase changed in place keeps its clip, marked as
    /// recorded for its earlier text (or loses it, `dropChangedAudio`). Text that does not
    /// parse changes nothing, and the draft is kept for another try.
    public func finishTextEdit(_ draft: TextDraft, dropChangedAudio: Bool = false) throws -> TextEdit {
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
