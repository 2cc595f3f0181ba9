import Foundation
import LoopFoundation
import LoopModel
import LoopPlayback
import LoopStore
import LoopStudy

/// A loop ready to study: its detail, its clips decoded, its groups for the engine.
public struct PreparedStudy: Sendable {
    public var loop: LoopDetail
    public var audio: StudyAudio
    public var groups: [[StudyPhrase]]
}

/// Studying: a loop's clips made ready for the player, and a session's time and repetitions
/// saved against the loop's phrases.
public struct StudyWorkflow: Sendable {
    let store: LibraryStore

    package init(store: LibraryStore) {
        self.store = store
    }

    /// Decodes the clips of `loop` (each take read once) and lays out its groups.
    public func prepare(loop id: String, progress: (@Sendable (Double) -> Void)? = nil) async throws -> PreparedStudy {
        let store = self.store
        return try await BlockingWork.run("loop load clips") {
            let detail = try store.loop(id: id)
            let sources = detail.phrases.compactMap { phrase in
                phrase.audio.map {
                    ClipSource(phrase: phrase.number, takePath: $0.path, frames: $0.startFrame..<$0.endFrame)
                }
            }
            guard !sources.isEmpty else {
                throw StudyError(.noAudio, "'\(detail.summary.title)' has no audio yet")
            }
            let audio = try StudyAudio.load(sources, progress: progress)
            let groups = detail.groups.map { group in
                group.map {
                    StudyPhrase(
                        number: $0.number, text: $0.text, translation: $0.translation,
                        duration: audio.duration(of: $0.number),
                        clipIsForEarlierText: $0.clipIsForEarlierText)
                }
            }
            return PreparedStudy(loop: detail, audio: audio, groups: groups)
        }
    }

    /// Saves what a session studied (phrase numbers as the engine counts them), in one step.
    public func save(_ studied: [Int: PhraseStudy], of prepared: PreparedStudy, startedAt: Date) async throws {
        let byNumber = Dictionary(uniqueKeysWithValues: prepared.loop.phrases.map { ($0.number, $0.id) })
        let records = studied.sorted { $0.key < $1.key }.compactMap { number, study -> PhraseStudyRecord? in
            guard let id = byNumber[number], study.repetitions > 0 || study.time > 0 else { return nil }
            return PhraseStudyRecord(
                phraseId: id, seconds: Double(study.time) / 1_000_000, repetitions: study.repetitions)
        }
        let (store, loopId) = (self.store, prepared.loop.summary.id)
        try await BlockingWork.run("loop save study") {
            try store.recordStudy(loop: loopId, startedAt: startedAt, phrases: records)
        }
    }
}
