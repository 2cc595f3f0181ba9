import Foundation
import LoopModel
import LoopShadowing
import Testing

/// Shadowing's decisions, event by event, with a stand-in scorer (a phrase's name): what is
/// recorded, scored and handed on, and what is not, with no device and no thread.
struct ShadowingMachineTests {
    typealias Machine = ShadowingMachine<String>

    private let score = AttemptScore(
        coverage: 0.9, match: 0.8, lengthRatio: 1, intonation: nil, missedWords: [], timingWord: nil)
    private let said = Date(timeIntervalSince1970: 1_800_000_000)

    /// The captures a list of actions starts, and the attempts it hands on.
    private func started(_ actions: [Machine.Action]) -> [Machine.CaptureID] {
        actions.compactMap { if case .startCapture(let id, _) = $0 { id } else { nil } }
    }
    private func delivered(_ actions: [Machine.Action]) -> [RecordedAttempt] {
        actions.compactMap { if case .deliver(let attempt) = $0 { attempt } else { nil } }
    }
    private func scored(_ actions: [Machine.Action]) -> [(id: Machine.CaptureID, scorer: String)] {
        actions.compactMap { if case .score(let id, _, let scorer) = $0 { (id, scorer) } else { nil } }
    }
    private func prepared(_ actions: [Machine.Action]) -> [Int] {
        actions.compactMap { if case .prepareScorer(let phrase) = $0 { phrase } else { nil } }
    }
    private func stopped(_ actions: [Machine.Action]) -> [Machine.CaptureID] {
        actions.compactMap { if case .stopCapture(let id) = $0 { id } else { nil } }
    }
    private func finishes(_ actions: [Machine.Action]) -> Bool {
        actions.contains { if case .finish = $0 { true } else { false } }
    }
    private func reports(_ actions: [Machine.Action]) -> Int {
        actions.filter { if case .report = $0 { true } else { false } }.count
    }

    struct Broken: Error {}

    @Test func aGapPlayedToItsEndIsRecordedScoredAndHandedOn() throws {
        var machine = Machine()
        let began = machine.handle(.gapBegan(phrase: 3, frames: 32_000, recordedAt: said))
        let id = try #require(started(began).first)
        #expect(prepared(began) == [3], "the model is measured while the learner speaks")
        #expect(machine.handle(.gapEnded(phrase: 3, completed: true)).isEmpty)
        #expect(machine.handle(.captured(id, .success([0.1, 0.2]))).isEmpty, "it waits for the model")
        let ready = machine.handle(.scorerMade(phrase: 3, .success("three")))
        #expect(scored(ready).map(\.scorer) == ["three"])
        let handed = delivered(machine.handle(.scored(id, .success(score))))
        #expect(handed.count == 1)
        #expect(handed.first?.phrase == 3 && handed.first?.samples == [0.1, 0.2] && handed.first?.recordedAt == said)
        #expect(handed.first?.score?.match == 0.8)
    }

    @Test func aGapCutShortIsNoAttempt() throws {
        var machine = Machine()
        let id = try #require(started(machine.handle(.gapBegan(phrase: 1, frames: 16_000, recordedAt: said))).first)
        #expect(stopped(machine.handle(.gapEnded(phrase: 1, completed: false))) == [id])
        #expect(machine.handle(.scorerMade(phrase: 1, .success("one"))).isEmpty)
        let captured = machine.handle(.captured(id, .success([0.5])))
        #expect(scored(captured).isEmpty && delivered(captured).isEmpty)
        #expect(finishes(machine.handle(.sessionEnded)))
    }

    @Test func eachPhrasesModelIsMeasuredOnce() throws {
        var machine = Machine()
        var preparedPhrases: [Int] = []
        for _ in 0..<3 {
            let began = machine.handle(.gapBegan(phrase: 2, frames: 100, recordedAt: said))
            preparedPhrases += prepared(began)
            let id = try #require(started(began).first)
            _ = machine.handle(.gapEnded(phrase: 2, completed: true))
            _ = machine.handle(.captured(id, .success([0])))
            if preparedPhrases.count == 1 { _ = machine.handle(.scorerMade(phrase: 2, .success("two"))) }
        }
        #expect(preparedPhrases == [2])
    }

    @Test func aPhraseWithNoModelIsNotScored() throws {
        var machine = Machine()
        let id = try #require(started(machine.handle(.gapBegan(phrase: 4, frames: 100, recordedAt: said))).first)
        _ = machine.handle(.captured(id, .success([0])))
        let made = machine.handle(.scorerMade(phrase: 4, .success(nil)))
        #expect(scored(made).isEmpty && delivered(made).isEmpty)
        #expect(finishes(machine.handle(.sessionEnded)), "nothing is left waiting for it")
    }

    /// No microphone: said once, and nothing more is recorded; the study goes on.
    @Test func afterAFailureNothingMoreIsRecorded() throws {
        var machine = Machine()
        let id = try #require(started(machine.handle(.gapBegan(phrase: 1, frames: 100, recordedAt: said))).first)
        #expect(reports(machine.handle(.captured(id, .failure(Broken())))) == 1)
        #expect(machine.hasStopped)
        #expect(started(machine.handle(.gapBegan(phrase: 2, frames: 100, recordedAt: said))).isEmpty)
        #expect(reports(machine.handle(.scorerMade(phrase: 1, .failure(Broken())))) == 0, "said once")
    }

    /// The session's end waits for what is under way: an attempt being scored is still handed on.
    @Test func theSessionEndsWhenWhatIsUnderWayHasEnded() throws {
        var machine = Machine()
        let id = try #require(started(machine.handle(.gapBegan(phrase: 1, frames: 100, recordedAt: said))).first)
        _ = machine.handle(.gapEnded(phrase: 1, completed: true))
        #expect(!finishes(machine.handle(.sessionEnded)), "the capture is under way")
        _ = machine.handle(.captured(id, .success([0])))
        #expect(!finishes(machine.handle(.scorerMade(phrase: 1, .success("one")))), "the attempt is being scored")
        let last = machine.handle(.scored(id, .success(nil)))
        #expect(delivered(last).count == 1 && delivered(last).first?.score == nil, "no speech heard: said so")
        #expect(finishes(last))
        #expect(machine.handle(.gapBegan(phrase: 2, frames: 100, recordedAt: said)).isEmpty)
    }

    /// One capture at a time: a gap that begins while the last is still being read (playing
    /// ran ahead, into a file) is recorded after it; one cut short before its turn, never.
    @Test func aGapThatBeginsDuringACaptureIsRecordedAfterIt() throws {
        var machine = Machine()
        let first = try #require(started(machine.handle(.gapBegan(phrase: 1, frames: 100, recordedAt: said))).first)
        _ = machine.handle(.scorerMade(phrase: 1, .success("one")))
        _ = machine.handle(.gapEnded(phrase: 1, completed: true))
        let next = machine.handle(.gapBegan(phrase: 2, frames: 100, recordedAt: said))
        #expect(started(next).isEmpty && stopped(next).isEmpty, "the first capture goes on")
        _ = machine.handle(.gapEnded(phrase: 2, completed: true))
        _ = machine.handle(.gapBegan(phrase: 3, frames: 100, recordedAt: said))
        _ = machine.handle(.gapEnded(phrase: 3, completed: false))
        let captured = machine.handle(.captured(first, .success([0])))
        #expect(scored(captured).map(\.id) == [first])
        let second = try #require(started(captured).first, "the second gap's turn")
        #expect(started(machine.handle(.captured(second, .success([0])))).isEmpty, "the third was cut short")
    }
}
