import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopModel
import LoopPlayback
import LoopStore
import LoopStudy

// Studying: a loop's clips made ready for the player, a session a screen drives, its time,
// repetitions and reviews kept; and a loop played once.

/// Where a session's sound goes: the sound card's device, or a file (`output`), or nowhere
/// (`output` is `null`).
public struct SoundOutput: Sendable, Equatable {
    /// The ALSA device to play on (see `aplay -L`).
    public var device = "default"
    /// A file to write the sound to instead (WAV, FLAC, Ogg, Opus, MP3 or AIFF, as its
    /// extension says), or `null` to discard it.
    public var output: String?

    /// Sound played on ALSA's `device`, or written to `output`.
    public init(device: String = "default", output: String? = nil) { (self.device, self.output) = (device, output) }

    /// Whether it renders (to a file or nowhere) rather than plays.
    public var isRendered: Bool { output != nil }

    /// The problem of writing a session that is `finite` (or not) there.
    public func check(finite: Bool) throws(RequestProblem) {
        guard let output, output != "null" else { return }
        try RequestProblem.check(
            !finite,
            RequestProblem("{output} \(output) needs {once} or {rounds}: a file cannot hold a session that never ends"))
        // (A path that is no file to write, a folder or a FIFO, is refused as such when opened.)
        try RequestProblem.check(
            AudioFileFormat(pathExtension: output) == nil && (try? DurableFile.checkReplaceable(output)) != nil,
            RequestProblem(
                "{output} \(output): the name does not say which audio format to write; end it in .wav, .flac, .ogg, .opus, .mp3 or .aiff"
            ))
    }
}

/// How a session plays: the mode, each phrase's (or group's) plays, the gap after it, the speed.
public struct StudyPacing: Sendable, Equatable {
    /// Repeat with me, or listen and repeat.
    public var mode: StudyMode = .repeatWithMe
    /// Plays of each phrase (or group) before moving on: 1 to 100.
    public var repeats = 1
    /// The gap after a phrase or group, as a multiple of its length: 0 to 10.
    public var gapFactor = 1.0
    /// Playback speed, pitch kept: 0.5 to 1.5.
    public var speed = 1.0

    /// Pacing from its parts.
    public init(mode: StudyMode = .repeatWithMe, repeats: Int = 1, gapFactor: Double = 1.0, speed: Double = 1.0) {
        (self.mode, self.repeats, self.gapFactor, self.speed) = (mode, repeats, gapFactor, speed)
    }

    /// Refuses repeats, gaps or speeds out of range.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(
            !(1...100).contains(repeats), RequestProblem("{repeats} takes 1 to 100, not \(repeats)"))
        try RequestProblem.check(!(gapFactor >= 0 && gapFactor <= 10), RequestProblem("{gapFactor} takes 0 to 10"))
        try RequestProblem.check(!StudySettings.speeds.contains(speed), RequestProblem("{speed} takes 0.5 to 1.5"))
    }

    func settings(rounds: Int?) -> StudySettings {
        StudySettings(mode: mode, repeats: repeats, gapFactor: gapFactor, speed: speed, rounds: rounds)
    }
}

/// A study session of a loop's groups.
public struct StudyRequest: Sendable {
    /// The loop: an id, a start of it, a title or a start of it.
    public var loop: String
    /// The groups to study (`1,3-4`; nil: all).
    public var groups: String?
    /// How the session plays.
    public var pacing = StudyPacing()
    /// Rounds through the selection, then stop (nil: until the learner quits).
    public var rounds: Int?
    /// Once through, then stop (no keys needed).
    public var once = false
    /// Where it plays.
    public var sound = SoundOutput()
    /// Record the learner during each gap and score each attempt (repeat with me).
    public var shadow = false
    /// The ALSA device to record from.
    public var captureDevice = "default"

    /// A study of all of `loop`, until the learner quits.
    public init(loop: String) { self.loop = loop }

    /// Whether the session ends by itself.
    public var isFinite: Bool { once || rounds != nil }

    /// Refuses groups that are not a list, rounds out of range, and shadowing without repeat with me.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(
            shadow && pacing.mode != .repeatWithMe,
            RequestProblem("{shadow} records the gap after each phrase: it goes with {mode} repeat-with-me"))
        if let rounds {
            try RequestProblem.check(
                !(1...10_000).contains(rounds), RequestProblem("{rounds} takes 1 to 10000, not \(rounds)"))
        }
        try RequestProblem.check(once && rounds != nil, .exclusive("once", "rounds"))
        try pacing.check()
        try sound.check(finite: isFinite)
        if let groups {
            do {
                _ = try GroupSelection.ranges(groups)
            } catch {
                throw RequestProblem(error.message)
            }
        }
    }
}

