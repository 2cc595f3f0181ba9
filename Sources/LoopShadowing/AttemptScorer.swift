import Foundation
import LoopAudioFiles
import LoopCutting
import LoopModel
import LoopSpeech

/// A model clip, measured once, that scores a learner's attempts at its phrase: the project's
/// own alignment of the attempt against the model (``RecordingComparison``), where each word
/// of the text lies in the model (``WordSpans``), and both pitch contours (``PitchTrack``).
///
/// The model is measured when the scorer is made (while the phrase plays), so that an attempt
/// is scored within milliseconds of its end.
public struct AttemptScorer: Sendable {
    /// An attempt whose words match the model's at least this much says the phrase.
    public static let leastMatch = AttemptScore.leastMatch
    /// A word with less than this share of its speech aligned with the attempt was not said.
    static let leastSaidShare = 0.5
    /// A word stands out when its length against the model's is this far (as a factor) from
    /// the attempt's own pace, and at least ``leastWordDifference`` frames longer or shorter.
    static let standingOutFactor = 1.5
    static let leastWordDifference = 12
    /// Voiced frames both contours need, aligned, to compare them.
    static let leastVoicedPairs = 10

    /// The model's words, as its text gives them, which a missed word is named from.
    public let words: [String]
    let sampleRate: Int
    let model: MeasuredRecording
    let modelPitch: [Float?]
    /// Each word's frames in the model (nil: none found, or a single word).
    let wordSpans: [Range<Int>]?

    /// Measures `model` (mono, at `sampleRate`) for attempts recorded at `attemptSampleRate`;
    /// `text` is the phrase (its words, split at spaces, are named in the scores), `language`
    /// the loop's (nil: guessed from the text), which `synthesizer` renders to find each word.
    public init(
        model samples: [Float], sampleRate: Int, attemptSampleRate: Int, text: String, language: String?,
        synthesizer: SpeechSynthesizer
    ) throws {
        self.sampleRate = attemptSampleRate
        let upper = MeasuredRecording.upperFrequency(sampleRates: [sampleRate, attemptSampleRate])
        model = try MeasuredRecording(samples: samples, sampleRate: sampleRate, upperFrequency: upper)
        modelPitch = try PitchTrack(samples: samples, sampleRate: sampleRate).semitones
        words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        wordSpans = WordSpans.find(
            words, in: model, sampleRate: sampleRate, language: language, synthesizer: synthesizer)
    }

    /// Whether the model holds speech: an attempt at a silent model scores nothing.
    public var modelHoldsSpeech: Bool { model.speech.contains(true) }

    /// Scores `attempt` (mono, at the rate given when the scorer was made); nil when it holds
    /// no speech.
    public func score(_ attempt: [Float]) throws -> AttemptScore? {
        let measured = try MeasuredRecording(samples: attempt, sampleRate: sampleRate, upperFrequency: model.band)
        guard let comparison = RecordingComparison(model: model, attempt: measured) else { return nil }
        let pitch = try PitchTrack(samples: attempt, sampleRate: sampleRate).semitones
        let frames = comparison.attemptFrames
        let speech = model.speech.indices.filter { model.speech[$0] }
        let said = speech.filter { frames[$0] != nil }
        let coverage = speech.isEmpty ? 0 : Double(said.count) / Double(speech.count)

        // The pace over what was said: the attempt's stretch against the model's.
        var lengthRatio = 1.0
        if let first = said.first, let last = said.last,
            let attemptStart = said.compactMap({ frames[$0]?.lowerBound }).min(),
            let attemptEnd = said.compactMap({ frames[$0]?.upperBound }).max()
        {
            lengthRatio = Double(attemptEnd - attemptStart + 1) / Double(last - first + 1)
        }

        var missed: [String] = []
        var timingWord: AttemptScore.WordTiming?
        if let spans = wordSpans {
            var furthest = 0.0
            for (word, span) in zip(words, spans) where !span.isEmpty {
                let wordSpeech = span.filter { model.speech[$0] }
                let counted = wordSpeech.isEmpty ? Array(span) : wordSpeech
                let saidShare = Double(counted.filter { frames[$0] != nil }.count) / Double(counted.count)
                if saidShare < Self.leastSaidShare {
                    missed.append(word)
                    continue
                }
                let mapped = span.compactMap { frames[$0] }
                guard let low = mapped.map(\.lowerBound).min(), let high = mapped.map(\.upperBound).max() else {
                    continue
                }
                let attemptLength = Double(high - low + 1)
                let expected = Double(span.count) * lengthRatio
                let relative = attemptLength / expected
                guard abs(attemptLength - expected) >= Double(Self.leastWordDifference),
                    relative >= Self.standingOutFactor || relative <= 1 / Self.standingOutFactor,
                    abs(log(relative)) > furthest
                else { continue }
                furthest = abs(log(relative))
                timingWord = .init(word: Self.bare(word), ratio: relative)
            }
        } else if coverage < 1 - Self.leastSaidShare, let only = words.first, words.count == 1 {
            missed = [only]
        }

        return AttemptScore(
            coverage: coverage, match: Self.match(comparison), lengthRatio: lengthRatio,
            intonation: Self.intonation(model: modelPitch, attempt: pitch, frames: frames),
            missedWords: missed.map(Self.bare), timingWord: timingWord)
    }

    /// How clearly the attempt's words are the model's, from two views of the same alignment:
    /// the share of its speech that fits the model better than the model played backwards,
    /// and how much cheaper it fits forwards (0.5 and about 0.5 for other words).
    static func match(_ comparison: RecordingComparison) -> Double {
        min(1, max(0, (comparison.agreement + 1.5 - comparison.costRatio) / 2))
    }

    /// The contours (semitones from each speaker's median) compared where both are voiced
    /// along the alignment: their correlation taken from -1...1 to 0...1 (0.5: unrelated
    /// melodies), less where the attempt's melody moves less than the model's (a monotone
    /// reading).
    static func intonation(model: [Float?], attempt: [Float?], frames: [ClosedRange<Int>?]) -> Double? {
        var pairs: [(Double, Double)] = []
        for (column, rows) in frames.enumerated() {
            guard let rows, column < model.count, let modelValue = model[column] else { continue }
            let voiced = rows.compactMap { $0 < attempt.count ? attempt[$0] : nil }
            guard !voiced.isEmpty else { continue }
            pairs.append((Double(modelValue), Double(voiced.reduce(0, +)) / Double(voiced.count)))
        }
        guard pairs.count >= leastVoicedPairs else { return nil }
        let count = Double(pairs.count)
        let meanModel = pairs.map(\.0).reduce(0, +) / count
        let meanAttempt = pairs.map(\.1).reduce(0, +) / count
        var covariance = 0.0
        var modelVariance = 0.0
        var attemptVariance = 0.0
        for (m, a) in pairs {
            covariance += (m - meanModel) * (a - meanAttempt)
            modelVariance += (m - meanModel) * (m - meanModel)
            attemptVariance += (a - meanAttempt) * (a - meanAttempt)
        }
        guard modelVariance > 0, attemptVariance > 0 else { return 0 }
        let correlation = covariance / (modelVariance * attemptVariance).squareRoot()
        let movement = min(1, (attemptVariance / modelVariance).squareRoot())
        return (1 + correlation) / 2 * movement
    }

    /// A word without the punctuation around it.
    static func bare(_ word: String) -> String {
        let trimmed = word.trimmingCharacters(in: .punctuationCharacters.union(.symbols))
        return trimmed.isEmpty ? word : trimmed
    }
}
