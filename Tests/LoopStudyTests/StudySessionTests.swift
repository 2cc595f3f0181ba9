import LoopModel
import LoopStudy
import LoopTestSupport
import Testing

/// Two groups: phrases 1 (1 s) and 2 (2 s); phrase 3 (0.5 s), phrase 4 with no audio, phrase 5 (1.5 s).
let loopGroups: [[StudyPhrase]] = [
    [
        StudyPhrase(number: 1, text: "Un", duration: 1_000_000),
        StudyPhrase(number: 2, text: "Deux", duration: 2_000_000),
    ],
    [
        StudyPhrase(number: 3, text: "Trois", duration: 500_000), StudyPhrase(number: 4, text: "Quatre", duration: nil),
        StudyPhrase(number: 5, text: "Cinq", duration: 1_500_000),
    ],
    [StudyPhrase(number: 6, text: "Six", duration: nil)],
]

/// Runs the session on a virtual clock until it ends or `limit` steps, advancing time by each
/// step's length.
func steps(_ session: inout StudySession, limit: Int = 100, from start: Microseconds = 0) -> [StudyStep] {
    var now = start
    var result: [StudyStep] = []
    while result.count < limit, let step = session.nextStep(at: now) {
        result.append(step)
        now += step.duration
    }
    return result
}

struct StudySessionTests {
    @Test func aGroupCountsAsStudiedOnceEveryRepeatOfEveryPhraseIsDone() throws {
        var session = try StudySession(
            groups: loopGroups, settings: StudySettings(repeats: 2, rounds: 2), selection: [0, 1])
        _ = steps(&session, limit: 7)
        #expect(session.studiedGroups.isEmpty, "group 1's second phrase has one play left")
        _ = steps(&session, limit: 2, from: 20_000_000)
        #expect(session.studiedGroups == [0])
        _ = steps(&session, from: 40_000_000)
        #expect(session.studiedGroups == [0, 1], "once each, in the order finished, over two rounds")
    }

