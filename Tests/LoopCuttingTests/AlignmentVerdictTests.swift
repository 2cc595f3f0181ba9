import Testing

@testable import LoopCutting

/// The verdict on an alignment, from its figures alone: no audio, no synthesizer. Each case is
/// the shape of evidence a kind of take gives (the figures are of the order the development
/// sets show), so that a change to how the verdict weighs them is seen here first.
struct AlignmentVerdictTests {
    private let verdict = AlignmentVerdict(parameters: TakeCutter.Parameters.Verdict())

    /// Evidence of an alignment of a text of `phraseCount` phrases; `toldApart` counts how
    /// often it is measured (it aligns each phrase with eleven others: the costly part).
    private func evidence(
        agreement: Double, phraseCount: Int = 8, found: [Int]? = nil, spread: Double = 0.08,
        robustSpread: Double? = nil, unmatched: Double = 0.02, toldApart: Double = 3.0, measured: Counter? = nil
    ) -> AlignmentEvidence {
        let found = found ?? Array(0..<phraseCount)
        return AlignmentEvidence(
            agreement: agreement, phraseCount: phraseCount, found: found, lengthSpread: spread,
            robustLengthSpread: robustSpread ?? spread, unmatchedSpeech: unmatched,
            toldApart: {
                measured?.count += 1
                return Array(repeating: toldApart, count: found.count)
            })
    }

    final class Counter { var count = 0 }

    @Test func aVoiceLikeTheSynthesizersReadingItsTextIsTakenWithoutTellingPhrasesApart() {
        let measured = Counter()
        #expect(verdict.judge(evidence(agreement: 0.9, measured: measured), leftOutCheaply: false) != nil)
        #expect(measured.count == 0, "words that fit clearly need no phrase told apart")
    }

    @Test func anotherTextIsRefused() {
        // Words that fit hardly better than backwards, phrases no better told from the next.
        #expect(verdict.judge(evidence(agreement: 0.52, toldApart: 0.4), leftOutCheaply: false) == nil)
        // Words that happen to fit, but lengths out of proportion with the text's.
        #expect(verdict.judge(evidence(agreement: 0.7, spread: 0.4, toldApart: 0.4), leftOutCheaply: false) == nil)
    }

