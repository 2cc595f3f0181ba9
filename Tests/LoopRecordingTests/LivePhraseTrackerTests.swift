import Foundation
import LoopAudio
import LoopAuthoring
import LoopRecording
import LoopTestSupport
import Testing

/// The tracker's phrases for a whole take, fed hop by hop as if live (in hops).
func livePhrases(_ take: String, pauseHops: Int = 28) throws -> [(Int, Int)] {
    let envelope = try EnergyEnvelope.measure(path: Fixture.path(take))
    var tracker = LivePhraseTracker(pauseHops: pauseHops)
    var phrases: [(Int, Int)] = []
    for level in envelope.levels {
        for case .ended(let start, let end) in tracker.add(level) { phrases.append((start, end)) }
    }
    if case .ended(let start, let end)? = tracker.finish() { phrases.append((start, end)) }
    return phrases
}

struct LivePhraseTrackerTests {
    // Under 10 dB of noise a comma can last as long as a short pause: live, the highlight may
    // move early there (the author presses b); the saved cuts come from the offline segmenter.
    @Test(arguments: ["clean.flac", "quiet-30db.flac", "clicks.flac", "rate-8k.flac", "stereo-48k.flac"])
    func findsEachPhraseAsItEnds(take: String) throws {
        let phrases = try livePhrases(take)
        #expect(phrases.count == 5, "\(take): \(phrases)")
        for ((start, end), (_, trueStart, trueEnd)) in zip(phrases, Fixture.truth) {
            #expect(abs(Double(start) / 100 - trueStart) < 0.15 && abs(Double(end) / 100 - trueEnd) < 0.2, "\(take): \(start)-\(end) for \(trueStart)-\(trueEnd)")
        }
    }

    @Test func silenceAndClicksAloneAreNoPhrase() throws {
        var tracker = LivePhraseTracker()
        var events: [LivePhraseTracker.Event] = []
        for hop in 0..<500 { events += tracker.add(hop % 97 == 0 ? -20 : -90) }   // a click now and then
        #expect(!events.contains { if case .ended = $0 { true } else { false } })
    }
}