    @Test func repeatWithMePlaysEachPhraseThenAGapToSpeakAlong() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(rounds: 1), selection: [0])
        #expect(
            steps(&session) == [
                .play(phrases: [1], speed: 1, duration: 1_000_000), .silence(1_300_000),
                .play(phrases: [2], speed: 1, duration: 2_000_000), .silence(2_300_000),
            ])
        #expect(session.isFinished)
        #expect(session.display.phase == .finished)
    }

    @Test func listenAndRepeatPlaysTheGroupThenASilenceAsLongAsIt() throws {
        var session = try StudySession(
            groups: loopGroups, settings: StudySettings(mode: .listenAndRepeat, rounds: 1), selection: [1])
        #expect(steps(&session) == [.play(phrases: [3, 5], speed: 1, duration: 2_000_000), .silence(2_000_000)])
    }

    @Test func repeatsAndTheGapFactorApply() throws {
        var session = try StudySession(
            groups: loopGroups, settings: StudySettings(repeats: 2, gapFactor: 1.5, fixedPause: 100_000, rounds: 1),
            selection: [1])
        #expect(
            steps(&session) == [
                .play(phrases: [3], speed: 1, duration: 500_000), .silence(850_000),
                .play(phrases: [3], speed: 1, duration: 500_000), .silence(850_000),
                .play(phrases: [5], speed: 1, duration: 1_500_000), .silence(2_350_000),
                .play(phrases: [5], speed: 1, duration: 1_500_000), .silence(2_350_000),
            ])
        #expect(session.study[3] == PhraseStudy(repetitions: 2, time: 2 * (500_000 + 850_000)))
        #expect(session.study[4] == nil, "a phrase without audio is skipped")
    }

    @Test func severalGroupsLoopInOrderForTheRoundsAsked() throws {
        var session = try StudySession(
            groups: loopGroups, settings: StudySettings(mode: .listenAndRepeat, gapFactor: 0.5, rounds: 2),
            selection: [1, 0])
        let played = steps(&session).compactMap { step -> [Int]? in
            if case .play(let phrases, _, _) = step { phrases } else { nil }
        }
        #expect(played == [[1, 2], [3, 5], [1, 2], [3, 5]])
    }

    @Test func withoutRoundsItLoopsUntilStopped() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [0])
        #expect(steps(&session, limit: 40).count == 40)
        #expect(!session.isFinished)
    }

    @Test func nextPhraseInTheMiddleOfAPhraseCutsItShortAndPlaysTheNext() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [0])
        #expect(session.nextStep(at: 0) == .play(phrases: [1], speed: 1, duration: 1_000_000))
        #expect(session.display.phrase == 1 && session.display.phase == .listening)
        #expect(session.handle(.nextPhrase, at: 400_000) == .interrupt)
        #expect(session.nextStep(at: 400_000) == .play(phrases: [2], speed: 1, duration: 2_000_000))
        // Past the last phrase of a lone group: the next group of the loop.
        #expect(session.handle(.nextPhrase, at: 500_000) == .interrupt)
        #expect(session.nextStep(at: 500_000) == .play(phrases: [3], speed: 1, duration: 500_000))
        #expect(session.display.group == 1 && session.display.selection == [1])
        #expect(session.handle(.previousPhrase, at: 600_000) == .interrupt)
        #expect(session.nextStep(at: 600_000) == .play(phrases: [2], speed: 1, duration: 2_000_000))
    }

    @Test func studyTimeCountsWhatWasRenderedAndARepetitionOnlyWhatWasHeardToItsEnd() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [0])
        _ = session.nextStep(at: 0) // phrase 1, 1 s
        _ = session.nextStep(at: 1_000_000) // heard whole; its gap, 1.3 s
        #expect(session.handle(.nextPhrase, at: 1_500_000) == .interrupt)
        #expect(
            session.study[1] == PhraseStudy(repetitions: 1, time: 1_500_000), "the phrase, and half a second of its gap"
        )
        #expect(session.nextStep(at: 1_500_000) == .play(phrases: [2], speed: 1, duration: 2_000_000))
        #expect(session.handle(.playPause, at: 2_100_000) == .pause)
        #expect(session.study[2] == PhraseStudy(repetitions: 0, time: 600_000), "cut short: time, no repetition")
        #expect(session.handle(.playPause, at: 2_100_000) == .resume)
        _ = session.nextStep(at: 2_100_000) // phrase 2 again, from its start
        session.stop(at: 4_100_000)
        #expect(session.study[2] == PhraseStudy(repetitions: 1, time: 2_600_000), "quitting at its end still counts it")
        #expect(session.isFinished && session.nextStep(at: 4_100_000) == nil)
    }

    @Test func keysDuringAGapMoveFromThePhraseItFollows() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [1])
        _ = session.nextStep(at: 0) // phrase 3
        _ = session.nextStep(at: 500_000) // its gap
        #expect(session.display.phrase == 3 && session.display.phase == .speakAlong)
        #expect(session.handle(.nextPhrase, at: 600_000) == .interrupt)
        #expect(
            session.nextStep(at: 600_000) == .play(phrases: [5], speed: 1, duration: 1_500_000),
            "the phrase after 3, not after 5")
        _ = session.nextStep(at: 2_100_000) // phrase 5's gap
        #expect(session.handle(.previousPhrase, at: 2_200_000) == .interrupt)
        #expect(
            session.nextStep(at: 2_200_000) == .play(phrases: [3], speed: 1, duration: 500_000), "the phrase before 5")
        _ = session.nextStep(at: 2_700_000) // phrase 3's gap
        #expect(session.handle(.playPause, at: 2_800_000) == .pause)
        #expect(session.handle(.playPause, at: 2_800_000) == .resume)
        #expect(
            session.nextStep(at: 2_800_000) == .play(phrases: [3], speed: 1, duration: 500_000),
            "resuming replays the phrase the gap followed")
    }

    @Test func aGroupCutShortCreditsThePhrasesItReached() throws {
        var session = try StudySession(
            groups: loopGroups, settings: StudySettings(mode: .listenAndRepeat), selection: [0])
        _ = session.nextStep(at: 0) // phrases 1 (1 s) and 2 (2 s)
        _ = session.handle(.nextGroup, at: 1_500_000)
        #expect(session.study[1] == PhraseStudy(repetitions: 1, time: 1_000_000))
        #expect(session.study[2] == PhraseStudy(repetitions: 0, time: 500_000))
        _ = session.nextStep(at: 1_500_000) // group 2: phrases 3 (0.5 s) and 5 (1.5 s)
        _ = session.nextStep(at: 3_500_000) // its silence, 2 s
        session.stop(at: 4_500_000)
        #expect(
            session.study[3] == PhraseStudy(repetitions: 1, time: 500_000 + 250_000),
            "a quarter of the half-done silence")
        #expect(session.study[5] == PhraseStudy(repetitions: 1, time: 1_500_000 + 750_000))
    }

    @Test func groupNavigationMovesWithinASelectionOrAlongTheLoop() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [0, 1])
        _ = session.nextStep(at: 0)
        #expect(session.handle(.nextGroup, at: 10) == .interrupt)
        #expect(session.nextStep(at: 10) == .play(phrases: [3], speed: 1, duration: 500_000))
        #expect(session.handle(.nextGroup, at: 20) == .interrupt)
        #expect(
            session.nextStep(at: 20) == .play(phrases: [1], speed: 1, duration: 1_000_000), "wraps within the selection"
        )
        #expect(session.display.selection == [0, 1])
        #expect(session.handle(.previousGroup, at: 30) == .interrupt)
        #expect(session.display.group == 1)
    }

    @Test func selectingGroups() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [0])
        _ = session.nextStep(at: 0)
        #expect(session.handle(.toggle(group: 1), at: 1) == .carryOn, "adding a group does not cut the phrase")
        #expect(session.display.selection == [0, 1])
        #expect(session.handle(.toggle(group: 2), at: 2) == .carryOn, "a group without audio cannot be selected")
        #expect(session.display.selection == [0, 1])
        #expect(session.handle(.toggle(group: 0), at: 3) == .interrupt, "removing the current group moves on")
        #expect(session.nextStep(at: 3) == .play(phrases: [3], speed: 1, duration: 500_000))
        #expect(session.handle(.toggle(group: 1), at: 4) == .carryOn, "the last group stays selected")
        #expect(session.display.selection == [1])
        #expect(session.handle(.select(group: 0), at: 5) == .interrupt)
        #expect(session.display.selection == [0])
        #expect(session.handle(.selectAll, at: 6) == .carryOn)
        #expect(session.display.selection == [0, 1])
    }

    @Test func pauseStopsAtOnceAndResumeReplaysThePhrase() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [0])
        _ = session.nextStep(at: 0)
        #expect(session.handle(.playPause, at: 500_000) == .pause)
        #expect(session.display.phase == .paused)
        #expect(session.nextStep(at: 600_000) == nil, "nothing plays while paused")
        #expect(session.handle(.playPause, at: 900_000) == .resume)
        #expect(session.nextStep(at: 900_000) == .play(phrases: [1], speed: 1, duration: 1_000_000))
    }

    @Test func switchingModeRestartsTheGroupInTheOtherMode() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [0])
        _ = session.nextStep(at: 0)
        _ = session.nextStep(at: 1_000_000)
        #expect(session.handle(.switchMode, at: 1_500_000) == .interrupt)
        #expect(session.display.mode == .listenAndRepeat)
        #expect(session.nextStep(at: 1_500_000) == .play(phrases: [1, 2], speed: 1, duration: 3_000_000))
        #expect(session.display.phrase == nil, "a whole group plays")
    }

    @Test func speedChangesLaterStepsWithinLimits() throws {
        var session = try StudySession(
            groups: loopGroups, settings: StudySettings(speed: 0.5, rounds: 1), selection: [1])
        #expect(session.handle(.slower, at: 0) == .carryOn)
        #expect(session.display.speed == 0.5, "not below 0.5")
        #expect(session.nextStep(at: 0) == .play(phrases: [3], speed: 0.5, duration: 1_000_000))
        _ = session.handle(.faster, at: 10)
        #expect(session.display.speed == 0.6)
        // The gap after the phrase follows the new speed: 0.5 s / 0.6 + the fixed pause.
        #expect(session.nextStep(at: 10) == .silence(833_333 + 300_000))
        for _ in 0..<20 { _ = session.handle(.faster, at: 20) }
        #expect(session.display.speed == 1.5, "not above 1.5")
    }

    @Test func theDisplayFollowsTheStepsAndGaps() throws {
        var session = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [0])
        _ = session.nextStep(at: 0)
        #expect(session.display.phrase == 1 && session.display.phase == .listening)
        _ = session.nextStep(at: 1_000_000)
        #expect(
            session.display.phrase == 1 && session.display.phase == .speakAlong,
            "the gap belongs to the phrase just heard")
        var listen = try StudySession(
            groups: loopGroups, settings: StudySettings(mode: .listenAndRepeat), selection: [1])
        _ = listen.nextStep(at: 0)
        _ = listen.nextStep(at: 2_000_000)
        #expect(listen.display.phase == .repeatAloud && listen.display.group == 1)
    }

    @Test func aLoopWithoutAudioOrABadSelectionCannotBeStudied() {
        #expect(throws: StudyError.self) { _ = try StudySession(groups: [loopGroups[2]], settings: StudySettings()) }
        #expect(throws: StudyError.self) {
            _ = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [7])
        }
        #expect(throws: StudyError.self) {
            _ = try StudySession(groups: loopGroups, settings: StudySettings(), selection: [2])
        }
        #expect(throws: StudyError.self) { _ = try StudySession(groups: loopGroups, settings: StudySettings(speed: 2)) }
    }
}
