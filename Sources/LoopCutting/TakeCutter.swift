import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopSpeech
import Synchronization

/// Cuts a take into its phrases: by what is said when its text is known (``ContentAligner``,
/// each cut then placed on the pause or the quietest point there), else at its pauses
/// (``SilenceSegmenter``). The one cutter every path from a take to clips goes through.
public struct TakeCutter: Sendable {
    /// What cuts at pauses, when the text cannot.
    public var segmenter: SilenceSegmenter
    /// The language the text is read in (`--language`); else the hint's (the loop's), else a
    /// guess from the text.
    public var language: String?
    /// What renders the text (espeak-ng: one owner at a time, given by whoever cuts).
    public let synthesizer: SpeechSynthesizer

    /// The cutter's tunables, grouped by the stage that reads them. The figures of the
    /// development sets they were chosen on are in docs/cutting.md ("The cutter's thresholds").
    public struct Parameters: Sendable {
        /// Where a cut goes, once the phrases are placed.
        public struct Placement: Sendable {
            /// A real pause this close to the aligned join (seconds) takes the cut. Wider finds
            /// a reader's pause a word away; too wide, a pause inside the next phrase.
            public var pauseReach = 0.2
            /// Without a pause, the cut goes to the quietest point this close (seconds) to the
            /// join: wider moves it off the join onto a quieter consonant.
            public var quietReach = 0.06
            /// A pause with this much silence (seconds) between two phrases' words makes a cut
            /// certain; shorter, its confidence rests on the words too.
            public var clearCutPause = 0.15
            /// Speech the text does not hold (between phrases, before or after them) is left out
            /// of every clip when it lasts at least this long (seconds); shorter, it stays with its
            /// phrase (a breath, a word's tail). Lower leaves out more, and cuts more slivers.
            public var minimumFiller = 0.25
            /// Such speech, when it lasts at most this long (seconds), follows a pause and runs
            /// into the phrase after it, is that phrase's words said otherwise ("Está lloviendo"
            /// for "Llueve") and stays in its clip. Longer keeps more paraphrase, and more of an
            /// added sentence's tail.
            public var longestAttachedWords = 0.6
            /// The silence (seconds) that parts such words from their phrase, or from what came before.
            public var attachedWordsPause = 0.1
        }

        /// Whether the take reads its text where the alignment placed it (``AlignmentVerdict``).
        public struct Verdict: Sendable {
            /// The share of the phrases' speech whose words fit the take better than the same
            /// sounds backwards that a take of its text reaches: another text or language 0.55-0.63
            /// on the development sets, a voice like the synthesizer's 0.9-1, a real speaker's
            /// 0.6-0.7. Higher refuses more real voices; lower cuts more other texts.
            public var minimumAgreement = 0.64
            /// The same, when only some of the phrases are found: a text's phrases matched here
            /// and there in a take of another text are what this refuses.
            public var minimumPartialAgreement = 0.75
            /// Some phrases found one after the other, at least this many, each told apart from
            /// its neighbours with hardly any speech outside them, need only
            /// ``minimumAgreement``: a take of the middle of its text by a voice far from the
            /// synthesizer's.
            public var leastPartialRun = 2
            /// The take's speed against the rendering's varies less than this between the phrases
            /// found (standard deviation of the log ratio): a phrase stretched over speech it does
            /// not hold varies it more. Higher accepts more such stretches.
            public var maximumSpread = 0.25
            /// ...less than this where the agreement is below ``strongAgreement``: where the voice
            /// is far from the synthesizer's, the phrases' lengths must agree too.
            public var maximumWeakSpread = 0.12
            /// Words that fit at least this well are a voice like the synthesizer's: what they
            /// say needs less else to be believed.
            public var strongAgreement = 0.8
            /// Where the words fit too loosely for all that, a text of three phrases or more is
            /// read in the take when its phrases found are told apart from their neighbours in
            /// the text by at least this much on average (standard deviations: another text or
            /// language -1 to 2 on the development sets, real speakers 2.2-13, voices like the
            /// synthesizer's 4.6-40; ``ContentAligner/identification``).
            public var minimumIdentification = 2.0
            /// A text of fewer phrases than this needs each phrase told apart, not only on
            /// average: each is compared with fewer others, and chance tells a few apart.
            public var smallText = 6
            /// Told apart, at least this many phrases must be found, for a voice far from the
            /// synthesizer's to be believed on that alone.
            public var leastIdentifiedPhrases = 4
            /// Each phrase found must be told apart by at least this much: one that is not,
            /// where the others are, is where the alignment went wrong (an intro taken for the
            /// first phrase).
            public var phraseIdentification = 1.0
            /// In a text of at least this many phrases, found phrases told apart on the whole
            /// but for a few are believed, the few misplaced (a line the reader skipped, squeezed
            /// between its neighbours) and given no clip, rather than the take refused: each
            /// phrase is then told from its full ten neighbours
            /// (``ContentAligner/Parameters/identificationNeighbours`` on either side, and
            /// itself). In a shorter text chance tells more apart: another text of six phrases
            /// was cut, and takes read with pauses were cut there worse than at their pauses.
            public var leastMisplacingText = 11
            /// Told apart, the words must still fit better than their sounds backwards on at
            /// least this share of their speech.
            public var leastAgreement = 0.55
            /// "Hardly any speech outside the phrases": at most this share of the take's speech
            /// (where the phrases cannot be told apart, or only a run of them is found; and before
            /// a take is cut at its pauses). Higher lets an intro or an added sentence through.
            public var maximumUnmatchedSpeech = 0.1
            /// Speech the text does not hold is left out, on a second path, at this share of
            /// what unrelated words cost (what a voice like the synthesizer's own words cost).
            public var retriedFillerCost: Float = 0.6
            /// ...and each rendered speech frame of a phrase the take does not read at each of
            /// these shares in turn, until one is accepted (the first alignment's, then less: a
            /// text that goes on well past the take). Each more costs an alignment.
            public var retriedSkipCosts: [Float] = [0.4, 0.2]
        }

