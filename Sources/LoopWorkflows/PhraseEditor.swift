import Foundation
import LoopAudioFiles
import LoopCutting
import LoopModel
import LoopPlayback
import LoopStore

/// A phrase's clip as the phrase editor holds it: a range of a take, stored in the library or
/// new (recorded again, or two clips joined) and stored when the editor saves.
public struct EditorClip: Sendable, Equatable {
    /// The take's file, absolute.
    public var take: String
    /// The stored take's SHA-256; nil for a new take.
    public var sha256: String?
    /// The take's sample rate (Hz).
    public var sampleRate: Int
    /// The take's channels.
    public var channelCount: Int
    /// The take's length in frames.
    public var takeFrames: Int
    /// The clip's frames in the take.
    public var frames: Range<Int>
    /// How sure the cutter was of its edges; nil once placed by hand (or recorded again).
    public var confidence: Double?

    /// A clip from its fields.
    public init(
        take: String, sha256: String?, sampleRate: Int, channelCount: Int, takeFrames: Int, frames: Range<Int>,
        confidence: Double? = nil
    ) {
        self.confidence = confidence
        self.take = take
        self.sha256 = sha256
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.takeFrames = takeFrames
        self.frames = frames
    }

    init(_ audio: PhraseAudio) {
        self.init(
            take: audio.path, sha256: audio.sha256, sampleRate: audio.sampleRate, channelCount: audio.channelCount,
            takeFrames: audio.takeFrameCount, frames: audio.startFrame..<audio.endFrame, confidence: audio.cutConfidence
        )
    }

    /// Whether the cutter was unsure of its edges: worth a listen.
    public var isDoubtful: Bool { confidence.map { $0 < Cut.lowConfidence } ?? false }

    /// Where the clip starts in the take, in seconds.
    public var startSeconds: Double { Double(frames.lowerBound) / Double(sampleRate) }
    /// Where it ends, in seconds.
    public var endSeconds: Double { Double(frames.upperBound) / Double(sampleRate) }

    /// The clip as the player plays it.
    var playable: TakeClip {
        TakeClip(take: take, sampleRate: sampleRate, channelCount: channelCount, frames: frames)
    }
}

/// A phrase in the phrase editor.
public struct EditorPhrase: Sendable, Equatable {
    /// The phrase's text.
    public var text: String
    /// Its translation, if any.
    public var translation: String?
    /// Its clip; nil while it needs audio.
    public var clip: EditorClip?

    /// A phrase from its parts.
    public init(text: String, translation: String?, clip: EditorClip?) {
        self.text = text
        self.translation = translation
        self.clip = clip
    }
}

