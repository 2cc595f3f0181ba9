import LoopFoundation
import LoopModel

/// The study engine: a state machine over a loop's groups and phrases.
///
/// The player asks ``nextStep(at:)`` for what to render (a clip to play or a silence to leave)
/// whenever the previous step has been rendered, and passes the learner's events to
/// ``handle(_:at:)``, whose reaction says whether to cut the current step short. The engine
/// never touches a terminal, a clock or a sound card: time is whatever the player says it is.
public struct StudySession: Sendable {
    /// How the session plays: mode, speed, repeats, gaps.
    public private(set) var settings: StudySettings
    /// The loop's phrases, group by group.
    public let groups: [[StudyPhrase]]
    /// The groups studied, in order (indices into ``groups``).
    public private(set) var selection: [Int]
    /// Per phrase number: how much it was studied, credited as each step ends or is cut short.
    public private(set) var study: [Int: PhraseStudy] = [:]
    /// The groups (0-based) studied through in this session (every repeat of every phrase with
    /// audio), in the order each was first finished: what the review schedule counts.
    public private(set) var studiedGroups: [Int] = []

    private var position = 0 // index into selection
    private var phraseIndex = 0 // index into the current group's playable phrases
    private var repetition = 0
    private var phase = Phase.play
    private var round = 0
    private var paused = false
    /// The step being rendered (once the session is over, the last one rendered).
    private var step: Step? = nil

    /// A step, and what it earns: per phrase, its time in the step. The phrases of a played
    /// step follow one another and each earns a repetition when heard to its end; a gap's run
    /// side by side. Its study is credited once, when it ends or is cut short; the cursor only
    /// moves on when a gap ends, so a key pressed during a gap moves from the phrase it follows.
    private struct Step {
        var start: Microseconds
        var parts: [(phrase: Int, time: Microseconds)]
        var gap: Bool
        var credited = false
    }

    private enum Phase { case play, gap, finished }

    /// Starts with `selection` (0-based groups; empty means all). Groups with no audio are
    /// skipped; a loop with no audio at all cannot be studied.
    public init(groups: [[StudyPhrase]], settings: StudySettings, selection: [Int] = []) throws(StudyError) {
        let playable = groups.indices.filter { groups[$0].contains { $0.duration != nil } }
        guard !playable.isEmpty else { throw StudyError(.noAudio, "no phrase of this loop has audio yet") }
        for group in selection where !groups.indices.contains(group) {
            throw StudyError(.noSuchGroup, "there is no group \(group + 1): the loop has \(groups.count)")
        }
        let chosen = (selection.isEmpty ? playable : selection.filter(playable.contains)).sorted()
        guard !chosen.isEmpty else { throw StudyError(.noAudio, "the selected groups have no audio yet") }
        guard settings.repeats >= 1 else { throw StudyError(.invalidSettings, "repeats must be at least 1") }
        guard settings.gapFactor >= 0 else { throw StudyError(.invalidSettings, "the gap factor cannot be negative") }
        guard StudySettings.speeds.contains(settings.speed) else {
            throw StudyError(.invalidSettings, "the speed must be between 0.5 and 1.5")
        }
        self.groups = groups
        self.settings = settings
        self.selection = Array(Set(chosen)).sorted()
    }

    // MARK: Steps

    /// What to render next, now that the previous step is done; nil when the session is over.
    public mutating func nextStep(at now: Microseconds) -> StudyStep? {
        if let done = step, !done.credited {
            settle(at: now, completed: true)
            if done.gap { advanceAfterGap(count: playablePhrases(selection[position]).count) }
        }
        guard !paused, phase != .finished else { return nil }
        let phrases = playablePhrases(selection[position])
        switch (settings.mode, phase) {
        case (.repeatWithMe, .play):
            let phrase = phrases[phraseIndex]
            phase = .gap
            let duration = length(phrase)
            step = Step(start: now, parts: [(phrase.number, duration)], gap: false)
            return .play(phrases: [phrase.number], speed: settings.speed, duration: duration)
        case (.repeatWithMe, .gap):
            let phrase = phrases[phraseIndex]
            let gap = Microseconds(Double(length(phrase)) * settings.gapFactor) + settings.fixedPause
            step = Step(start: now, parts: [(phrase.number, gap)], gap: true)
            return .silence(gap)
        case (.listenAndRepeat, .play):
            let numbers = phrases.map(\.number)
            phase = .gap
            let duration = phrases.reduce(0) { $0 + length($1) }
            step = Step(start: now, parts: phrases.map { ($0.number, length($0)) }, gap: false)
            return .play(phrases: numbers, speed: settings.speed, duration: duration)
        case (.listenAndRepeat, .gap):
            let duration = phrases.reduce(0) { $0 + length($1) }
            let gap = Microseconds(Double(duration) * settings.gapFactor)
            step = Step(
                start: now, parts: phrases.map { ($0.number, Microseconds(Double(length($0)) * settings.gapFactor)) },
                gap: true)
            return .silence(gap)
        case (_, .finished):
            return nil
        }
    }

