import Foundation
import LoopModel
import LoopPlayback
import LoopStore
import LoopStudy
import LoopTestSupport
import LoopText
import Testing

@testable import LoopWorkflows

struct PhraseEditorTests {
    func fixtureLoop() throws -> (LibraryStore, LoopDetail) {
        let library = try LibraryStore(at: scratch())
        return (
            library,
            try library.createLoop(
                source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: Fixture.ranges))
        )
    }

    @Test func nudgesStayInsideTheTakeAndUndoRedoWalkTheSteps() throws {
        let (_, loop) = try fixtureLoop()
        var editor = PhraseEditor(loop)
        #expect(!editor.hasUnsavedChanges && !editor.canUndo)
        try editor.nudge(.start, milliseconds: -50)
        #expect(editor.current.clip?.frames == 5_280..<26_600 && editor.hasUnsavedChanges)
        try editor.nudge(.end, milliseconds: 10)
        #expect(editor.current.clip?.frames == 5_280..<26_760)
        // Past the take's start it stops at 0; then it cannot move further.
        for _ in 0..<10 { try? editor.nudge(.start, milliseconds: -50) }
        #expect(editor.current.clip?.frames.lowerBound == 0)
        #expect(throws: PhraseEditorError.self) { try editor.nudge(.start, milliseconds: -10) }
        editor.undo()
        editor.undo()
        #expect(editor.current.clip?.frames.lowerBound == 1_280, "two steps back: 0, then 480, then 1280")
        editor.redo()
        #expect(editor.current.clip?.frames.lowerBound == 480)
        while editor.canUndo { editor.undo() }
        #expect(!editor.hasUnsavedChanges, "back where it started: nothing to save")
    }

    /// Moving a boundary past its neighbour's never makes two clips overlap: the neighbour's
    /// edge goes along, in the same undoable step, as far as the neighbour keeps 50 ms.
    @Test func boundariesNeverCrossAndANudgePushesTheNeighboursEdge() throws {
        let (_, loop) = try fixtureLoop()
        var editor = PhraseEditor(loop)
        let first = try #require(editor.phrases[0].clip)
        let second = try #require(editor.phrases[1].clip)
        #expect(first.frames.upperBound <= second.frames.lowerBound)
        // The end of phrase 1 moved 100 ms at a time until it stops.
        var steps = 0
        while (try? editor.nudge(.end, milliseconds: 100)) != nil { steps += 1 }
        let end = try #require(editor.phrases[0].clip).frames.upperBound
        let next = try #require(editor.phrases[1].clip).frames
        #expect(end == next.lowerBound, "the next clip starts where this one ends: \(end), \(next)")
        #expect(
            next.count == 16_000 / 20 && next.upperBound == second.frames.upperBound,
            "the next clip keeps 50 ms and its own end: \(next)")
        #expect(steps > 0 && editor.phrases[1].clip?.confidence == nil)
        // One step back undoes both edges.
        editor.undo()
        let undoneEnd = try #require(editor.phrases[0].clip).frames.upperBound
        #expect(undoneEnd < end && editor.phrases[1].clip?.frames.lowerBound ?? 0 >= undoneEnd)
        while editor.canUndo { editor.undo() }
        // The start of phrase 2 moved back over phrase 1's end pushes it back too.
        editor.move(phrases: 1)
        while (try? editor.nudge(.start, milliseconds: -100)) != nil {}
        let previous = try #require(editor.phrases[0].clip).frames
        let start = try #require(editor.phrases[1].clip).frames.lowerBound
        #expect(
            previous.upperBound == start && previous.count == 16_000 / 20
                && previous.lowerBound == first.frames.lowerBound, "\(previous), \(start)")
        for (a, b) in zip(editor.phrases, editor.phrases.dropFirst()) {
            if let a = a.clip, let b = b.clip {
                #expect(a.frames.upperBound <= b.frames.lowerBound, "\(a.frames) then \(b.frames)")
            }
        }
    }

    /// `b` and `n` (`B`, `N`) hear the second of the take before and after a clip's end (start).
    @Test func theSecondsAroundAnEdgeAreOfTheTake() throws {
        let (_, loop) = try fixtureLoop()
        var editor = PhraseEditor(loop)
        editor.move(phrases: 1)
        let clip = try #require(editor.current.clip)
        #expect(editor.second(true, .end)?.frames == clip.frames.upperBound - 16_000..<clip.frames.upperBound)
        #expect(editor.second(false, .end)?.frames == clip.frames.upperBound..<clip.frames.upperBound + 16_000)
        #expect(editor.second(true, .start)?.frames == clip.frames.lowerBound - 16_000..<clip.frames.lowerBound)
        #expect(editor.second(false, .start)?.frames == clip.frames.lowerBound..<clip.frames.lowerBound + 16_000)
        #expect(editor.second(true, .end)?.take == clip.take)
        editor.move(phrases: -1)
        let head = try #require(editor.current.clip)
        #expect(
            editor.second(true, .start)?.frames == max(head.frames.lowerBound - 16_000, 0)..<head.frames.lowerBound,
            "stops at the take's start")
    }

    /// The cutter's doubts are kept with each clip: `d` in the editor goes from one doubtful clip
    /// to the next, a clip moved by hand is doubtful no more, and the save keeps the doubts of
    /// the clips not touched.
    @Test func oneKeyGoesToTheNextDoubtfulCutAndAMovedClipIsNoLongerDoubtful() async throws {
        let library = try LibraryStore(at: scratch())
        // Phrases 2 and 3 part at a doubtful cut (0.4), phrase 5 starts after one (0.5).
        let loop = try library.createLoop(
            source: try Fixture.source,
            take: CutTake(
                path: Fixture.path("clean.flac"), ranges: Fixture.ranges,
                confidences: [0.9, 0.4, 0.4, 0.5, 0.5]))
        #expect(loop.phrases.map { $0.audio?.cutConfidence } == [0.9, 0.4, 0.4, 0.5, 0.5])
        let workflow = try PhraseEditingSession(library: Library(store: library), loop: loop.summary.id)
        defer { workflow.close() }
        var editor = try workflow.editor()
        var visited: [Int] = []
        for _ in 0..<5 {
            if editor.moveToNextDoubtfulClip() { visited.append(editor.cursor) }
        }
        #expect(visited == [1, 2, 3, 4, 1], "each doubtful clip in turn, then round again")
        try editor.nudge(.end, milliseconds: 20)
        let moved = editor.moveToNextDoubtfulClip()
        #expect(moved && editor.cursor == 2, "the clip just moved is skipped from now on")
        let saved = try await workflow.save(editor)
        #expect(
            saved.phrases.map { $0.audio?.cutConfidence } == [0.9, nil, 0.4, 0.5, 0.5],
            "moved by hand: no longer the cutter's")

        var settled = try workflow.editor()
        for _ in 0..<3 { if settled.moveToNextDoubtfulClip() { try settled.nudge(.start, milliseconds: 10) } }
        let left = settled.moveToNextDoubtfulClip()
        #expect(!left, "every doubtful clip moved: none left")
    }

    @Test func splitAtAPauseAndMergeAcrossTakesThenSaveInOneStep() async throws {
        let (library, loop) = try fixtureLoop()
        let studied = loop.phrases[4]
        try library.recordStudy(
            loop: loop.summary.id, startedAt: Date(),
            phrases: [PhraseStudyRecord(phraseId: studied.id, seconds: 12, repetitions: 3)],
            replay: ReviewSettings.replay)
        let workflow = try PhraseEditingSession(library: Library(store: library), loop: loop.summary.id)
        defer { workflow.close() }
        var editor = try workflow.editor()
        // "Où est la gare, s'il vous plaît ?" split after the comma: at the pause in its audio.
        editor.move(phrases: 3)
        editor.moveInText(15)
        let frame = try #require(try workflow.splitFrame(for: editor))
        #expect(
            frame > 96_000 && frame < 107_000, "in the pause after 'gare,' (6.0-6.7 s): \(Double(frame) / 16_000) s")
        try editor.split(atFrame: frame)
        #expect(editor.phrases.map(\.text)[3...4] == ["Où est la gare,", "s'il vous plaît ?"])
        #expect(editor.phrases[3].clip?.frames == 88_900..<frame && editor.phrases[4].clip?.frames == frame..<117_500)
        // "Merci." (from the take) merged with the first half of the split, which lies after it
        // in the same take: one range covering both.
        editor.move(phrases: -1)
        try editor.mergeWithNext(joined: try workflow.joinedClip(for: editor))
        #expect(editor.current.text == "Merci. Où est la gare," && editor.current.clip?.frames == 63_900..<frame)
        // Clips out of order (the last phrase first) are joined into a new take.
        let last = editor.phrases.count - 1
        let joined = try PhraseEditorAudio.join(
            try #require(editor.phrases[last].clip), try #require(editor.phrases[0].clip), in: workflow.scratch)
        #expect(joined.sha256 == nil && joined.frames.count == (147_400 - 123_400) + 4_800 + (26_600 - 6_080))

        let saved = try await workflow.save(editor)
        #expect(
            saved.phrases.map(\.text) == [
                "Bonjour, madame.", "Un café, s'il vous plaît.", "Merci. Où est la gare,", "s'il vous plaît ?",
                "À droite, puis tout droit.",
            ])
        #expect(saved.summary.revision == 2)
        // The text follows, its header kept: parsed again it gives the same phrases.
        #expect(saved.sourceText.hasPrefix("# title: Fixture"))
        #expect(try LoopSource(parsing: saved.sourceText).phrases.map(\.text) == saved.phrases.map(\.text))
        #expect(saved.phrases[4].id == studied.id, "an unchanged phrase keeps its row")
        #expect(
            try library.studyStats(loop: loop.summary.id).first?.phrases.first { $0.number == 5 }?.repetitions == 3,
            "and its study history")
        #expect(try library.check().isHealthy)
        // Saved again later in the same session: the editor's own save is no change from elsewhere.
        try editor.nudge(.end, milliseconds: 10)
        #expect(try await workflow.save(editor).summary.revision == 3)
    }

    @Test func aSaveAfterAnotherProcessChangedTheLoopIsRefusedWholly() async throws {
        let (library, loop) = try fixtureLoop()
        let workflow = try PhraseEditingSession(library: Library(store: library), loop: loop.summary.id)
        defer { workflow.close() }
        var editor = try workflow.editor()
        try editor.nudge(.end, milliseconds: 50)
        _ = try library.updateMetadata(ofLoop: loop.summary.id, title: "Renamed elsewhere")
        await #expect(throws: LibraryError.self) { _ = try await workflow.save(editor) }
        let after = try library.loop(id: loop.summary.id)
        #expect(after.phrases[0].audio?.endFrame == 26_600 && after.summary.revision == 2)
    }
}