/// A session under way, as a screen shows and drives it.
public struct StudyRun: Sendable {
    /// The loop studied.
    public var loop: LoopDetail
    /// The groups studied, as the engine sees them.
    public var groups: [[StudyPhrase]]
    /// What the screen drives the session with (keys, the display, the end).
    public var controls: any StudyControls
    /// The learner's attempts, when shadowing.
    public var shadowing: ShadowingSession?
    /// In a review, the one group reviewed (0-based): rating it goes on to the next.
    public var reviewGroup: Int?
}

/// What a screen gives back when a session ends: the study of each phrase (by number), the
/// groups studied through (0-based, in the order each was first finished), the ratings the
/// learner gave them, and whether the learner quit (a review stops there).
public struct StudyResult: Sendable {
    /// Each phrase's study (by its number across the loop).
    public var study: [Int: PhraseStudy]
    /// The groups studied through (0-based, each once, in the order first finished).
    public var studiedGroups: [Int]
    /// The ratings given (by group, 0-based).
    public var ratings: [Int: ReviewRating]
    /// Whether the learner quit before the end.
    public var quit: Bool

    /// A session's result.
    public init(study: [Int: PhraseStudy], studiedGroups: [Int], ratings: [Int: ReviewRating], quit: Bool = false) {
        (self.study, self.studiedGroups, self.ratings, self.quit) = (study, studiedGroups, ratings, quit)
    }
}

/// What a session left to say: why shadowing stopped, if it did, and why its progress was not
/// kept, if it was not.
public struct StudySummary: Sendable {
    /// Why shadowing stopped during the session, if it did.
    public var shadowingStopped: FailureSummary?
    /// Why the session's progress was not kept (a library opened read-only), if it was not.
    public var readOnlyReason: String?
}

/// A loop's audio played once: all of it, a phrase, or a group.
public struct PlayRequest: Sendable {
    /// The loop: an id, a start of it, a title or a start of it.
    public var loop: String
    /// Only this phrase (its number across the loop) or this group (1-based).
    public var phrase: Int?, group: Int?
    /// Playback speed, pitch kept: 0.5 to 1.5.
    public var speed = 1.0
    /// Where it plays.
    public var sound = SoundOutput()

    /// A play of all of `loop`.
    public init(loop: String) { self.loop = loop }

    /// Refuses both a phrase and a group, and a speed out of range.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(phrase != nil && group != nil, .exclusive("phrase", "group"))
        try RequestProblem.check(!StudySettings.speeds.contains(speed), RequestProblem("{speed} takes 0.5 to 1.5"))
    }
}

/// A loop ready to study: its detail, its clips decoded, its groups for the engine.
package struct PreparedStudy: Sendable {
    package var loop: LoopDetail
    package var audio: StudyAudio
    package var groups: [[StudyPhrase]]
}

extension Library {
    /// Studies `request`'s groups: the session is driven by `drive` (a screen, or a line a
    /// step); then its time, repetitions and the reviews of the groups studied through (rated
    /// as the learner said, good where they did not) are kept, unless the library is read-only.
    public func study(
        _ request: StudyRequest, now: @Sendable () -> Date = Date.init, progress: WorkProgress? = nil,
        drive: (StudyRun) async throws -> StudyResult
    ) async throws -> StudySummary {
        try request.check()
        try LibraryStore.checkReviewDate(now())
        let prepared = try await prepare(loop: try resolve(request.loop), progress: progress)
        let shadowing = request.shadow ? try shadowing(prepared, device: request.captureDevice) : nil
        let selection =
            try request.groups.map { try GroupSelection.groups($0, groupCount: prepared.groups.count) } ?? []
        let player = try player(
            for: prepared, settings: request.pacing.settings(rounds: request.once ? 1 : request.rounds),
            selection: selection, sound: request.sound, realTime: !request.once, shadowing: shadowing)
        let started = now()
        let result = try await drive(
            StudyRun(loop: prepared.loop, groups: prepared.groups, controls: player, shadowing: shadowing))
        let failure = await shadowing?.waitForAttempts().failure
        try await save(result, of: prepared, startedAt: started, now: now())
        var stopped = failure.map(FailureSummary.init)
        // The study's own option names its capture device, not `loop record`'s.
        if stopped?.nextStep == .chooseACaptureDevice { stopped?.nextStep = .chooseAShadowingDevice }
        return StudySummary(shadowingStopped: stopped, readOnlyReason: readOnlyReason)
    }

