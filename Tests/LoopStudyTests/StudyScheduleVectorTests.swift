import Foundation
import LoopModel
import LoopStudy
import LoopTestSupport
import Testing

/// The study schedule as the engine makes it, written down as test vectors
/// (`Tests/Fixtures/study-schedules.json`) that the web page's player is checked against in a
/// real browser (`Scripts/check-pages`): the page and the terminal play the same clips and
/// leave the same silences, for the same loop, settings and keys.
///
/// A scenario runs the engine on a virtual clock: `next` asks for the next step and lets it run
/// to its end; an event arrives `at` microseconds into the step under way (cutting it short
/// when the engine says so). What the engine answered is recorded: each step, each reaction,
/// and at the end the study credited to each phrase.
struct StudyScheduleVectorTests {
    static let file = Fixture.folder + "/study-schedules.json"

    /// A loop of three groups: one with a phrase without audio, one with none at all.
    static let groups: [[StudyPhrase]] = [
        [
            StudyPhrase(number: 1, text: "Bonjour", duration: 1_230_000),
            StudyPhrase(number: 2, text: "Un café", duration: 2_045_000),
            StudyPhrase(number: 3, text: "Merci", duration: 655_000),
        ],
        [
            StudyPhrase(number: 4, text: "La gare", duration: 1_777_000),
            StudyPhrase(number: 5, text: "—", duration: nil),
            StudyPhrase(number: 6, text: "À droite", duration: 2_500_001),
        ],
        [StudyPhrase(number: 7, text: "Sans audio", duration: nil)],
        [
            StudyPhrase(number: 8, text: "Au revoir", duration: 999_999),
            StudyPhrase(number: 9, text: "À bientôt", duration: 1_333_333),
        ],
    ]

    enum Action {
        case next
        case event(StudyEvent, at: Microseconds)

        var json: [String: Any] {
            switch self {
            case .next: return ["next": true]
            case .event(let event, let at):
                var object: [String: Any] = ["at": at]
                switch event {
                case .playPause: object["event"] = "playPause"
                case .nextPhrase: object["event"] = "nextPhrase"
                case .previousPhrase: object["event"] = "previousPhrase"
                case .nextGroup: object["event"] = "nextGroup"
                case .previousGroup: object["event"] = "previousGroup"
                case .select(let group):
                    object["event"] = "select"
                    object["group"] = group
                case .toggle(let group):
                    object["event"] = "toggle"
                    object["group"] = group
                case .selectAll: object["event"] = "selectAll"
                case .switchMode: object["event"] = "switchMode"
                case .faster: object["event"] = "faster"
                case .slower: object["event"] = "slower"
                }
                return object
            }
        }
    }

    struct Scenario {
        var name: String
        var settings: StudySettings
        var selection: [Int]
        var actions: [Action]
    }

    static func nexts(_ count: Int) -> [Action] { Array(repeating: .next, count: count) }

    static let scenarios: [Scenario] = {
        var all: [Scenario] = []
        for mode in StudyMode.allCases {
            for (repeats, gapFactor, speed) in [(1, 1.0, 1.0), (2, 0.5, 0.75), (3, 1.5, 1.3)] {
                for selection in [[], [0, 3], [1]] {
                    all.append(
                        Scenario(
                            name: "\(mode.rawValue) ×\(repeats) gap \(gapFactor) at \(speed), groups \(selection)",
                            settings: StudySettings(
                                mode: mode, repeats: repeats, gapFactor: gapFactor, speed: speed, rounds: 2),
                            selection: selection, actions: nexts(80)))
                }
            }
        }
        // Keys while it plays, in both modes: each event arrives mid-step, then the session goes on.
        let keys: [StudyEvent] = [
            .nextPhrase, .nextPhrase, .previousPhrase, .nextGroup, .previousGroup, .toggle(group: 3), .toggle(group: 0),
            .select(group: 1), .selectAll, .faster, .slower, .slower, .switchMode, .toggle(group: 2), .nextPhrase,
        ]
        for mode in StudyMode.allCases {
            var actions: [Action] = nexts(2)
            for (index, key) in keys.enumerated() {
                actions.append(.event(key, at: Microseconds(100_000 + index * 37_000)))
                actions += nexts(1 + index % 3)
            }
            actions += nexts(12)
            all.append(
                Scenario(
                    name: "\(mode.rawValue) with keys",
                    settings: StudySettings(mode: mode, repeats: 2, gapFactor: 1.0, speed: 0.75),
                    selection: [0, 1], actions: actions))
        }
        // Pause and resume: nothing plays while paused; the step under way starts again.
        all.append(
            Scenario(
                name: "pause and resume",
                settings: StudySettings(mode: .repeatWithMe, repeats: 1, gapFactor: 1.0, speed: 1.0, rounds: 1),
                selection: [],
                actions: nexts(3) + [.event(.playPause, at: 400_000), .next, .event(.playPause, at: 0)] + nexts(20)))
        return all
    }()