    /// A real speaker: words fit loosely, but each phrase is clearly the one it is said to be.
    @Test func aVoiceFarFromTheSynthesizersIsTakenWhereItsPhrasesAreToldApart() {
        #expect(verdict.judge(evidence(agreement: 0.6, spread: 0.18, toldApart: 3.0), leftOutCheaply: false) != nil)
        #expect(verdict.judge(evidence(agreement: 0.6, spread: 0.18, toldApart: 1.0), leftOutCheaply: false) == nil)
        #expect(
            verdict.judge(evidence(agreement: 0.5, spread: 0.18, toldApart: 3.0), leftOutCheaply: false) == nil,
            "words that fit no better than this are not a reading, however the phrases compare")
    }

    /// Three phrases whose words fit loosely are too few to be told apart by more than chance:
    /// however clearly they seem to be, the take is refused.
    @Test func threePhrasesThatFitLooselyAreRefusedThoughToldApart() {
        #expect(verdict.judge(evidence(agreement: 0.6, phraseCount: 3, toldApart: 3.0), leftOutCheaply: false) == nil)
        #expect(verdict.judge(evidence(agreement: 0.7, phraseCount: 3, toldApart: 3.0), leftOutCheaply: false) != nil)
    }

    /// The path that leaves speech out cheaply can pick stretches of any take that fit a few
    /// phrases: there loose words are never enough.
    @Test func aPathThatLeftSpeechOutCheaplyMustFitAsTheSynthesizersOwnWords() {
        #expect(verdict.judge(evidence(agreement: 0.7, toldApart: 3.0), leftOutCheaply: true) == nil)
        #expect(verdict.judge(evidence(agreement: 0.85, toldApart: 3.0), leftOutCheaply: true) != nil)
        #expect(verdict.judge(evidence(agreement: 0.85, toldApart: 1.0), leftOutCheaply: true) == nil)
    }

    /// A long take whose reader skipped a line: the alignment squeezed it between its
    /// neighbours, and those few are not told apart where the rest are. The take is believed;
    /// the few are misplaced (no clip) rather than the take refused. In a short text chance
    /// tells as many apart, and the take is refused as before.
    @Test func aFewPhrasesNotToldApartInALongTakeAreMisplacedNotTheTakeRefused() {
        let squeezed: Set<Int> = [22, 23, 24, 61]
        let long = AlignmentEvidence(
            agreement: 0.77, phraseCount: 81, found: Array(0..<81), lengthSpread: 0.2, robustLengthSpread: 0.06,
            unmatchedSpeech: 0.01, toldApart: { (0..<81).map { squeezed.contains($0) ? 0.2 : 6.0 } })
        #expect(verdict.judge(long, leftOutCheaply: false) == AlignmentVerdict.Reading(misplaced: squeezed))
        #expect(verdict.judge(long, leftOutCheaply: true) == nil, "the cheap path still wants each told apart")
        let short = AlignmentEvidence(
            agreement: 0.77, phraseCount: 6, found: Array(0..<6), lengthSpread: 0.2, robustLengthSpread: 0.06,
            unmatchedSpeech: 0.01, toldApart: { [6, 6, 0.2, 6, 6, 6] })
        #expect(verdict.judge(short, leftOutCheaply: false) == nil)
        let allToldApart = evidence(agreement: 0.6, phraseCount: 81, spread: 0.18, toldApart: 3.0)
        #expect(verdict.judge(allToldApart, leftOutCheaply: false) == AlignmentVerdict.Reading())
    }

    /// A take of the middle of its text: phrases found one after the other, each told apart,
    /// little speech outside them. Found with gaps, they may be chance.
    @Test func aRunOfPhrasesIsTakenForPartOfTheText() {
        let run = evidence(agreement: 0.7, phraseCount: 12, found: [4, 5, 6], toldApart: 3.0)
        #expect(verdict.judge(run, leftOutCheaply: false) != nil)
        let scattered = evidence(agreement: 0.7, phraseCount: 12, found: [2, 5, 9], toldApart: 3.0)
        #expect(verdict.judge(scattered, leftOutCheaply: false) == nil)
        let amidOtherSpeech = evidence(agreement: 0.7, phraseCount: 12, found: [4, 5, 6], unmatched: 0.4)
        #expect(verdict.judge(amidOtherSpeech, leftOutCheaply: false) == nil)
    }

    /// One or two phrases cannot be told apart: they must be found whole, with hardly any
    /// speech outside them.
    @Test func aTextOfTwoPhrasesMustHoldTheWholeTake() {
        #expect(verdict.judge(evidence(agreement: 0.7, phraseCount: 2, toldApart: 0), leftOutCheaply: false) != nil)
        #expect(
            verdict.judge(
                evidence(agreement: 0.7, phraseCount: 2, unmatched: 0.3, toldApart: 0), leftOutCheaply: false) == nil)
    }

    /// In a small text each phrase is compared with few others, so each must be told apart,
    /// not just their mean.
    @Test func inASmallTextEachPhraseMustBeToldApart() {
        let small = AlignmentEvidence(
            agreement: 0.7, phraseCount: 4, found: [0, 1, 2, 3], lengthSpread: 0.08, robustLengthSpread: 0.08,
            unmatchedSpeech: 0.02, toldApart: { [6, 6, 0.2, 6] })
        #expect(verdict.judge(small, leftOutCheaply: false) == nil)
        let each = AlignmentEvidence(
            agreement: 0.7, phraseCount: 4, found: [0, 1, 2, 3], lengthSpread: 0.08, robustLengthSpread: 0.08,
            unmatchedSpeech: 0.02, toldApart: { [3, 3, 2.5, 3] })
        #expect(verdict.judge(each, leftOutCheaply: false) != nil)
    }

    @Test func howClearlyPhrasesAreToldApartIsMeasuredOnceAtMost() {
        let measured = Counter()
        _ = verdict.judge(evidence(agreement: 0.6, spread: 0.18, measured: measured), leftOutCheaply: false) != nil
        #expect(measured.count == 1)
    }
}