        /// Which of the phrases found keep a clip.
        public struct Phrases: Sendable {
            /// A phrase keeps its clip when its words fit the take better than its sounds
            /// backwards on at least this share of its speech...
            public var phraseAgreement = 0.6
            /// ...or, where the take's words fit less well as a whole (a voice far from the
            /// synthesizer's), on the take's own share less this much.
            public var phraseAgreementMargin = 0.15
            /// A short phrase, whose words are too few to tell from their sounds backwards, keeps
            /// it on at least this share when its length against its rendering's is within
            /// ``phraseLengthDeviation`` (log ratio) of the other phrases'.
            public var leastPhraseAgreement = 0.45
            /// See ``leastPhraseAgreement``.
            public var phraseLengthDeviation = 0.3
            /// A phrase whose length against its rendering's is further than this (log ratio)
            /// from the other phrases' gets no clip, however well its few frames fit: a sliver of
            /// the phrase before it (a text's own phrases: within 1.16 on the development sets).
            public var greatestLengthDeviation = 1.2
            /// Where the take's words fit clearly (``Verdict/strongAgreement``), a phrase whose
            /// words fit less than this keeps its clip only when told apart from its neighbours by
            /// at least ``doubtfulIdentification``: speech the text does not hold (an outro, a
            /// sentence before the text) matched to a line the take does not read fits 0.5-0.85
            /// and is told apart by -5 to 2.5; a line read otherwise (a paraphrase) by 2.6-40.
            public var doubtfulAgreement = 0.85
            /// The same beside a line the take does not read (where such speech is): an outro
            /// sentence in one synthetic take fitted 0.66-0.90 over 16 renderings. Everywhere, it
            /// would tell apart most phrases of an hour's take, 2.6 s more.
            public var doubtfulAgreementBesideUnread = 0.95
            /// See ``doubtfulAgreement``.
            public var doubtfulIdentification = 2.5
            /// A phrase of less than this much rendered speech (seconds: "Gut.", "No, thanks.")
            /// has too few sounds to be told apart, and is spared.
            public var doubtfulSpeech = 1.0
        }

        /// When the words cannot be matched well enough, a take read with clear pauses is cut at
        /// them.
        public struct PausedFallback: Sendable {
            /// Every phrase parted by at least this much silence (seconds): a take read with
            /// pauses on purpose.
            public var clearPause = 0.12
            /// Its words agree with the text at least this well (another text's 0.55-0.61 on the
            /// development sets), and the alignment found every phrase.
            public var minimumPausedAgreement = 0.62
            /// (The alignment left at most ``Verdict/maximumUnmatchedSpeech`` of its speech out
            /// of every phrase: no intro, no added sentence, which the pauses would give clips.)
            /// Its clips' lengths against their phrases' renderings vary less than this (standard
            /// deviation of the log ratio): a take of the text keeps its phrases' lengths in
            /// proportion (0.10-0.20 on the development set), another text cut at as many pauses,
            /// or a take with an intro, does not (0.25-0.36).
            public var maximumPausedSpread = 0.22
            /// Its clips are told apart from their neighbours in the text by this much on
            /// average, as the phrases an alignment finds must be (another text's: about 0).
            public var pausedIdentification = 2.0
        }

        /// Where even that fails, phrases told apart among the take's pause-parted stretches
        /// (``PhraseSpotter``).
        public struct Spotting: Sendable {
            /// At least this many told apart; each one more allows one break in their order (a
            /// line skipped, a sentence added).
            public var leastSpotted = 3
            /// Their standard deviations beyond ``Verdict/phraseIdentification`` add up to at
            /// least this: three phrases told apart by chance in another text's take, from 3.3
            /// on the development sets; a take of the text, from 5.4.
            public var spottedEvidence = 5.0
        }

        /// When the take reads a stretch of a much longer text (a chapter of its book), and
        /// which stretch (``TakeLocator``).
        public struct Location: Sendable {
            /// A text whose rendered speech is at least this many times the take's is located
            /// before it is aligned: below it, the aligner's own free start and end find a part
            /// of the text (the first lines, one group, ten lines either side); above it, a
            /// text's other lines would outweigh the take's in one path.
            public var longerText = 3.0
        }

        /// How cuts are placed in the alignment's pauses.
        public var placement = Placement()
        /// What makes an alignment one to cut by.
        public var verdict = Verdict()
        /// What makes each phrase's clip one to keep.
        public var phrases = Phrases()
        /// When a take read with pauses is cut at them instead.
        public var pausedFallback = PausedFallback()
        /// When phrases are spotted among the pause-parted stretches.
        public var spotting = Spotting()
        /// When and how a take is found in a longer text.
        public var location = Location()
        /// Rendering a byte of text takes about as long as reading and measuring this many of a
        /// take's samples (every channel's; espeak-ng against a FLAC take on a benchmark machine):
        /// on two cores, how the work is shared when a second process renders beside the measuring.
        public var samplesPerRenderedByte = 3_000

        /// The figures the development sets were tuned on.
        public init() {}
    }

    /// The figures it cuts by (docs/cutting.md, "The cutter's thresholds").
    public var parameters = Parameters()

    /// A cutter; `language` overrides the hint's, `synthesizer` renders the text.
    public init(
        segmenter: SilenceSegmenter = SilenceSegmenter(), language: String? = nil, synthesizer: SpeechSynthesizer
    ) {
        self.segmenter = segmenter
        self.language = language
        self.synthesizer = synthesizer
    }

    /// Cuts the take at `path`. `progress` receives the share done (0...1).
    public func cut(path: String, hint: SegmentationHint, progress: (@Sendable (Double) -> Void)? = nil) throws
        -> Segmentation
    {
        try measureAndCut(path: path, hint: hint, progress: progress).segmentation
    }

