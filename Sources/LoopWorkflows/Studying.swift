import Foundation
import LoopAudioFiles
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
    /// Whether a session's time and repetitions are kept (not in a read-only library).
    let keepsProgress: Bool

    package init(store: LibraryStore, keepsProgress: Bool = true) {
        self.store = store
        self.keepsProgress = keepsProgress
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

    /// Where a session's sound goes.
    public enum SoundDestination: Sendable, Equatable {
        /// The sound card: an ALSA device (`default`, or one `aplay -L` lists).
        case device(String)
        /// A study track written to this file, in the format its extension names (WAV, FLAC,
        /// Ogg, Opus, MP3 or AIFF).
        case file(String)
        /// Nowhere (`--output null`): the session runs, and its study is saved.
        case nowhere

        /// Whether `path` names a format a study track can be written in (or is no file to
        /// write, which opening it says better).
        public static func isWritable(_ path: String) -> Bool {
            AudioFileFormat(pathExtension: path) != nil || (try? DurableFile.checkReplaceable(path)) == nil
        }
    }

    /// The player of a session over `prepared`'s groups (`selection`: 0-based, all when empty),
    /// with `settings`, playing to `destination`; in real time unless it renders to a file at
    /// once.
    public func player(
        for prepared: PreparedStudy, groups: [[StudyPhrase]]? = nil, settings: StudySettings, selection: [Int] = [],
        destination: SoundDestination, realTime: Bool, shadowing: ShadowingSession? = nil
    ) throws -> StudyPlayer {
        let session = try StudySession(groups: groups ?? prepared.groups, settings: settings, selection: selection)
        let (rate, channels) = (prepared.audio.sampleRate, prepared.audio.channelCount)
        let output: any StudyOutput =
            switch destination {
            case .nowhere: NullOutput(sampleRate: rate, channelCount: channels)
            case .file(let path): try FileOutput(path: path, sampleRate: rate, channelCount: channels)
            case .device(let name): try DeviceOutput(device: name, sampleRate: rate, channelCount: channels)
            }
        return StudyPlayer(
            session: session, audio: prepared.audio, output: output, realTime: realTime, listener: shadowing?.recorder)
    }

    /// Plays `groups` (of `prepared`) once, clip after clip with no gap, at `speed`, to
    /// `destination` (`loop play`).
    public func playOnce(
        _ prepared: PreparedStudy, groups: [[StudyPhrase]], speed: Double, destination: SoundDestination
    )
        async throws
    {
        // Listen-and-repeat with no gap, once: the clips back to back.
        let settings = StudySettings(mode: .listenAndRepeat, gapFactor: 0, speed: speed, rounds: 1)
        _ = try await player(
            for: prepared, groups: groups, settings: settings, destination: destination, realTime: false
        )
        .play()
    }

    /// Saves what a session studied (phrase numbers as the engine counts them), in one step,
    /// and a review of each group studied through (`reviews`); nothing, when the library was
    /// opened read-only (``Library/readOnlyReason``).
    public func save(
        _ studied: [Int: PhraseStudy], of prepared: PreparedStudy, startedAt: Date, reviews: [GroupRating] = []
    ) async throws {
        guard keepsProgress else { return }
        let byNumber = Dictionary(uniqueKeysWithValues: prepared.loop.phrases.map { ($0.number, $0.id) })
        let records = studied.sorted { $0.key < $1.key }.compactMap { number, study -> PhraseStudyRecord? in
            guard let id = byNumber[number], study.repetitions > 0 || study.time > 0 else { return nil }
            return PhraseStudyRecord(
                phraseId: id, seconds: Double(study.time) / 1_000_000, repetitions: study.repetitions)
        }
        let (store, loopId) = (self.store, prepared.loop.summary.id)
        try await BlockingWork.run("loop save study") {
            try store.recordStudy(
                loop: loopId, startedAt: startedAt, phrases: records, reviews: reviews, replay: ReviewSettings.replay)
        }
    }
}
