/// Time on the study clock, in microseconds.
public typealias Microseconds = Int64

/// A phrase as the study engine sees it.
public struct StudyPhrase: Sendable, Equatable {
    /// 1-based, across the loop.
    public var number: Int
    /// The phrase as read.
    public var text: String
    /// Its translation, if any.
    public var translation: String?
    /// The clip's length at normal speed; nil when the phrase has no audio (it is skipped).
    public var duration: Microseconds?
    /// The clip reads an earlier text of the phrase (its text was changed after recording).
    public var clipIsForEarlierText: Bool

    /// A phrase from its fields.
    public init(
        number: Int, text: String, translation: String? = nil, duration: Microseconds?,
        clipIsForEarlierText: Bool = false
    ) {
        self.number = number
        self.text = text
        self.translation = translation
        self.duration = duration
        self.clipIsForEarlierText = clipIsForEarlierText
    }
}

/// The two ways to study.
public enum StudyMode: String, Sendable, CaseIterable {
    /// Each phrase, then a gap to say it along.
    case repeatWithMe = "repeat-with-me"
    /// The whole group, then a silence as long as the group to repeat it aloud.
    case listenAndRepeat = "listen-and-repeat"

    /// The mode as the view names it.
    public var title: String { self == .repeatWithMe ? "repeat with me" : "listen and repeat" }
}

/// How a study session plays: its mode, repeats, gaps, speed and rounds.
public struct StudySettings: Sendable, Equatable {
    /// Repeat with me, or listen and repeat.
    public var mode: StudyMode
    /// Plays of each phrase (repeat with me) or group (listen and repeat) before moving on.
    public var repeats: Int
    /// The gap after a phrase or group, as a multiple of its length.
    public var gapFactor: Double
    /// Added to each gap in repeat-with-me mode, to draw breath.
    public var fixedPause: Microseconds
    /// Playback speed, pitch kept: 0.5 to 1.5.
    public var speed: Double
    /// Rounds through the selection before the session ends; nil loops until stopped.
    public var rounds: Int?

    /// The speeds the player takes (pitch kept).
    public static let speeds: ClosedRange<Double> = 0.5...1.5

    /// Settings from their parts; each default is what `loop study` plays without options.
    public init(
        mode: StudyMode = .repeatWithMe, repeats: Int = 1, gapFactor: Double = 1.0, fixedPause: Microseconds = 300_000,
        speed: Double = 1.0, rounds: Int? = nil
    ) {
        self.mode = mode
        self.repeats = repeats
        self.gapFactor = gapFactor
        self.fixedPause = fixedPause
        self.speed = speed
        self.rounds = rounds
    }
}

/// What to render next.
public enum StudyStep: Sendable, Equatable {
    /// These phrases' clips, back to back, at `speed`; `duration` is how long that takes.
    case play(phrases: [Int], speed: Double, duration: Microseconds)
    /// Silence.
    case silence(Microseconds)

    /// How long the step takes.
    public var duration: Microseconds {
        switch self {
        case .play(_, _, let duration): duration
        case .silence(let duration): duration
        }
    }
}

/// What the learner does.
public enum StudyEvent: Sendable, Equatable {
    case playPause
    case nextPhrase, previousPhrase
    case nextGroup, previousGroup
    /// Study this group (0-based) alone.
    case select(group: Int)
    /// Add this group to the selection, or take it out.
    case toggle(group: Int)
    case selectAll
    case switchMode
    case faster, slower
}

/// How the player must react to an event.
public enum StudyReaction: Sendable, Equatable {
    /// Nothing to interrupt: what plays goes on, later steps change.
    case carryOn
    /// Stop the current step now and ask for the next one.
    case interrupt
    /// Stop now and wait.
    case pause
    /// Ask for the next step again.
    case resume
}

/// What the learner sees.
public struct StudyDisplay: Sendable, Equatable {
    /// What the learner is asked to do now.
    public enum Phase: Sendable, Equatable {
        case listening
        /// The gap after a phrase: say it along.
        case speakAlong
        /// The silence after a group: repeat it aloud.
        case repeatAloud
        case paused
        case finished
    }

    /// 0-based index of the group being studied.
    public var group: Int
    /// 0-based selected groups, in order.
    public var selection: [Int]
    /// The phrase playing or just played (1-based number); nil when a whole group plays.
    public var phrase: Int?
    /// What the learner is asked to do now.
    public var phase: Phase
    /// The mode studied in.
    public var mode: StudyMode
    /// The playback speed.
    public var speed: Double
    /// Plays of each phrase or group.
    public var repeats: Int
    /// 1-based play of the current phrase or group.
    public var repetition: Int
    /// 1-based round through the selection.
    public var round: Int
    /// While a whole group plays, the phrase whose clip sounds now (the player knows it: the
    /// engine hands it the group as one step).
    public var sounding: Int? = nil

    /// A display from its fields.
    public init(
        group: Int, selection: [Int], phrase: Int?, phase: Phase, mode: StudyMode, speed: Double, repeats: Int,
        repetition: Int, round: Int, sounding: Int? = nil
    ) {
        (self.group, self.selection, self.phrase, self.phase) = (group, selection, phrase, phase)
        (self.mode, self.speed, self.repeats, self.repetition, self.round) = (mode, speed, repeats, repetition, round)
        self.sounding = sounding
    }
}

/// How much each phrase was studied in a session.
public struct PhraseStudy: Sendable, Equatable {
    /// Times the phrase was played.
    public var repetitions: Int
    /// Listening and speaking time spent on the phrase.
    public var time: Microseconds

    /// A phrase's study in a session.
    public init(repetitions: Int, time: Microseconds) {
        self.repetitions = repetitions
        self.time = time
    }
}
