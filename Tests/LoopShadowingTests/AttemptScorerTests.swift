import Foundation
import LoopModel
import LoopShadowing
import LoopSpeech
import LoopTestSupport
import Testing

/// Attempts at a phrase scored against its model (espeak-ng fixtures: the model in one voice,
/// attempts in another, slower).
@Suite struct AttemptScorerTests {
    static let text = "Le train pour Lyon part à huit heures ce soir."

    func scorer() throws -> AttemptScorer {
        let model = try MonoAudio(path: Fixture.path("shadow-model.flac"))
        return try AttemptScorer(
            model: model.samples, sampleRate: model.sampleRate, attemptSampleRate: 16_000, text: Self.text,
            language: "fr", synthesizer: .shared)
    }

    func score(_ fixture: String) throws -> AttemptScore {
        let attempt = try MonoAudio(path: Fixture.path(fixture))
        #expect(attempt.sampleRate == 16_000)
        return try #require(try scorer().score(attempt.samples))
    }

    /// The phrase said by another voice is the phrase; another phrase of the same length is not.
    @Test func theSamePhraseInAnotherVoiceMatchesAndAnotherPhraseDoesNot() throws {
        let good = try score("shadow-good.flac")
        let other = try score("shadow-other.flac")
        #expect(good.saysThePhrase, "match \(good.match)")
        #expect(!other.saysThePhrase, "match \(other.match)")
        #expect(good.match > other.match + 0.2)
        #expect(good.coverage > 0.95 && good.missedWords.isEmpty)
    }

    /// An attempt that stops halfway said about half, and the words it left out are named.
    @Test func anAttemptStoppedHalfwaySaysAboutHalfAndNamesTheWordsLeftOut() throws {
        let cut = try score("shadow-cut.flac")
        #expect(abs(cut.coverage - 0.5) <= 0.12, "coverage \(cut.coverage)")
        #expect(cut.missedWords.contains("soir") && cut.missedWords.contains("heures"), "\(cut.missedWords)")
        #expect(!cut.missedWords.contains("train"))
    }

    /// The slower voice is slower (145 against 165 words a minute), by about that much.
    @Test func theAttemptsPaceIsMeasuredAgainstTheModels() throws {
        let good = try score("shadow-good.flac")
        let model = try MonoAudio(path: Fixture.path("shadow-model.flac"))
        let scorer = try scorer()
        let same = try #require(try scorer.score(model.samples))
        #expect(abs(same.lengthRatio - 1) < 0.02 && same.coverage == 1)
        #expect(good.lengthRatio > 1.05 && good.lengthRatio < 1.4, "\(good.lengthRatio)")
    }

    /// The same words said on one note score a lower intonation than said with their melody.
    @Test func aMonotoneAttemptScoresALowerIntonation() throws {
        let good = try score("shadow-good.flac")
        let monotone = try score("shadow-monotone.flac")
        let melody = try #require(good.intonation)
        let flat = try #require(monotone.intonation)
        #expect(melody > 0.8 && flat < melody - 0.3, "\(melody) against \(flat)")
        #expect(monotone.saysThePhrase, "the words are still the phrase's")
    }

    /// Pitch comes from aubio: the model's voiced frames lie in a speaking voice's range.
    @Test func pitchIsTrackedInTheVoicedFrames() throws {
        let model = try MonoAudio(path: Fixture.path("shadow-model.flac"))
        let track = try PitchTrack(samples: model.samples, sampleRate: model.sampleRate)
        let voiced = track.hertz.compactMap { $0 }
        #expect(abs(track.hertz.count - model.samples.count / 160) <= 1)
        #expect(voiced.count > track.hertz.count / 3, "\(voiced.count) of \(track.hertz.count)")
        let median = voiced.sorted()[voiced.count / 2]
        #expect(median > 70 && median < 200, "espeak-ng's fr voice is a low male voice: \(median) Hz")
    }

    /// Silence is no attempt.
    @Test func silenceIsNoAttempt() throws {
        #expect(try scorer().score([Float](repeating: 0, count: 16_000)) == nil)
    }
}