    /// Cuts the take at `path`, with its measured levels (for drawing it).
    public func measureAndCut(path: String, hint: SegmentationHint, progress: (@Sendable (Double) -> Void)? = nil)
        throws
        -> (envelope: EnergyEnvelope, segmentation: Segmentation)
    {
        let atPauses = { (note: String?) throws -> (envelope: EnergyEnvelope, segmentation: Segmentation) in
            let envelope = try EnergyEnvelope.measure(
                path: path, parallelism: segmenter.parameters.threads, progress: progress)
            var segmentation = try segmenter.segment(envelope, hint: hint, path: path)
            if let note { segmentation.notes.append(note) }
            return (envelope, segmentation)
        }
        guard case .text(let phrases, let loopLanguage) = hint, !phrases.isEmpty else { return try atPauses(nil) }
        guard let language = SpeechLanguage.resolve(given: language, loop: loopLanguage, text: phrases) else {
            return try atPauses(nil)
        }
        let renderingRate: Int
        do {
            renderingRate = try synthesizer.outputRate()
        } catch {
            return try atPauses("\(error.message): cut at its pauses instead of following the text")
        }
        // A text far longer than the take is refused before it is rendered (its header's length:
        // unknown, 0, is no refusal).
        let info = try AudioFileReader(path: path).info
        if info.frameCount > 0, info.sampleRate > 0,
            let refusal = TextFit.refusal(phrases, takeSeconds: Double(info.frameCount) / Double(info.sampleRate))
        {
            throw SegmentationError(.textLongerThanTake, refusal, path: path)
        }
        // The text is rendered while the take is read. The header's length is the file's word
        // only: once the take is read, a text far longer than what it holds (or a take that
        // cannot be read) stops the rendering at its next phrase.
        let upper = CepstrumMeter.upperFrequency(sampleRates: [info.sampleRate, renderingRate])
        let renderingUnwanted = Atomic<Bool>(false)
        let sharing = sharing(phrases, info)
        let (rendering, measuring) = bothAtOnce(
            {
                Result {
                    var aligner = ContentAligner()
                    aligner.parameters.halvesAtOnce = sharing.secondProcess
                    return try aligner.render(phrases, in: language, upperFrequency: upper, synthesizer: synthesizer) {
                        renderingUnwanted.load(ordering: .relaxed)
                    }
                }
            },
            {
                let measured = Result {
                    try measure(
                        path: path, renderingRate: renderingRate, threads: sharing.measuring, progress: progress)
                }
                let fits = (try? measured.get()).map {
                    TextFit.refusal(phrases, takeSeconds: $0.envelope.duration) == nil
                }
                if fits != true { renderingUnwanted.store(true, ordering: .relaxed) }
                return measured
            })
        let take = try measuring.get()
        if let refusal = TextFit.refusal(phrases, takeSeconds: take.envelope.duration) {
            throw SegmentationError(.textLongerThanTake, refusal, path: path)
        }
        switch rendering {
        case .failure(let error as SpeechError):
            return try atPauses("\(error.message): cut at its pauses instead of following the text")
        case .failure(let error):
            throw error
        case .success(let rendering):
            return try locateAndAlign(take, path: path, phrases: phrases, rendering: rendering, language: language)
        }
    }

    /// Aligns the take with its text, or, when the text is much longer than the take
    /// (``Parameters/Location/longerText``), with the stretch of it the take reads
    /// (``TakeLocator``): the phrases most of whose rendering the located path covers. The rest
    /// of the text is absent.
    private func locateAndAlign(
        _ take: MeasuredTake, path: String, phrases: [String], rendering: ContentAligner.Rendering,
        language: SpeechLanguage
    ) throws -> (envelope: EnergyEnvelope, segmentation: Segmentation) {
        let takeSpeech = take.analysis.isSpeech.reduce(0) { $0 + ($1 ? 1 : 0) }
        let renderedSpeech = rendering.frames.quiet.reduce(0) { $0 + ($1 ? 0 : 1) }
        let location = parameters.location
        guard phrases.count > 1, Double(renderedSpeech) >= location.longerText * Double(max(takeSpeech, 1)) else {
            return try align(take, path: path, phrases: phrases, rendering: rendering, language: language)
        }
        let stretch = TakeLocator().stretch(of: take.frames(0..<take.envelope.levels.count), in: rendering)
        guard let kept = stretch, kept.count >= parameters.spotting.leastSpotted else {
            return try align(take, path: path, phrases: phrases, rendering: rendering, language: language)
        }
        // No margin: a phrase beside the stretch that the take does not read costs the alignment
        // more (book-dev: three phrases either side, 4 clips on other lines; none, 1) than one
        // the locator leaves out, which the path's ends do not (within a phrase there).
        var (envelope, segmentation) = try align(
            take, path: path, phrases: Array(phrases[kept]),
            rendering: rendering.phrases(kept, joinFrames: ContentAligner().parameters.joinFrames), language: language)
        segmentation.phrases = segmentation.phrases?.map { $0 + kept.lowerBound }
        if let found = segmentation.phrases, let firstFound = found.first, let lastFound = found.last {
            segmentation.located = firstFound...lastFound
        }
        return (envelope, segmentation)
    }

    /// How the cores are shared between rendering the text and measuring the take, which run at
    /// once: a long text's second half rendered by a second process or not, and the threads
    /// that measure the take. With three threads or more, a second process and the rest of the
    /// threads; with one, neither. With two, by the work each has (the header's length is a
    /// guess here: a wrong one costs time, never a cut): a text that takes at least twice as
    /// long to render as the take to measure (a 16 kHz mono chapter) gets a second process
    /// beside one measuring thread; a take at least twice as heavy gets both threads; between
    /// them (a 44.1 kHz stereo chapter), one each; with no length in the header, both for the take.
    private func sharing(_ phrases: [String], _ info: AudioFileInfo) -> (secondProcess: Bool, measuring: Int) {
        let threads = segmenter.parameters.threads
        guard threads == 2 else { return (threads > 2, max(1, threads - 1)) }
        // A header with no length (a stream): the take is measured as before, on both threads.
        guard info.frameCount > 0 else { return (false, threads) }
        let rendering = Double(phrases.reduce(0) { $0 + $1.utf8.count }) * Double(parameters.samplesPerRenderedByte)
        let measuring = Double(max(info.frameCount, 0)) * Double(max(info.channelCount, 1))
        if rendering >= 2 * measuring { return (true, 1) }
        return (false, measuring >= 2 * rendering ? 2 : 1)
    }

    /// A take measured for alignment: its levels, its pauses and its frame features.
    struct MeasuredTake {
        var envelope: EnergyEnvelope
        var analysis: PauseAnalysis
        var features: FeatureMatrix
        var upperFrequency: Double

        /// The take's frames for the hops `hops`, as the warping reads them.
        func frames(_ hops: Range<Int>) -> DynamicTimeWarping.Frames {
            let d = FeatureMatrix.dimension
            // The whole take shares its features rather than copying them.
            let values =
                hops == 0..<features.frameCount
                ? features.values : Array(features.values[(hops.lowerBound * d)..<(hops.upperBound * d)])
            return .init(features: values, quiet: analysis.isSpeech[hops].map { !$0 })
        }
    }