    /// Runs a scenario; what the engine answered, action by action, and the study credited.
    static func run(_ scenario: Scenario) throws -> [String: Any] {
        var session = try StudySession(groups: groups, settings: scenario.settings, selection: scenario.selection)
        var now: Microseconds = 0
        var stepStart: Microseconds = 0
        var outputs: [Any] = []
        for action in scenario.actions {
            switch action {
            case .next:
                guard let step = session.nextStep(at: now) else {
                    outputs.append(NSNull())
                    continue
                }
                switch step {
                case .play(let phrases, let speed, let duration):
                    outputs.append(["play": phrases, "speed": speed, "duration": duration])
                case .silence(let duration): outputs.append(["silence": duration])
                }
                stepStart = now
                now += step.duration
            case .event(let event, let at):
                let when = min(stepStart + at, now)
                let reaction = session.handle(event, at: when)
                outputs.append(["reaction": "\(reaction)"])
                if reaction == .interrupt || reaction == .pause { now = when }
            }
        }
        session.stop(at: now)
        let study = session.study.keys.sorted().map {
            ["phrase": $0, "repetitions": session.study[$0]!.repetitions, "time": session.study[$0]!.time]
        }
        return ["name": scenario.name, "expected": outputs, "study": study]
    }

    static func vectors() throws -> Data {
        let groups = Self.groups.map {
            $0.map { phrase -> [String: Any] in
                ["number": phrase.number, "duration": phrase.duration.map { $0 as Any } ?? NSNull()]
            }
        }
        let scenarios = try Self.scenarios.map { scenario -> [String: Any] in
            var object = try run(scenario)
            let settings = scenario.settings
            object["settings"] = [
                "mode": settings.mode.rawValue, "repeats": settings.repeats, "gapFactor": settings.gapFactor,
                "fixedPause": settings.fixedPause, "speed": settings.speed,
                "rounds": settings.rounds.map { $0 as Any } ?? NSNull(),
            ]
            object["selection"] = scenario.selection
            object["actions"] = scenario.actions.map(\.json)
            return object
        }
        return try JSONSerialization.data(
            withJSONObject: ["groups": groups, "scenarios": scenarios], options: [.sortedKeys, .prettyPrinted])
    }

    /// The committed vectors are what the engine makes now: a change to the engine that changes
    /// a schedule fails here until the vectors are made again (`LOOP_WRITE_STUDY_VECTORS=1 swift
    /// test --filter StudyScheduleVectorTests`), and then the page must agree with them.
    @Test func theCommittedScheduleVectorsAreTheEnginesOwn() throws {
        let made = try Self.vectors()
        if ProcessInfo.processInfo.environment["LOOP_WRITE_STUDY_VECTORS"] == "1" {
            try made.write(to: URL(fileURLWithPath: Self.file))
        }
        let committed = try Data(contentsOf: URL(fileURLWithPath: Self.file))
        #expect(committed == made, "Tests/Fixtures/study-schedules.json differs from what StudySession makes now")
        let scenarios = try #require(
            (try JSONSerialization.jsonObject(with: committed) as? [String: Any])?["scenarios"] as? [[String: Any]])
        #expect(scenarios.count >= 20)
    }
}