/// Why an edit cannot be made: one line to show in the editor.
public struct PhraseEditorError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, in a line.
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The phrase editor's model: a loop's phrases in groups, the phrase at the cursor (and a place
/// in its text), edits that are undone and redone, and whether anything is unsaved. No I/O: the
/// screen, the sound and the library are the caller's.
public struct PhraseEditor: Sendable, Equatable {
    /// The groups and their phrases, as edited so far.
    public private(set) var groups: [[EditorPhrase]]
    /// The phrase at the cursor: its index across the loop (from 0).
    public private(set) var cursor = 0
    /// Where in the phrase's text a split goes: a character offset.
    public private(set) var textCursor = 0
    private var undone: [Snapshot] = []
    private var redone: [Snapshot] = []
    private var saved: [[EditorPhrase]]

    private struct Snapshot: Sendable, Equatable {
        var groups: [[EditorPhrase]]
        var cursor: Int
    }

    /// An editor over `loop`, at its first phrase.
    public init(_ loop: LoopDetail) {
        groups = loop.groups.map {
            $0.map { EditorPhrase(text: $0.text, translation: $0.translation, clip: $0.audio.map(EditorClip.init)) }
        }
        saved = groups
    }

    /// Every phrase, in reading order.
    public var phrases: [EditorPhrase] { groups.flatMap { $0 } }
    /// The phrase at the cursor.
    public var current: EditorPhrase { phrases[cursor] }
    /// The group (from 0) and the place in it of the phrase at `index`.
    public func place(of index: Int) -> (group: Int, offset: Int) {
        var remaining = index
        for (group, phrases) in groups.enumerated() {
            if remaining < phrases.count { return (group, remaining) }
            remaining -= phrases.count
        }
        return (max(groups.count - 1, 0), 0)
    }
    /// Whether there are edits not yet saved.
    public var hasUnsavedChanges: Bool { groups != saved }
    /// Whether there is an edit to undo.
    public var canUndo: Bool { !undone.isEmpty }
    /// Whether there is an undone edit to redo.
    public var canRedo: Bool { !redone.isEmpty }

    // MARK: Moving

    /// Moves the cursor `offset` phrases on (back when negative), within the loop.
    public mutating func move(phrases offset: Int) {
        cursor = min(max(cursor + offset, 0), phrases.count - 1)
        textCursor = 0
    }

    /// To the first phrase of the next (or an earlier) group.
    public mutating func move(groups offset: Int) {
        let group = min(max(place(of: cursor).group + offset, 0), groups.count - 1)
        cursor = groups[..<group].reduce(0) { $0 + $1.count }
        textCursor = 0
    }

    /// To the next phrase after the cursor (round to the first after the last) whose clip the
    /// cutter was unsure of; false, and the cursor stays, when no clip is doubtful.
    public mutating func moveToNextDoubtfulClip() -> Bool {
        let all = phrases
        for step in 1...all.count where all[(cursor + step) % all.count].clip?.isDoubtful == true {
            cursor = (cursor + step) % all.count
            textCursor = 0
            return true
        }
        return false
    }

    /// Moves the place in the text where a split goes, by characters.
    public mutating func moveInText(_ offset: Int) {
        textCursor = min(max(textCursor + offset, 0), current.text.count)
    }

    // MARK: Editing

    /// A clip's edge: its start or its end.
    public enum Edge: Sendable { case start, end }

    /// Moves the clip's start or end by `milliseconds` (negative: earlier), within its take and
    /// never past its other edge (at least 50 ms of clip stay). Boundaries never cross: an end
    /// moved past the start of the next phrase's clip in the same take pushes that start along
    /// (a start moved before the previous clip's end pushes that end), in the same step, as far
    /// as that clip keeps its 50 ms.
    public mutating func nudge(_ edge: Edge, milliseconds: Int) throws(PhraseEditorError) {
        guard var clip = current.clip else {
            throw PhraseEditorError("phrase \(cursor + 1) has no audio to nudge: record it (r)")
        }
        let delta = milliseconds * clip.sampleRate / 1000
        let least = clip.sampleRate / 20
        let all = phrases
        let index = cursor
        var neighbour: (index: Int, clip: EditorClip)?
        switch edge {
        case .start:
            var start = min(max(clip.frames.lowerBound + delta, 0), clip.frames.upperBound - least)
            if index > 0, var previous = all[index - 1].clip, previous.take == clip.take,
                previous.frames.upperBound <= clip.frames.lowerBound,
                start < previous.frames.upperBound
            {
                start = max(start, previous.frames.lowerBound + least)
                previous.frames = previous.frames.lowerBound..<start
                previous.confidence = nil
                neighbour = (index - 1, previous)
            }
            guard start != clip.frames.lowerBound else {
                throw PhraseEditorError("the start cannot move further that way")
            }
            clip.frames = start..<clip.frames.upperBound
        case .end:
            var end = max(min(clip.frames.upperBound + delta, clip.takeFrames), clip.frames.lowerBound + least)
            if index + 1 < all.count, var next = all[index + 1].clip, next.take == clip.take,
                next.frames.lowerBound >= clip.frames.upperBound,
                end > next.frames.lowerBound
            {
                end = min(end, next.frames.upperBound - least)
                next.frames = end..<next.frames.upperBound
                next.confidence = nil
                neighbour = (index + 1, next)
            }
            guard end != clip.frames.upperBound else { throw PhraseEditorError("the end cannot move further that way") }
            clip.frames = clip.frames.lowerBound..<end
        }
        clip.confidence = nil
        change { phrases in
            phrases[index].clip = clip
            if let neighbour { phrases[neighbour.index].clip = neighbour.clip }
        }
    }

    /// A second of the take on one side of the clip's `edge`: before it (`before`) or after it,
    /// to hear whether a cut there takes a word's end or leaves one out; nil without audio.
    public func second(_ before: Bool, _ edge: Edge) -> EditorClip? {
        guard var clip = current.clip else { return nil }
        let at = edge == .start ? clip.frames.lowerBound : clip.frames.upperBound
        let range = before ? max(at - clip.sampleRate, 0)..<at : at..<min(at + clip.sampleRate, clip.takeFrames)
        guard !range.isEmpty else { return nil }
        clip.frames = range
        return clip
    }

    /// Gives the phrase at the cursor a new clip (recorded again).
    public mutating func replaceClip(_ clip: EditorClip) {
        let index = cursor
        change { $0[index].clip = clip }
    }

    /// Splits the phrase at the cursor in two: its text at the text cursor, its clip at
    /// `frame` (the pause nearest that place in its audio, found by the caller), both halves in
    /// its group.
    public mutating func split(atFrame frame: Int?) throws(PhraseEditorError) {
        let phrase = current
        let characters = Array(phrase.text)
        guard textCursor > 0, textCursor < characters.count else {
            throw PhraseEditorError("put the text cursor (← →) where the phrase splits, inside its text")
        }
        let first = String(characters[..<textCursor]).trimmingCharacters(in: .whitespaces)
        let second = String(characters[textCursor...]).trimmingCharacters(in: .whitespaces)
        guard !first.isEmpty, !second.isEmpty else { throw PhraseEditorError("both halves need text") }
        var head = EditorPhrase(text: first, translation: phrase.translation, clip: phrase.clip)
        var tail = EditorPhrase(text: second, translation: nil, clip: nil)
        if let clip = phrase.clip, let frame {
            guard clip.frames.lowerBound < frame, frame < clip.frames.upperBound else {
                throw PhraseEditorError("the split must fall inside the clip")
            }
            head.clip?.frames = clip.frames.lowerBound..<frame
            head.clip?.confidence = nil
            var second = clip
            second.frames = frame..<clip.frames.upperBound
            second.confidence = nil
            tail.clip = second
        }
        let (group, offset) = place(of: cursor)
        record()
        groups[group].replaceSubrange(offset...offset, with: [head, tail])
        textCursor = 0
    }

    /// Merges the phrase at the cursor with the next one (across a group's end too): their texts
    /// joined, their clips joined (`joined`: one range of one take when both lie in order in the
    /// same take, else a new take the caller made of both).
    public mutating func mergeWithNext(joined: EditorClip?) throws(PhraseEditorError) {
        guard cursor + 1 < phrases.count else {
            throw PhraseEditorError("the last phrase has no next one to merge with")
        }
        let (group, offset) = place(of: cursor)
        let next = place(of: cursor + 1)
        let a = current
        let b = phrases[cursor + 1]
        let translation = [a.translation, b.translation].compactMap { $0 }.joined(separator: " ")
        var joined = joined
        joined?.confidence = nil
        let merged = EditorPhrase(
            text: a.text + " " + b.text, translation: translation.isEmpty ? nil : translation, clip: joined)
        record()
        groups[next.group].remove(at: next.offset)
        groups[group][offset] = merged
        groups.removeAll { $0.isEmpty }
        textCursor = 0
    }

    /// The clip two phrases' clips make as one range: when both lie in one take, in order.
    public static func contiguous(_ a: EditorClip?, _ b: EditorClip?) -> EditorClip? {
        guard var a, let b, a.take == b.take, a.frames.upperBound <= b.frames.lowerBound else { return nil }
        a.frames = a.frames.lowerBound..<b.frames.upperBound
        return a
    }

    /// Takes back the last edit.
    public mutating func undo() {
        guard let last = undone.popLast() else { return }
        redone.append(Snapshot(groups: groups, cursor: cursor))
        (groups, cursor) = (last.groups, last.cursor)
        textCursor = 0
    }

    /// Makes the last edit taken back again.
    public mutating func redo() {
        guard let next = redone.popLast() else { return }
        undone.append(Snapshot(groups: groups, cursor: cursor))
        (groups, cursor) = (next.groups, next.cursor)
        textCursor = 0
    }

    /// Marks the phrases as `version` had them as saved (edits made since stay unsaved).
    public mutating func markSaved(as version: PhraseEditor) { saved = version.groups }

    /// The phrases as the library saves them.
    public var replacement: [[ReplacementPhrase]] {
        groups.map { group in
            group.map { phrase in
                ReplacementPhrase(
                    text: phrase.text, translation: phrase.translation,
                    clip: phrase.clip.map { clip in
                        clip.sha256.map { .stored(sha256: $0, frames: clip.frames) }
                            ?? .newTake(path: clip.take, frames: clip.frames)
                    })
            }
        }
    }

    private mutating func record() {
        undone.append(Snapshot(groups: groups, cursor: cursor))
        redone.removeAll()
    }

    /// Applies `edit` to the flat list of phrases, as one undoable step.
    private mutating func change(_ edit: (inout [EditorPhrase]) -> Void) {
        record()
        var flat = phrases
        edit(&flat)
        var index = 0
        for g in groups.indices {
            for p in groups[g].indices {
                groups[g][p] = flat[index]
                index += 1
            }
        }
    }
}

/// The audio work of the phrase editor: pauses to split at, clips joined into a new take.
public enum PhraseEditorAudio {
    /// The quietest 100 ms in the middle 80% of `clip` nearest `estimate` (a frame): where a
    /// phrase read with a pause inside splits. `envelope` is its take's.
    public static func pause(in envelope: EnergyEnvelope, clip: Range<Int>, near estimate: Int) -> Int {
        let hop = envelope.hopFrames
        let margin = clip.count / 10
        let from = (clip.lowerBound + margin) / hop
        let to = (clip.upperBound - margin) / hop
        guard to - from > 10, !envelope.levels.isEmpty else {
            return min(max(estimate, clip.lowerBound + 1), clip.upperBound - 1)
        }
        let window = 10
        var best = from
        var bestScore = Float.infinity
        for start in from..<(to - window) where start + window <= envelope.levels.count {
            let level = envelope.levels[start..<(start + window)].reduce(0, +) / Float(window)
            // A little for distance, so that of two equal pauses the nearer wins.
            let distance = Float(abs((start + window / 2) * hop - estimate)) / Float(max(clip.count, 1))
            let score = level + distance * 6
            if score < bestScore {
                bestScore = score
                best = start
            }
        }
        return min(max((best + window / 2) * hop, clip.lowerBound + 1), clip.upperBound - 1)
    }

    /// A new FLAC take in `folder` holding `a`'s clip, 300 ms of silence and `b`'s clip (both of
    /// the same rate and channels); the clip that covers all of it.
    public static func join(_ a: EditorClip, _ b: EditorClip, in folder: String) throws -> EditorClip {
        guard a.sampleRate == b.sampleRate, a.channelCount == b.channelCount else {
            throw PhraseEditorError("the two clips differ in rate or channels: record the merged phrase again (r)")
        }
        let path = folder + "/joined-\(UUID().uuidString.prefix(8)).flac"
        var writer = try AudioFileWriter(
            path: path, format: .flac, sampleRate: a.sampleRate, channelCount: a.channelCount)
        var total = 0
        for (index, clip) in [a, b].enumerated() {
            if index == 1 {
                let silence = [Float](repeating: 0, count: a.sampleRate * 3 / 10 * a.channelCount)
                try silence.withUnsafeBufferPointer { try writer.write($0) }
                total += silence.count / a.channelCount
            }
            var reader = try AudioFileReader(path: clip.take)
            try reader.seek(toFrame: clip.frames.lowerBound)
            var remaining = clip.frames.count
            var buffer = [Float](repeating: 0, count: 8_192 * clip.channelCount)
            while remaining > 0 {
                let read = try buffer.withUnsafeMutableBufferPointer { pointer in
                    try reader.read(
                        into: UnsafeMutableBufferPointer(
                            rebasing: pointer[..<(min(remaining, 8_192) * clip.channelCount)]))
                }
                guard read > 0 else { break }
                try buffer.withUnsafeBufferPointer {
                    try writer.write(UnsafeBufferPointer(rebasing: $0[..<(read * clip.channelCount)]))
                }
                remaining -= read
                total += read
            }
        }
        try writer.commit()
        return EditorClip(
            take: path, sha256: nil, sampleRate: a.sampleRate, channelCount: a.channelCount, takeFrames: total,
            frames: 0..<total)
    }
}