    /// Reads the take once: levels and features in one parallel pass.
    func measure(path: String, renderingRate: Int, threads: Int? = nil, progress: (@Sendable (Double) -> Void)?)
        throws -> MeasuredTake
    {
        var (info, frames, parts) = try TakeReading.read(
            path: path, parallelism: threads ?? segmenter.parameters.threads, progress: progress
        ) { info in
            let upper = CepstrumMeter.upperFrequency(sampleRates: [info.sampleRate, renderingRate])
            return try AlignmentMeter(sampleRate: info.sampleRate, upperFrequency: upper)
        }
        let hop = EnergyEnvelope.hopFrames(sampleRate: info.sampleRate)
        let envelope = EnergyEnvelope(
            hopFrames: hop, sampleRate: info.sampleRate, channelCount: info.channelCount,
            frameCount: frames, levels: parts.flatMap(\.levels))
        let analysis: PauseAnalysis
        do {
            analysis = try PauseAnalysis(envelope: envelope)
        } catch {
            var named = error
            named.subject = path
            throw named
        }
        let hops = envelope.levels.count
        // The first part's reading has room for the others (TakeReading), which join it one by
        // one and are let go: never two copies of an hour's features.
        var values = parts[0].cepstra
        parts[0].cepstra = []
        for index in parts.indices.dropFirst() {
            values += parts[index].cepstra
            parts[index].cepstra = []
        }
        var features = FeatureMatrix(values: values)
        values = []
        if features.frameCount > hops {
            features.values.removeLast((features.frameCount - hops) * FeatureMatrix.dimension)
        }
        while features.frameCount < hops {
            features.values.append(contentsOf: repeatElement(0, count: FeatureMatrix.dimension))
        }
        features.normalise { analysis.isSpeech[$0] }
        return MeasuredTake(
            envelope: envelope, analysis: analysis, features: features,
            upperFrequency: CepstrumMeter.upperFrequency(sampleRates: [info.sampleRate, renderingRate]))
    }

    /// The phrases placed in the take: the hops where clips change (between two phrases, or
    /// between a phrase and speech the text does not hold) and what each stretch between them reads.
    struct PlacedRun {
        /// Per stretch (one more than `cutHops`), the text phrase it reads, or nil for speech
        /// that is in no phrase (an intro, an added sentence, a false start).
        var reads: [Int?]
        var cutHops: [Int]
        var confidences: [Double]
        var silences: [Double]
        /// The phrases found, in order.
        var found: [Int] { reads.compactMap { $0 } }
    }

    /// Where an alignment placed the phrases, or, when the take there does not read them, what
    /// the alignment showed (what the fallbacks then weigh).
    enum Placement {
        case placed(PlacedRun)
        case refused(AlignmentEvidence)

        /// The run, when placed.
        var run: PlacedRun? {
            if case .placed(let run) = self { return run }
            return nil
        }
    }

    /// Aligns the take's hops `hops` with the rendered phrases, keeps the phrases whose words are
    /// heard there and places a cut at each edge between them and what the text does not hold;
    /// or what the alignment showed when the take there does not read them (``AlignmentVerdict``).
    ///
    /// `leftOut`: what speech the text does not hold and each rendered speech frame of a phrase
    /// the take does not read cost the alignment (shares of what unrelated words cost); by
    /// default, measured on a first path and ``ContentAligner/Parameters/skipCost``. With them,
    /// the words must fit as a voice like the synthesizer's do (``Parameters/Verdict/strongAgreement``),
    /// several phrases each told apart.
    func place(
        _ rendering: ContentAligner.Rendering, in take: MeasuredTake, hops: Range<Int>,
        leftOut: (fillerCost: Float, skipCost: Float)? = nil
    ) -> Placement {
        let frames = take.frames(hops)
        let alignment = ContentAligner().align(
            take: frames, rendering: rendering, fillerCost: leftOut?.fillerCost, skipCost: leftOut?.skipCost)
        let evidence = AlignmentEvidence(alignment, phraseCount: rendering.phrases.count) {
            let identification = ContentAligner().identification(
                take: frames, rows: alignment.phraseRows, rendering: rendering, warping: alignment.warping)
            return alignment.found.map { identification[$0] ?? -.infinity }
        }
        guard
            let reading = AlignmentVerdict(parameters: parameters.verdict).judge(
                evidence, leftOutCheaply: leftOut != nil)
        else {
            return .refused(evidence)
        }
        let placed =
            reading.misplaced.isEmpty
            ? alignment : mended(alignment, misplaced: reading.misplaced, take: frames, rendering: rendering)
        let kept = heardPhrases(
            keptPhrases(placed), in: placed, take: frames, rendering: rendering,
            hopDuration: take.analysis.envelope.hopDuration)
        // (Each phrase kept was found, so has its rows.)
        let rows = kept.compactMap { placed.phraseRows[$0] }
        guard !kept.isEmpty, rows.count == kept.count else { return .refused(evidence) }
        let analysis = take.analysis
        let shift = hops.lowerBound
        let minimumFiller = Int((parameters.placement.minimumFiller / analysis.envelope.hopDuration).rounded())
        // Speech hops in a stretch of the take (relative hops).
        let speechHops = { (stretch: Range<Int>) -> [Int] in
            stretch.filter { analysis.isSpeech[$0 + shift] }
        }
        var run = PlacedRun(reads: [], cutHops: [], confidences: [], silences: [])
        let addCut = { (run: inout PlacedRun, join: ClosedRange<Int>, words: Double) in
            let shifted = (join.lowerBound + shift)...(max(join.lowerBound, join.upperBound) + shift)
            let (hop, silence) = place(shifted, analysis, within: hops)
            run.cutHops.append(hop)
            run.silences.append(silence)
            run.confidences.append(confidence(words: words, silence: silence))
        }
        let agreement = kept.map { placed.agreement[$0] ?? 0 }
        // Speech the text does not hold before a phrase found from `phraseStart` on (`extra`,
        // relative hops; `previousSpeech`, the last hop of the phrase before): split into what
        // is left out and the few words said straight into the phrase after a pause, which are
        // that phrase's own said otherwise and stay in its clip.
        let hopDuration = analysis.envelope.hopDuration
        let silence = { (hops: Int) in Double(max(0, hops)) * hopDuration }
        let attachedWords = {
            (extra: [Int], phraseStart: Int, previousSpeech: Int?) -> (
                leftOut: ArraySlice<Int>, attached: ArraySlice<Int>
            ) in
            guard let last = extra.last else { return (extra[...], []) }
            let next = (phraseStart..<hops.count).first { analysis.isSpeech[$0 + shift] } ?? phraseStart
            guard silence(next - last - 1) < parameters.placement.attachedWordsPause else { return (extra[...], []) }
            var start = extra.count - 1
            while start > 0, silence(extra[start] - extra[start - 1] - 1) < parameters.placement.attachedWordsPause {
                start -= 1
            }
            let pauseBefore =
                start > 0
                || previousSpeech.map { silence(extra[0] - $0 - 1) >= parameters.placement.attachedWordsPause } ?? true
            guard pauseBefore, silence(last - extra[start] + 1) <= parameters.placement.longestAttachedWords else {
                return (extra[...], [])
            }
            return (extra[..<start], extra[start...])
        }
        // Before the first phrase found.
        let (lead, leadWords) = attachedWords(speechHops(0..<rows[0].lowerBound), rows[0].lowerBound, nil)
        if lead.count >= minimumFiller, let last = lead.last {
            run.reads.append(nil)
            addCut(&run, (last + 1)...(leadWords.first ?? rows[0].lowerBound), agreement[0])
        }
        run.reads.append(kept[0])
        for index in kept.indices.dropFirst() {
            let before = rows[index - 1]
            let after = rows[index]
            let gap = (before.upperBound + 1)..<max(before.upperBound + 1, after.lowerBound)
            let words = min(agreement[index - 1], agreement[index])
            let previousSpeech = speechHops(before.lowerBound..<(before.upperBound + 1)).last
            let (extra, attached) = attachedWords(speechHops(gap), after.lowerBound, previousSpeech)
            if extra.count >= minimumFiller, let first = extra.first, let last = extra.last {
                addCut(&run, before.upperBound...first, agreement[index - 1])
                run.reads.append(nil)
                addCut(&run, (last + 1)...(attached.first ?? after.lowerBound), agreement[index])
            } else if let said = attached.first {
                // One cut, in the pause before the words said into the phrase.
                let silent = min((extra.last ?? previousSpeech ?? before.upperBound) + 1, said)
                addCut(&run, silent...max(silent, said - 1), words)
            } else {
                addCut(
                    &run,
                    gap.isEmpty
                        ? before.upperBound...max(before.upperBound, after.lowerBound)
                        : gap.lowerBound...(gap.upperBound - 1), words)
            }
            run.reads.append(kept[index])
        }
        // After the last.
        let trail = speechHops((rows[rows.count - 1].upperBound + 1)..<hops.count)
        if trail.count >= minimumFiller, let first = trail.first {
            addCut(&run, rows[rows.count - 1].upperBound...first, agreement[agreement.count - 1])
            run.reads.append(nil)
        }
        // Cuts strictly increase, so every stretch keeps at least one hop.
        for index in run.cutHops.indices.dropFirst() where run.cutHops[index] <= run.cutHops[index - 1] {
            run.cutHops[index] = run.cutHops[index - 1] + 1
        }
        return .placed(run)
    }