    private mutating func advanceAfterGap(count: Int) {
        phase = .play
        repetition += 1
        guard repetition >= settings.repeats else { return }
        repetition = 0
        if settings.mode == .repeatWithMe {
            phraseIndex += 1
            if phraseIndex < count { return }
        }
        if !studiedGroups.contains(selection[position]) { studiedGroups.append(selection[position]) }
        phraseIndex = 0
        position += 1
        if position == selection.count {
            position = 0
            round += 1
            if let rounds = settings.rounds, round >= rounds { phase = .finished }
        }
    }

    // MARK: Events

    /// Applies the learner's event; the reaction says what the player must do now.
    public mutating func handle(_ event: StudyEvent, at now: Microseconds) -> StudyReaction {
        switch event {
        case .playPause:
            paused.toggle()
            if paused {
                restartCurrent(at: now)
                return .pause
            }
            return .resume
        case .nextPhrase:
            guard settings.mode == .repeatWithMe else { return handle(.nextGroup, at: now) }
            let count = playablePhrases(selection[position]).count
            if phraseIndex + 1 < count {
                phraseIndex += 1
            } else {
                moveGroup(by: 1)
                phraseIndex = 0
            }
            return restarted(at: now)
        case .previousPhrase:
            guard settings.mode == .repeatWithMe else { return handle(.previousGroup, at: now) }
            if phraseIndex > 0 {
                phraseIndex -= 1
            } else {
                moveGroup(by: -1)
                phraseIndex = playablePhrases(selection[position]).count - 1
            }
            return restarted(at: now)
        case .nextGroup:
            moveGroup(by: 1)
            phraseIndex = 0
            return restarted(at: now)
        case .previousGroup:
            moveGroup(by: -1)
            phraseIndex = 0
            return restarted(at: now)
        case .select(let group):
            guard isPlayable(group) else { return .carryOn }
            selection = [group]
            position = 0
            phraseIndex = 0
            return restarted(at: now)
        case .toggle(let group):
            guard isPlayable(group) else { return .carryOn }
            let current = selection[position]
            if selection.contains(group) {
                guard selection.count > 1 else { return .carryOn }
                selection.removeAll { $0 == group }
                if group == current {
                    position = min(position, selection.count - 1)
                    phraseIndex = 0
                    return restarted(at: now)
                }
            } else {
                selection = (selection + [group]).sorted()
            }
            position = selection.firstIndex(of: current) ?? 0
            return .carryOn
        case .selectAll:
            let current = selection[position]
            selection = groups.indices.filter(isPlayable)
            position = selection.firstIndex(of: current) ?? 0
            return .carryOn
        case .switchMode:
            settings.mode = settings.mode == .repeatWithMe ? .listenAndRepeat : .repeatWithMe
            phraseIndex = 0
            return restarted(at: now)
        case .faster, .slower:
            let step = event == .faster ? 0.1 : -0.1
            settings.speed = min(
                max(((settings.speed + step) * 10).rounded() / 10, StudySettings.speeds.lowerBound),
                StudySettings.speeds.upperBound)
            return .carryOn
        }
    }

    /// Moves among the selected groups; with one selected, to the next group of the loop.
    private mutating func moveGroup(by offset: Int) {
        if selection.count > 1 {
            position = (position + offset + selection.count) % selection.count
            return
        }
        let playable = groups.indices.filter(isPlayable)
        let index = playable.firstIndex(of: selection[0]) ?? 0
        selection = [playable[(index + offset + playable.count) % playable.count]]
        position = 0
    }

    private mutating func restartCurrent(at now: Microseconds) {
        settle(at: now, completed: false)
        step = nil
        phase = .play
        repetition = 0
    }

    private mutating func restarted(at now: Microseconds) -> StudyReaction {
        restartCurrent(at: now)
        return paused ? .carryOn : .interrupt
    }