    /// Plays a loop's phrase, or group, or all of it once, clip after clip with no gap.
    public func play(_ request: PlayRequest, progress: WorkProgress? = nil) async throws {
        try request.check()
        let prepared = try await prepare(loop: try resolve(request.loop), progress: progress)
        var groups = prepared.groups
        if let phrase = request.phrase {
            guard let found = groups.joined().first(where: { $0.number == phrase }) else {
                throw WorkflowError(.refused, "the loop has \(groups.joined().count) phrases, not \(phrase)")
            }
            groups = [[found]]
        } else if let group = request.group {
            guard groups.indices.contains(group - 1) else {
                throw WorkflowError(.refused, "the loop has \(groups.count) groups, not \(group)")
            }
            groups = [groups[group - 1]]
        }
        // Listen-and-repeat with no gap, once: the clips back to back.
        let settings = StudySettings(mode: .listenAndRepeat, gapFactor: 0, speed: request.speed, rounds: 1)
        _ = try await player(for: prepared, groups: groups, settings: settings, sound: request.sound, realTime: false)
            .play()
    }

    /// Decodes the clips of `loop` (each take read once) and lays out its groups.
    package func prepare(loop id: String, progress: WorkProgress? = nil) async throws -> PreparedStudy {
        let loading = progress.map { report in { @Sendable (fraction: Double) in report(.loading, fraction) } }
        return try await work("loop load clips") { store in
            let detail = try store.loop(id: id)
            let sources = detail.phrases.compactMap { phrase in
                phrase.audio.map {
                    ClipSource(phrase: phrase.number, takePath: $0.path, frames: $0.startFrame..<$0.endFrame)
                }
            }
            guard !sources.isEmpty else {
                throw StudyError(.noAudio, "'\(detail.summary.title)' has no audio yet")
            }
            let audio = try StudyAudio.load(sources, progress: loading)
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

    /// The player of a session over `prepared`'s groups (`selection`: 0-based, all when empty),
    /// with `settings`, playing to `sound`; in real time unless it renders to a file at once.
    func player(
        for prepared: PreparedStudy, groups: [[StudyPhrase]]? = nil, settings: StudySettings, selection: [Int] = [],
        sound: SoundOutput, realTime: Bool, shadowing: ShadowingSession? = nil
    ) throws -> StudyPlayer {
        let session = try StudySession(groups: groups ?? prepared.groups, settings: settings, selection: selection)
        let (rate, channels) = (prepared.audio.sampleRate, prepared.audio.channelCount)
        let output: any StudyOutput =
            switch sound.output {
            case "null": NullOutput(sampleRate: rate, channelCount: channels)
            case let path?: try FileOutput(path: path, sampleRate: rate, channelCount: channels)
            case nil: try DeviceOutput(device: sound.device, sampleRate: rate, channelCount: channels)
            }
        return StudyPlayer(
            session: session, audio: prepared.audio, output: output, realTime: realTime, listener: shadowing?.recorder)
    }

    /// Saves what a session studied, in one step, and a review of each group it studied through
    /// (rated as the learner said, good where they did not, at `now`); nothing, when the
    /// library was opened read-only.
    func save(_ result: StudyResult, of prepared: PreparedStudy, startedAt: Date, now: Date) async throws {
        guard readOnlyReason == nil else { return }
        let reviews = result.studiedGroups.map {
            GroupRating(group: $0, rating: result.ratings[$0] ?? .good, date: now)
        }
        let byNumber = Dictionary(uniqueKeysWithValues: prepared.loop.phrases.map { ($0.number, $0.id) })
        let records = result.study.sorted { $0.key < $1.key }.compactMap { number, study -> PhraseStudyRecord? in
            guard let id = byNumber[number], study.repetitions > 0 || study.time > 0 else { return nil }
            return PhraseStudyRecord(
                phraseId: id, seconds: Double(study.time) / 1_000_000, repetitions: study.repetitions)
        }
        let loopId = prepared.loop.summary.id
        try await work("loop save study") { store in
            try store.recordStudy(
                loop: loopId, startedAt: startedAt, phrases: records, reviews: reviews, replay: ReviewSettings.replay)
        }
    }
}