    /// `alignment` with the phrases around each run of `misplaced` ones aligned again, alone:
    /// the run and two phrases found on either side of it (which a skipped line may have pushed
    /// off their words too), over the take between the phrases found beyond those. The
    /// stretch is aligned with all its phrases, and with each of them left out in turn (a line
    /// the reader skipped, which the alignment squeezed between its neighbours rather than
    /// leave out); the reading whose phrases are told apart from their neighbours in the text
    /// best on average is kept. A phrase of it must still be told apart
    /// (``Parameters/Verdict/phraseIdentification``); one that is not gets no clip, and what
    /// it was placed on is speech the text does not hold.
    private func mended(
        _ alignment: ContentAligner.Alignment, misplaced: Set<Int>, take: DynamicTimeWarping.Frames,
        rendering: ContentAligner.Rendering
    ) -> ContentAligner.Alignment {
        let believed = alignment.found.filter { !misplaced.contains($0) }
        // Each run's stretch, bounded by the believed phrases found three before and three
        // after it (indices into `believed`; below 0 and `believed.count` for the take's ends).
        var stretches: [(before: Int, after: Int)] = []
        for phrase in misplaced.sorted() {
            let next = believed.firstIndex { $0 > phrase } ?? believed.count
            let stretch = (before: next - 3, after: min(believed.count, next + 2))
            if let last = stretches.last, stretch.before < last.after {
                stretches[stretches.count - 1].after = max(last.after, stretch.after)
            } else {
                stretches.append(stretch)
            }
        }
        var mended = alignment
        let aligner = ContentAligner()
        let reach = 2 * aligner.parameters.identificationNeighbours
        let measured = IdentificationCosts()
        for (before, after) in stretches {
            let firstPhrase = before < 0 ? 0 : believed[before] + 1
            let lastPhrase = after >= believed.count ? rendering.phrases.count - 1 : believed[after] - 1
            let firstHop = before < 0 ? 0 : (alignment.phraseRows[believed[before]]?.upperBound ?? -1) + 1
            let lastHop =
                after >= believed.count
                ? take.count - 1 : (alignment.phraseRows[believed[after]]?.lowerBound ?? take.count) - 1
            guard lastPhrase >= firstPhrase else { continue }
            let phrases = Array(firstPhrase...lastPhrase)
            for phrase in phrases {
                mended.phraseRows[phrase] = nil
                mended.agreement[phrase] = nil
                mended.lengthDeviation[phrase] = nil
            }
            guard lastHop > firstHop else { continue }
            let takePart = take.rows(firstHop...lastHop)
            // The phrases found near the stretch, outside it, as they were: what the stretch's
            // phrases are told from their neighbours among.
            let near = Set(phrases.flatMap { ($0 - reach)...($0 + reach) })
            let around = mended.phraseRows.indices.map { near.contains($0) ? mended.phraseRows[$0] : nil }
            var best: (mean: Double, rows: [ClosedRange<Int>?], local: ContentAligner.Alignment, read: [Int])?
            for left in [nil] + phrases.map(Optional.some) {
                let read = phrases.filter { $0 != left }
                guard !read.isEmpty else { continue }
                let local = aligner.align(
                    take: takePart, rendering: rendering.phrases(read, joinFrames: aligner.parameters.joinFrames))
                var rows = around
                for (offset, found) in local.phraseRows.enumerated() {
                    rows[read[offset]] = found.map { ($0.lowerBound + firstHop)...($0.upperBound + firstHop) }
                }
                let told = aligner.identification(
                    take: take, rows: rows, rendering: rendering, warping: alignment.warping, measured: measured)
                let values = read.filter { rows[$0] != nil }.map { told[$0] ?? -.infinity }
                guard !values.isEmpty else { continue }
                let mean = values.reduce(0, +) / Double(values.count)
                var kept = rows
                for phrase in read where (told[phrase] ?? -.infinity) < parameters.verdict.phraseIdentification {
                    kept[phrase] = nil
                }
                if mean > best?.mean ?? -.infinity { best = (mean, kept, local, read) }
            }
            guard let best else { continue }
            for (offset, phrase) in best.read.enumerated() where best.rows[phrase] != nil {
                mended.phraseRows[phrase] = best.rows[phrase]
                mended.agreement[phrase] = best.local.agreement[offset]
                mended.lengthDeviation[phrase] = best.local.lengthDeviation[offset]
            }
        }
        return mended
    }