    /// Ends the session at `now` (the learner quit): the step under way counts as far as it got.
    public mutating func stop(at now: Microseconds) {
        settle(at: now, completed: false)
        step = nil
        phase = .finished
    }

    // MARK: Study

    /// Credits the step under way: whole when it `completed`, else the part of it before `now`.
    private mutating func settle(at now: Microseconds, completed: Bool) {
        guard let current = step, !current.credited else { return }
        step?.credited = true
        let total = current.parts.reduce(0) { $0 + $1.time }
        var elapsed = completed ? total : min(max(0, now - current.start), total)
        for part in current.parts {
            let time: Microseconds
            if !current.gap {
                time = min(part.time, elapsed) // one phrase after another
                elapsed -= time
            } else {
                time = total > 0 ? Microseconds((Double(part.time) * Double(elapsed) / Double(total)).rounded()) : 0
            }
            // Heard to its end, give or take a chunk of rendering.
            let heard = !current.gap && time >= part.time - Self.endTolerance
            if time > 0 || heard { record(part.phrase, repetitions: heard ? 1 : 0, time: time) }
        }
    }

    private static let endTolerance: Microseconds = 20_000

    // MARK: Display

    /// What to show now.
    public var display: StudyDisplay {
        let phaseShown: StudyDisplay.Phase
        if phase == .finished {
            phaseShown = .finished
        } else if paused {
            phaseShown = .paused
        } else if let step, step.gap {
            phaseShown = settings.mode == .repeatWithMe ? .speakAlong : .repeatAloud
        } else {
            phaseShown = .listening
        }
        // The step under way names the phrase; between steps, the cursor does.
        let phrases = playablePhrases(selection[position])
        let cursorPhrase = settings.mode == .repeatWithMe ? phrases[min(phraseIndex, phrases.count - 1)].number : nil
        let shownPhrase = step.map { $0.parts.count == 1 ? $0.parts[0].phrase : nil } ?? cursorPhrase
        let group =
            step.flatMap { step in groups.indices.first { groups[$0].contains { $0.number == step.parts[0].phrase } } }
            ?? selection[position]
        return StudyDisplay(
            group: group, selection: selection, phrase: shownPhrase, phase: phaseShown,
            mode: settings.mode, speed: settings.speed, repeats: settings.repeats,
            repetition: min(repetition, settings.repeats - 1) + 1, round: round + 1)
    }

    /// Whether every selected group has been studied.
    public var isFinished: Bool { phase == .finished }
    /// Whether the learner paused the session.
    public var isPaused: Bool { paused }

    // MARK: Helpers

    private func playablePhrases(_ group: Int) -> [StudyPhrase] { groups[group].filter { $0.duration != nil } }
    private func isPlayable(_ group: Int) -> Bool {
        groups.indices.contains(group) && groups[group].contains { $0.duration != nil }
    }
    /// A playable phrase's length at the current speed (phrases without audio are never played).
    private func length(_ phrase: StudyPhrase) -> Microseconds { scaled(phrase.duration ?? 0) }
    private func scaled(_ duration: Microseconds) -> Microseconds {
        Microseconds((Double(duration) / settings.speed).rounded())
    }

    private mutating func record(_ phrase: Int, repetitions: Int, time: Microseconds) {
        study[phrase, default: PhraseStudy(repetitions: 0, time: 0)].repetitions += repetitions
        study[phrase, default: PhraseStudy(repetitions: 0, time: 0)].time += time
    }
}

/// The ways a study session can fail to start.
public enum StudyFailure: String, LoopErrorKind {
    /// Nothing selected has a clip to play.
    case noAudio
    case noSuchGroup
    case invalidSettings

    /// Where these errors come from: study.
    public static let domain = ErrorDomain.study
}

/// Why a study session cannot start.
public typealias StudyError = LoopError<StudyFailure>

/// Told when the learner's turn to say a phrase along begins and ends: the player tells it, and
/// shadowing records the learner then (neither knows the other: both know the study engine).
public protocol SpeakAlongListener: Sendable {
    /// The gap after phrase `phrase` begins: `duration` of silence to say it in.
    func speakAlongBegan(phrase: Int, duration: Microseconds)
    /// That gap ended: played to its end (`completed`), or cut short by a key or the end.
    func speakAlongEnded(phrase: Int, completed: Bool)
}

extension ErrorDomain {
    /// The study engine.
    public static let study = ErrorDomain(rawValue: "study")
}
