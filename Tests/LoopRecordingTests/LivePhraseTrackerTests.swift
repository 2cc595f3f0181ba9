import Foundation
import LoopCutting
import LoopRecording
import LoopTestSupport
import Testing

/// The tracker's phrases for a whole take, fed hop by hop as if live (in hops), knowing the
/// fixture's text as the recorder does.
func livePhrases(_ take: String) throws -> [(Int, Int)] {
    let envelope = try EnergyEnvelope.measure(path: Fixture.path(take))
    var tracker = LivePhraseTracker()
    var pace = ReadingPace(phrases: Fixture.truth.map(\.text))
    tracker.expectedSpeechHops = pace.expectedSpeechHops(0)
    var phrases: [(Int, Int)] = []
    for level in envelope.levels {
        for case .ended(let start, let end) in tracker.add(level) {
            pace.read(phrases.count, speechHops: tracker.lastPhraseSpeechHops)
            phrases.append((start, end))
            tracker.expectedSpeechHops = pace.expectedSpeechHops(phrases.count)
        }
    }
    if case .ended(let start, let end)? = tracker.finish() { phrases.append((start, end)) }
    return phrases
}

struct LivePhraseTrackerTests {
    @Test(arguments: [
        "clean.flac", "noisy-snr10.flac", "quiet-30db.flac", "clicks.flac", "rate-8k.flac", "stereo-48k.flac",
    ])
    func findsEachPhraseAsItEnds(take: String) throws {
        let phrases = try livePhrases(take)
        #expect(phrases.count == 5, "\(take): \(phrases)")
        for ((start, end), (_, trueStart, trueEnd)) in zip(phrases, Fixture.truth) {
            #expect(
                abs(Double(start) / 100 - trueStart) < 0.15 && abs(Double(end) / 100 - trueEnd) < 0.2,
                "\(take): \(start)-\(end) for \(trueStart)-\(trueEnd)")
        }
    }

    @Test func inAReverberantRoomAPhraseThatRunsFarPastItsLengthIsCutAtTheValleyWhereItShouldHaveEnded() throws {
        // The tails fill the pauses, so the levels never fall to the floor between phrases: the
        // live count only holds because an overlong phrase is cut against its neighbourhood.
        let phrases = try livePhrases("reverb.flac")
        #expect(phrases.count == 5, "\(phrases)")
        // Only the count is kept from the live view (the take is cut again offline, with the
        // text): each live phrase lies on its own phrase.
        for ((start, end), (_, trueStart, trueEnd)) in zip(phrases, Fixture.truth) {
            let middle = Double(start + end) / 200
            #expect(middle > trueStart && middle < trueEnd, "\(start)-\(end) for \(trueStart)-\(trueEnd)")
        }
    }

    @Test func aPhraseThatRunsFarPastItsLengthWithNoValleyInItIsLeftWhole() {
        // Steady sound three times longer than expected, no dip: nothing to cut at, no guess.
        var tracker = LivePhraseTracker()
        tracker.expectedSpeechHops = 100
        var events: [LivePhraseTracker.Event] = []
        for _ in 0..<30 { events += tracker.add(-70) }
        for hop in 0..<400 { events += tracker.add(-20 + Float(hop % 5)) }
        #expect(events.filter { if case .ended = $0 { true } else { false } }.isEmpty, "\(events)")
    }

    @Test func knowingThePhrasesLengthAShortPauseEndsItAndAnEarlyOneDoesNot() {
        // 0.3 s of quiet first (levels to learn from), then speech at -20 dB with pauses at -70.
        func run(_ pattern: [(loud: Bool, hops: Int)], expected: Double?) -> [LivePhraseTracker.Event] {
            var tracker = LivePhraseTracker()
            tracker.expectedSpeechHops = expected
            var events: [LivePhraseTracker.Event] = []
            for part in [(false, 30)] + pattern {
                for _ in 0..<part.1 { events += tracker.add(part.0 ? -20 : -70) }
            }
            return events.filter { if case .ended = $0 { true } else { false } }
        }
        // A phrase of its expected length, then a 0.22 s pause: ended, where a fixed 0.28 s would wait.
        #expect(run([(true, 100), (false, 22)], expected: 100).count == 1)
        #expect(run([(true, 100), (false, 22)], expected: nil).isEmpty)
        // A 0.4 s hesitation a third of the way in: not an end when the phrase is known to be longer.
        let whole = run([(true, 40), (false, 40), (true, 80), (false, 25)], expected: 120)
        #expect(whole.count == 1)
        if case .ended(let start, let end)? = whole.first {
            #expect(abs(start - 30) <= 2 && abs(end - 190) <= 3, "\(start)-\(end)")
        }
        #expect(run([(true, 40), (false, 40), (true, 80), (false, 30)], expected: nil).count == 2)
    }

    @Test func thePaceOfTheReadingSetsHowLongThePhrasesAhead() throws {
        var pace = ReadingPace(
            phrases: ["Un deux trois", "Un deux trois quatre cinq six"], hopsPerWeight: 20, priorWeight: 1)
        let before = try #require(pace.expectedSpeechHops(1))
        #expect(pace.expectedSpeechHops(2) == nil)
        pace.read(0, speechHops: 4 * 100) // read far slower than the guess
        let after = try #require(pace.expectedSpeechHops(1))
        #expect(after > 3 * before, "the slow reading stretches the phrases ahead: \(before) -> \(after)")
    }

    @Test func silenceAndClicksAloneAreNoPhrase() throws {
        var tracker = LivePhraseTracker()
        var events: [LivePhraseTracker.Event] = []
        for hop in 0..<500 { events += tracker.add(hop % 97 == 0 ? -20 : -90) } // a click now and then
        #expect(!events.contains { if case .ended = $0 { true } else { false } })
    }
}