    /// The phrases found that keep their clips: those whose words fit where they were found
    /// about as well as the take's do (better than their sounds backwards), and short ones
    /// whose words are too few to tell that way but which take as long as the others say they
    /// should. A phrase squeezed into a sliver of the take, or stretched over speech it does
    /// not hold, has neither.
    private func keptPhrases(_ alignment: ContentAligner.Alignment) -> [Int] {
        let least = min(
            parameters.phrases.phraseAgreement, alignment.overallAgreement - parameters.phrases.phraseAgreementMargin)
        return alignment.found.filter {
            let agreement = alignment.agreement[$0] ?? 0
            return agreement >= least
                || (agreement >= parameters.phrases.leastPhraseAgreement
                    && abs(alignment.lengthDeviation[$0] ?? .infinity) <= parameters.phrases.phraseLengthDeviation)
        }
    }

    /// Of the phrases `kept`, those whose clips hold their words: none far out of proportion
    /// with its rendering, and where the take's words fit clearly, none whose own fit loosely
    /// unless it is told apart from its neighbours in the text (compared among the phrases
    /// found near it, so that a long take's phrases are not all compared again).
    private func heardPhrases(
        _ kept: [Int], in alignment: ContentAligner.Alignment, take: DynamicTimeWarping.Frames,
        rendering: ContentAligner.Rendering, hopDuration: Double
    ) -> [Int] {
        let proportioned = kept.filter {
            abs(alignment.lengthDeviation[$0] ?? 0) <= parameters.phrases.greatestLengthDeviation
        }
        guard alignment.overallAgreement >= parameters.verdict.strongAgreement else { return proportioned }
        let shortest = Int((parameters.phrases.doubtfulSpeech / hopDuration).rounded())
        // Beside a line the take does not read, where speech the text does not hold may be.
        let found = alignment.phraseRows
        let besideUnread = { (phrase: Int) in
            (phrase > 0 && found[phrase - 1] == nil) || (phrase + 1 < found.count && found[phrase + 1] == nil)
        }
        let doubtful = Set(
            proportioned.filter { phrase in
                let agreement = alignment.agreement[phrase] ?? 0
                return
                    (agreement < parameters.phrases.doubtfulAgreement
                    || (agreement < parameters.phrases.doubtfulAgreementBesideUnread && besideUnread(phrase)))
                    && rendering.phrases[phrase].filter { !rendering.frames.quiet[$0] }.count >= shortest
            })
        guard !doubtful.isEmpty else { return proportioned }
        let aligner = ContentAligner()
        let reach = 2 * aligner.parameters.identificationNeighbours
        let near = Set(doubtful.flatMap { ($0 - reach)...($0 + reach) })
        let rows = alignment.phraseRows.indices.map { near.contains($0) ? alignment.phraseRows[$0] : nil }
        let told = aligner.identification(take: take, rows: rows, rendering: rendering, warping: alignment.warping)
        return proportioned.filter {
            !doubtful.contains($0) || (told[$0] ?? -.infinity) >= parameters.phrases.doubtfulIdentification
        }
    }

    private func align(
        _ take: MeasuredTake, path: String, phrases: [String], rendering: ContentAligner.Rendering,
        language: SpeechLanguage
    ) throws -> (envelope: EnergyEnvelope, segmentation: Segmentation) {
        let name = language.origin == .guessed ? "\(language.code) (guessed from the text)" : language.code
        let everything = 0..<take.envelope.levels.count
        // The first path measures what this voice's words cost against their own; where it took
        // a long stretch of speech the text does not hold (an audiobook's intro before a text
        // that goes on past the take) for the text's words, that measure is of unrelated words,
        // and so is the path. Again, with such speech as cheap as a voice like the synthesizer's
        // own words, for such a voice only: what it finds must fit as its words do (a real
        // voice's words cost more than that, and such a path leaves some of them out). Where
        // that fails too, what the first path showed decides what comes next.
        var placement = place(rendering, in: take, hops: everything)
        if placement.run == nil {
            for skipCost in parameters.verdict.retriedSkipCosts {
                let retried = place(
                    rendering, in: take, hops: everything, leftOut: (parameters.verdict.retriedFillerCost, skipCost))
                if retried.run != nil {
                    placement = retried
                    break
                }
            }
        }
        var run: PlacedRun
        var note: String?
        switch placement {
        case .placed(let placed): run = placed
        case .refused(let evidence):
            // A take read with a clear pause after every phrase is cut there, even when its
            // words cannot be matched (a voice unlike the synthesizer's). The alignment must not
            // have left phrases out nor found speech outside them, and the clips' lengths must
            // keep the proportions of their phrases' (an intro cut as the first phrase shifts
            // every clip by one, and they no longer do).
            let fallback = parameters.pausedFallback
            if evidence.agreement >= fallback.minimumPausedAgreement, evidence.foundAll,
                evidence.unmatchedSpeech <= parameters.verdict.maximumUnmatchedSpeech,
                var paused = try? segmenter.segment(
                    take.envelope, hint: .text(phrases, language: language.code), path: path),
                paused.cuts.allSatisfy({ $0.pauseDuration >= fallback.clearPause }),
                lengthSpread(of: paused, in: take, against: rendering) <= fallback.maximumPausedSpread,
                toldApart(paused, in: take, against: rendering)
            {
                paused.notes.append(
                    "its words could not be matched with the text (in \(name)): cut at its \(paused.cuts.count) clear pauses"
                )
                // A clip per phrase, in order.
                paused.phrases = Array(paused.segments.indices)
                return (take.envelope, paused)
            }
            guard let spotted = spot(rendering, in: take) else {
                throw SegmentationError(
                    .textMismatch, path: path, message: "the take does not read its text (in \(name))")
            }
            run = spotted
            note =
                "its words fit the text's only loosely (in \(name)): \(spotted.found.count) phrases told apart at its pauses"
        }
        let all = segmenter.segmentation(
            take.analysis, cutHops: run.cutHops, confidences: run.confidences, pauseDurations: run.silences)
        var segmentation = all
        segmentation.segments = []
        segmentation.cuts = []
        for (index, reads) in run.reads.enumerated() where reads != nil {
            if !segmentation.segments.isEmpty { segmentation.cuts.append(all.cuts[index - 1]) }
            segmentation.segments.append(all.segments[index])
        }
        segmentation.method = .text(language)
        segmentation.phrases = run.found
        if let note { segmentation.notes.append(note) }
        return (take.envelope, segmentation)
    }

