import Foundation

/// What an alignment of a take with its rendered text shows, as the verdict weighs it: how well
/// the words fit (against their sounds backwards), which phrases were found and how evenly
/// their lengths follow their renderings', how much speech lies outside them, and how clearly
/// each phrase found is told apart from its neighbours in the text (measured only when asked:
/// it aligns each with eleven others).
struct AlignmentEvidence {
    /// The share of the phrases' speech whose words fit better than their sounds backwards.
    var agreement: Double
    /// The text's phrases, and those found (in order).
    var phraseCount: Int
    var found: [Int]
    /// How much the take's speed against the rendering's varies between the phrases found
    /// (standard deviation of the log ratio), over them all and without the two furthest.
    var lengthSpread: Double
    var robustLengthSpread: Double
    /// The share of the take's speech outside every phrase found.
    var unmatchedSpeech: Double
    /// How clearly each phrase found is told apart from its neighbours (standard deviations).
    var toldApart: () -> [Double]

    /// Whether the alignment found every phrase.
    var foundAll: Bool { found.count == phraseCount }

    /// The evidence of `alignment`; `toldApart` measures, when asked, how clearly each phrase
    /// found is told apart.
    init(_ alignment: ContentAligner.Alignment, phraseCount: Int, toldApart: @escaping () -> [Double]) {
        self.init(
            agreement: alignment.overallAgreement, phraseCount: phraseCount, found: alignment.found,
            lengthSpread: alignment.lengthSpread, robustLengthSpread: alignment.robustLengthSpread,
            unmatchedSpeech: alignment.unmatchedSpeech, toldApart: toldApart)
    }

    init(
        agreement: Double, phraseCount: Int, found: [Int], lengthSpread: Double, robustLengthSpread: Double,
        unmatchedSpeech: Double, toldApart: @escaping () -> [Double]
    ) {
        (self.agreement, self.phraseCount, self.found) = (agreement, phraseCount, found)
        (self.lengthSpread, self.robustLengthSpread, self.unmatchedSpeech) =
            (lengthSpread, robustLengthSpread, unmatchedSpeech)
        var measured: [Double]?
        self.toldApart = {
            if let measured { return measured }
            let values = toldApart()
            measured = values
            return values
        }
    }
}

/// Whether a take reads its text where an alignment placed its phrases: from the evidence
/// alone, no audio (a test gives it recorded alignments). The words must fit clearly better
/// than their sounds backwards, and the phrases found follow their renderings' lengths; where
/// they fit only loosely (a voice far from the synthesizer's, or another text), the phrases
/// found must also be told apart from their neighbours in the text.
struct AlignmentVerdict {
    var parameters: TakeCutter.Parameters.Verdict

    /// What the verdict found: the take reads its text, and these phrases found (indices into
    /// the text) are where the alignment went wrong and keep no clip.
    struct Reading: Equatable {
        var misplaced: Set<Int> = []
    }

    /// The take's reading of its text that `evidence` shows, or nil where it shows none.
    /// `leftOutCheaply`: the path left speech out as cheaply as a voice like the synthesizer's
    /// own words cost (a second path, for such a voice only), which can pick a few stretches of
    /// any take that fit a few phrases: there the words must fit as such a voice's do, and
    /// several phrases be told apart. In a long text (``TakeCutter/Parameters/Verdict/leastMisplacingText``) whose
    /// phrases found are told apart from their neighbours on the whole, a few that are not are
    /// where the alignment went wrong (a line the reader skipped, squeezed between its
    /// neighbours, or speech the text does not hold taken for a line): they are misplaced,
    /// and the rest is believed.
    func judge(_ evidence: AlignmentEvidence, leftOutCheaply: Bool) -> Reading? {
        let agreement = evidence.agreement
        let strong = agreement >= parameters.strongAgreement
        let partial = !evidence.foundAll
        guard !leftOutCheaply || strong else { return nil }
        // Where the words fit clearly, a phrase or two out of proportion is a rendering with
        // words the reader did not say; where they fit loosely, it may be a phrase stretched over
        // speech the text does not hold.
        guard
            evidence.lengthSpread <= parameters.maximumSpread
                || (strong && evidence.robustLengthSpread <= parameters.maximumSpread)
        else { return nil }
        let told = evidence.toldApart
        let meanTold = {
            let values = told()
            return values.isEmpty ? -Double.infinity : values.reduce(0, +) / Double(values.count)
        }
        let eachTold = { told().allSatisfy { $0 >= parameters.phraseIdentification } }
        // Phrases told apart well enough to be these: clearly on average, and in a small text
        // (each compared with few others, and chance tells a few apart), each of them.
        let toldApartEnough = {
            meanTold() >= parameters.minimumIdentification
                && (evidence.phraseCount >= parameters.smallText || eachTold())
        }
        // A text of one or two phrases, which cannot be told apart: all found, and hardly any
        // speech outside them.
        let foundWhole = { !partial && evidence.unmatchedSpeech <= parameters.maximumUnmatchedSpeech }
        // Some phrases found one after the other, each told apart, with hardly any speech
        // outside them: a take of the middle of its text needs no more than the whole text does.
        let partialRun = {
            let found = evidence.found
            return found.count >= parameters.leastPartialRun
                && evidence.unmatchedSpeech <= parameters.maximumUnmatchedSpeech
                && found[found.count - 1] - found[0] == found.count - 1
                && meanTold() >= parameters.minimumIdentification
                && eachTold()
        }
        let fitting =
            (agreement >= (partial ? parameters.minimumPartialAgreement : parameters.minimumAgreement)
                || (agreement >= parameters.minimumAgreement && partialRun()))
            && (evidence.lengthSpread <= parameters.maximumWeakSpread || strong)
            && ((strong && (evidence.found.count >= 3 || !partial))
                || (evidence.phraseCount < 3 ? foundWhole() : toldApartEnough()))
        // ...or, for a voice far from the synthesizer's, each of several phrases found is told
        // apart (with fewer, chance can tell them apart as well).
        let identifiedOnTheWhole = {
            evidence.found.count >= parameters.leastIdentifiedPhrases
                && meanTold() >= parameters.minimumIdentification && agreement >= parameters.leastAgreement
        }
        // In a long text, the phrases found not told apart, where the others are.
        let notToldApart = {
            let values = told()
            let indices = evidence.found.indices.filter { values[$0] < parameters.phraseIdentification }
            return Set(indices.map { evidence.found[$0] })
        }
        let long = evidence.phraseCount >= parameters.leastMisplacingText
        if leftOutCheaply { return fitting && identifiedOnTheWhole() && eachTold() ? Reading() : nil }
        // Words that fit clearly are believed without telling phrases apart; where they were
        // told apart, those that were not are misplaced.
        if fitting { return Reading(misplaced: strong || !long ? [] : notToldApart()) }
        guard identifiedOnTheWhole() else { return nil }
        if eachTold() { return Reading() }
        guard long else { return nil }
        let misplaced = notToldApart()
        guard evidence.found.count - misplaced.count >= parameters.leastIdentifiedPhrases else { return nil }
        return Reading(misplaced: misplaced)
    }
}