    /// The phrases told apart among the take's pause-parted stretches (``PhraseSpotter``),
    /// placed with a cut in each pause at their edges; nil unless at least three are told apart,
    /// clearly on the whole, with lengths in proportion to their phrases', and read one after
    /// the other but for a break per phrase beyond three (phrases found by chance in a take of
    /// another text lie scattered).
    private func spot(_ rendering: ContentAligner.Rendering, in take: MeasuredTake) -> PlacedRun? {
        let frames = take.frames(0..<take.envelope.levels.count)
        let aligner = ContentAligner()
        let warping = aligner.scaledWarping(take: frames, rendering: rendering.frames)
        guard
            let spotting = PhraseSpotter().spot(
                take: frames, analysis: take.analysis, rendering: rendering, warping: warping),
            accepts(spotting)
        else { return nil }
        let analysis = take.analysis
        let minimumFiller = Int((parameters.placement.minimumFiller / analysis.envelope.hopDuration).rounded())
        let speech = { (stretches: Range<Int>) -> Int in
            stretches.map {
                analysis.speechHops(in: spotting.stretches[$0].lowerBound..<(spotting.stretches[$0].upperBound + 1))
            }
            .reduce(0, +)
        }
        var run = PlacedRun(reads: [], cutHops: [], confidences: [], silences: [])
        let addCut = { (run: inout PlacedRun, parting: Int, identification: Double?) in
            let pause = spotting.partings[parting]
            run.cutHops.append(pause.cutHop)
            run.silences.append(pause.silentDuration)
            run.confidences.append(
                confidence(words: min(1, 0.5 + (identification ?? 0) / 10), silence: pause.silentDuration))
        }
        let spots = spotting.spots
        let first = spots[0].stretches.lowerBound
        if first > 0, speech(0..<first) >= minimumFiller {
            run.reads.append(nil)
            addCut(&run, first - 1, spots[0].identification)
        }
        run.reads.append(spots[0].phrase)
        for (before, after) in zip(spots, spots.dropFirst()) {
            let between = (before.stretches.upperBound + 1)..<after.stretches.lowerBound
            let words = min(before.identification ?? 0, after.identification ?? 0)
            if speech(between) >= minimumFiller {
                addCut(&run, before.stretches.upperBound, before.identification)
                run.reads.append(nil)
                addCut(&run, after.stretches.lowerBound - 1, after.identification)
            } else {
                let partings = before.stretches.upperBound..<after.stretches.lowerBound
                let longest =
                    partings.max {
                        spotting.partings[$0].silentDuration < spotting.partings[$1].silentDuration
                    } ?? before.stretches.upperBound
                addCut(&run, longest, words)
            }
            run.reads.append(after.phrase)
        }
        let last = spots[spots.count - 1].stretches.upperBound
        if last < spotting.stretches.count - 1, speech((last + 1)..<spotting.stretches.count) >= minimumFiller {
            addCut(&run, last, spots[spots.count - 1].identification)
            run.reads.append(nil)
        }
        return run
    }

    /// Whether phrases spotted among a take's pauses are its text's: at least three told apart,
    /// clearly on average and in sum, in proportion with their phrases, and read one after the
    /// other but for a break per phrase told apart beyond three.
    func accepts(_ spotting: PhraseSpotter.Spotting) -> Bool {
        let told = spotting.spots.compactMap(\.identification)
        return told.count >= parameters.spotting.leastSpotted
            && told.reduce(0, +) / Double(told.count) >= parameters.verdict.minimumIdentification
            && told.map({ $0 - parameters.verdict.phraseIdentification }).reduce(0, +)
                >= parameters.spotting.spottedEvidence
            && spotting.breaks <= told.count - parameters.spotting.leastSpotted
            && spotting.lengthSpread <= parameters.verdict.maximumSpread
    }

    /// Whether the clips of a take cut at its pauses, one per phrase, are told apart from their
    /// neighbours in the text as the phrases an alignment finds must be (a text of four phrases
    /// or more): another text read with as many pauses, whose words fit only loosely, is not.
    private func toldApart(
        _ segmentation: Segmentation, in take: MeasuredTake, against rendering: ContentAligner.Rendering
    ) -> Bool {
        // Three phrases or fewer are each compared with too few others to be told apart, and
        // as many clips can be cut at the longest pauses of any take.
        guard rendering.phrases.count > 3 else { return false }
        let hop = take.envelope.hopFrames
        let hops = take.analysis.isSpeech.count
        let rows = segmentation.segments.map { segment -> ClosedRange<Int>? in
            let first = min(segment.startFrame / hop, hops - 1)
            return first...max(first, min(segment.endFrame / hop, hops) - 1)
        }
        let frames = take.frames(0..<hops)
        let aligner = ContentAligner()
        let told = aligner.identification(
            take: frames, rows: rows, rendering: rendering,
            warping: aligner.scaledWarping(take: frames, rendering: rendering.frames)
        ).map { $0 ?? -.infinity }
        return told.count == rendering.phrases.count
            && told.reduce(0, +) / Double(told.count) >= parameters.pausedFallback.pausedIdentification
            && (told.count >= parameters.verdict.smallText
                || told.allSatisfy { $0 >= parameters.verdict.phraseIdentification })
    }

    /// How much the ratio of each clip's speech to its phrase's rendered speech varies (the
    /// standard deviation of its log): small when the clips hold their phrases.
    private func lengthSpread(
        of segmentation: Segmentation, in take: MeasuredTake, against rendering: ContentAligner.Rendering
    ) -> Double {
        let hop = take.envelope.hopFrames
        let hops = take.analysis.isSpeech.count
        let logRatios = zip(segmentation.segments, rendering.phrases).map { segment, span -> Double in
            let first = min(segment.startFrame / hop, hops)
            let last = min(max(segment.endFrame / hop, first), hops)
            let spoken = take.analysis.speechHops(in: first..<last)
            let rendered = span.filter { !rendering.frames.quiet[$0] }.count
            return log(Double(max(spoken, 1)) / Double(max(rendered, 1)))
        }
        guard !logRatios.isEmpty else { return 0 }
        let mean = logRatios.reduce(0, +) / Double(logRatios.count)
        return (logRatios.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(logRatios.count)).squareRoot()
    }

    /// Clips for takes whose phrases are already roughly placed (subtitle cues, whose times are
    /// often half a second or more off): each run of phrases spoken without a break
    /// (`runs[k].frames`, from the start of its first phrase's speech to the end of its last's)
    /// is aligned with its texts, and the clips between its phrases are cut where the words
    /// change. A run whose words do not match its texts (music, another language, a cue that
    /// is not said) gets nil: its phrases keep the clips they had.
    public func cutRuns(
        path: String, runs: [(texts: [String], frames: Range<Int>)], loopLanguage: String?,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> (runs: [[Range<Int>]?], method: CuttingMethod, notes: [String]) {
        let texts = runs.flatMap(\.texts)
        guard !texts.isEmpty, let language = SpeechLanguage.resolve(given: language, loop: loopLanguage, text: texts)
        else {
            return (runs.map { _ in nil }, .pauses, [])
        }
        let renderingRate: Int
        do {
            renderingRate = try synthesizer.outputRate()
            _ = try synthesizer.render([texts[0]], in: language)
        } catch {
            return (
                runs.map { _ in nil }, .pauses, ["\(error.message): each cue keeps the speech around its own times"]
            )
        }
        let take = try measure(path: path, renderingRate: renderingRate, progress: progress)
        let envelope = take.envelope
        var clips: [[Range<Int>]?] = []
        for run in runs {
            let firstHop = run.frames.lowerBound / envelope.hopFrames
            let endHop = min(
                envelope.levels.count, (run.frames.upperBound + envelope.hopFrames - 1) / envelope.hopFrames)
            let hops = firstHop..<endHop
            guard run.texts.count > 1, hops.count > 2,
                let rendering = try? ContentAligner().render(
                    run.texts, in: language, upperFrequency: take.upperFrequency, synthesizer: synthesizer),
                let placed = place(rendering, in: take, hops: hops).run,
                placed.found.count == run.texts.count, placed.reads.count == run.texts.count
            else {
                clips.append(nil)
                continue
            }
            // The run's own edges stay; between them, each phrase's speech with its padding. The
            // bounds stay inside the run and in order (a run may end on the take's last frame).
            var bounds = ([hops.lowerBound] + placed.cutHops + [hops.upperBound]).map {
                min(max($0, hops.lowerBound), hops.upperBound)
            }
            for index in bounds.indices.dropFirst() where bounds[index] < bounds[index - 1] {
                bounds[index] = bounds[index - 1]
            }
            let cuts = segmenter.segmentation(
                take.analysis, cutHops: bounds,
                confidences: Array(repeating: 1, count: placed.cutHops.count + 2),
                pauseDurations: Array(repeating: 0, count: placed.cutHops.count + 2))
            var ranges = cuts.segments.dropFirst().dropLast().map { $0.startFrame..<$0.endFrame }
            ranges[0] = run.frames.lowerBound..<max(ranges[0].upperBound, run.frames.lowerBound + 1)
            ranges[ranges.count - 1] =
                min(ranges[ranges.count - 1].lowerBound, run.frames.upperBound - 1)..<run.frames.upperBound
            clips.append(ranges)
        }
        return (clips, .text(language), [])
    }

    /// Where the cut for an aligned join goes: onto a real pause near it (the one with the most
    /// silence, nearer ones first), else onto the quietest point close to it; and the silence there.
    private func place(_ join: ClosedRange<Int>, _ analysis: PauseAnalysis, within hops: Range<Int>) -> (
        hop: Int, silence: Double
    ) {
        let hopDuration = analysis.envelope.hopDuration
        let reach = Int((parameters.placement.pauseReach / hopDuration).rounded())
        let centre = (join.lowerBound + join.upperBound) / 2
        let near = (join.lowerBound - reach)...(join.upperBound + reach)
        let candidates = analysis.pauses.filter {
            hops.contains($0.cutHop)
                && near.overlaps($0.range.lowerBound...max($0.range.lowerBound, $0.range.upperBound - 1))
        }
        let scored = candidates.map { pause -> (PauseAnalysis.Pause, Double) in
            let inside = join.overlaps(pause.range.lowerBound...max(pause.range.lowerBound, pause.range.upperBound - 1))
            let distance =
                inside
                ? 0
                : Double(min(abs(pause.range.lowerBound - centre), abs(pause.range.upperBound - 1 - centre)))
                    * hopDuration
            return (pause, pause.silentDuration - distance * 0.5)
        }
        if let (pause, _) = scored.max(by: { $0.1 < $1.1 }), pause.silentDuration >= 0.03 {
            return (pause.cutHop, pause.silentDuration)
        }
        let quietReach = Int((parameters.placement.quietReach / hopDuration).rounded())
        let window =
            max(
                hops.lowerBound, join.lowerBound - quietReach)...min(
                hops.upperBound - 1, analysis.smoothed.count - 1, join.upperBound + quietReach)
        let quietest =
            window.min {
                analysis.smoothed[$0] < analysis.smoothed[$1]
                    || (analysis.smoothed[$0] == analysis.smoothed[$1] && abs($0 - centre) < abs($1 - centre))
            } ?? centre
        return (quietest, 0)
    }

    /// How sure a cut is: how clearly the words beside it are the text's (the share of their
    /// speech that fits them better than their sounds backwards), and whether a pause is there
    /// to take it. A clear pause between words that are the text's is certain; a cut where
    /// the reader ran on rests on the words alone.
    private func confidence(words: Double, silence: Double) -> Double {
        let pause = min(silence / parameters.placement.clearCutPause, 1)
        return min(1, max(0, 0.2 + 0.5 * pause + 1.5 * max(0, words - 0.5)))
    }
}

/// The take's speech-band levels and cepstra, measured in one pass.
struct AlignmentMeter: TakeMeter {
    private var band: SpeechBandMeter
    private var cepstrum: CepstrumMeter

    init(sampleRate: Int, upperFrequency: Double) throws(SegmentationError) {
        let hop = EnergyEnvelope.hopFrames(sampleRate: sampleRate)
        band = SpeechBandMeter(sampleRate: sampleRate, hopFrames: hop)
        cepstrum = try CepstrumMeter(sampleRate: sampleRate, hopFrames: hop, upperFrequency: upperFrequency)
    }

    var framesConsumed: Int { band.framesConsumed }

    mutating func reserve(hops: Int) {
        band.reserve(hops: hops)
        cepstrum.reserve(hops: hops)
    }

    mutating func warmUp(_ samples: UnsafeBufferPointer<Float>) {
        band.warmUp(samples)
        cepstrum.warmUp(samples)
    }

    mutating func consume(_ samples: UnsafeBufferPointer<Float>) {
        band.consume(samples)
        cepstrum.consume(samples)
    }

    mutating func finish() -> (levels: [Float], cepstra: [Float]) { (band.finish(), cepstrum.finish()) }
}
