import Foundation
import LoopFoundation
import LoopSpeech

/// A rendering stopped before its end: what it was for is no longer wanted.
struct RenderingStopped: Error {}

/// Where a take's phrases are, found by comparing what is said with what is written: the text
/// is rendered phrase by phrase by the synthesizer, both recordings become frame features
/// (``FeatureMatrix``), and dynamic time warping maps each join between two phrases of the
/// rendering onto the take.
///
/// The rendering's phrases are trimmed of their silence and joined by a few silent frames, and
/// silence against silence costs nothing: a reader's pause of any length at a join (a breath, a
/// line end) is absorbed there, where the text says one phrase ends, rather than against a
/// near-silent stop closure inside a word. Pauses the synthesizer makes inside a phrase (at
/// commas) absorb the reader's in the same way.
struct ContentAligner {
    /// A text rendered for alignment: its frames and where each phrase lies among them.
    struct Rendering {
        var frames: DynamicTimeWarping.Frames
        /// Each phrase's columns (frames) in the joined rendering.
        var phrases: [Range<Int>]

        /// The rendering of the phrases `kept` alone, with the joins on either side
        /// (`joinFrames` at most), copied out: a text of its own, its phrases numbered from 0.
        func phrases(_ kept: ClosedRange<Int>, joinFrames: Int) -> Rendering {
            phrases(Array(kept), joinFrames: joinFrames)
        }

        /// The same for phrases `kept` in order, any of them left out: each run of consecutive
        /// phrases copied as it lies in the whole rendering, with its joins, one run after the
        /// other.
        func phrases(_ kept: [Int], joinFrames: Int) -> Rendering {
            var features: [Float] = []
            var quiet: [Bool] = []
            var filler: [Bool]? = frames.filler == nil ? nil : []
            var spans: [Range<Int>] = []
            var start = 0
            while start < kept.count {
                var end = start
                while end + 1 < kept.count, kept[end + 1] == kept[end] + 1 { end += 1 }
                let first = max(0, phrases[kept[start]].lowerBound - joinFrames)
                let last = min(frames.count, phrases[kept[end]].upperBound + joinFrames) - 1
                let shift = quiet.count - first
                let sliced = frames.rows(first...last)
                features += sliced.features
                quiet += sliced.quiet
                if let whole = frames.filler { filler? += whole[first...last] }
                spans += kept[start...end].map { (phrases[$0].lowerBound + shift)..<(phrases[$0].upperBound + shift) }
                start = end + 1
            }
            return Rendering(frames: .init(features: features, quiet: quiet, filler: filler), phrases: spans)
        }

        /// One phrase's frames with the join's silent frames on either side (`joinFrames` at
        /// most), copied out; with `backwards`, the phrase itself played backwards.
        func phraseFrames(_ phrase: Int, joinFrames: Int, backwards: Bool = false) -> DynamicTimeWarping.Frames {
            let span = phrases[phrase]
            let columns = max(0, span.lowerBound - joinFrames)..<min(frames.count, span.upperBound + joinFrames)
            var order = Array(columns)
            if backwards {
                order[(span.lowerBound - columns.lowerBound)..<(span.upperBound - columns.lowerBound)].reverse()
            }
            let d = FeatureMatrix.dimension
            var features: [Float] = []
            features.reserveCapacity(order.count * d)
            for column in order {
                let offset = frames.offset(column)
                features.append(contentsOf: frames.features[offset..<(offset + d)])
            }
            return .init(features: features, quiet: order.map { frames.quiet[$0] })
        }
    }

    /// What the alignment found.
    struct Alignment {
        /// Per phrase of the text, the take's hops (rows) its words are heard in; nil for a
        /// phrase the take does not read.
        var phraseRows: [ClosedRange<Int>?]
        /// Per found phrase, how much better its words fit the take there than the same sounds
        /// played backwards: the share of its speech hops where they do (about one half for
        /// words that are not these, near 1 for these).
        var agreement: [Double?]
        /// The same share over all the found phrases' speech.
        var overallAgreement: Double
        /// How much the take's speed against the rendering's varies from phrase to phrase (the
        /// standard deviation of the log ratio): small when the take reads the text.
        var lengthSpread: Double
        /// The same, robust to a phrase or two whose rendering holds words the reader did not
        /// say (a subtitle that adds a word, a note in brackets): 1.4826 times the median absolute
        /// deviation of the log ratio.
        var robustLengthSpread: Double
        /// Per found phrase, how far its speech's length against its rendering's is from the
        /// other phrases' (the log ratio less their median): near 0 for a phrase the take reads,
        /// far for one stretched over speech the text does not hold or squeezed into none.
        var lengthDeviation: [Double?]
        /// The share of the take's speech that lies outside every phrase found.
        var unmatchedSpeech: Double
        /// The warping that found them, with its costs scaled to these two recordings.
        var warping: DynamicTimeWarping

        /// The phrases found in the take, in order.
        var found: [Int] { phraseRows.indices.filter { phraseRows[$0] != nil } }
    }

    struct Parameters {
        /// Silent frames between two phrases of the rendering, and before and after it.
        var joinFrames = 4
        /// A rendering frame this far below the rendering's loudest is silence (dB).
        var renderingSilence: Float = 40
        /// Leaving a speech frame of the rendering out of the path (a phrase the take does not
        /// read) costs this much, in units of the distance between unrelated speech frames.
        var skipCost: Float = 0.4
        /// Speech the text does not hold, on the first path: as much as unrelated words cost.
        var firstFillerCost: Float = 1.0
        /// On the path that counts, it costs what the take's words cost against their own,
        /// plus this share of the way to unrelated words.
        var fillerMargin: Float = 0.3
        /// A phrase found is told from this many of the text's phrases on either side.
        var identificationNeighbours = 5
        /// The cepstra (from the first) that tell phrases apart across voices.
        var identificationCepstra = 5
        /// A phrase is in the take when at least this share of its rendered speech is on the path.
        var foundShare = 0.5
        /// A phrase's check against its sounds backwards warps its stretch of the take exactly
        /// up to this many cells (a phrase of about three seconds), a longer one coarse to fine
        /// (``DynamicTimeWarping``): an hour's checks in a third of the time, the development
        /// sets cut as before.
        var checkCells = 100_000
        /// A text of at least this many bytes (about two minutes read) is rendered in two
        /// halves, by a process each.
        var leastSecondProcessBytes = 2_000
        /// The two halves of a long text are rendered at the same time (else one after the
        /// other: the same frames, on one core).
        var halvesAtOnce = true
    }

    var parameters = Parameters()
    var warping = DynamicTimeWarping()

    /// `phrases` rendered by the synthesizer in `language`, as frames for alignment on
    /// `upperFrequency`'s band. Each phrase's audio is measured as soon as it is rendered and
    /// then let go: an hour's text never lies whole in memory as audio. When `stopped` says so
    /// (checked as each phrase comes), it stops and throws ``RenderingStopped``.
    ///
    /// A long text is rendered in two halves, each by a process of its own
    /// (``SpeechSynthesizer/renderInChildProcess(_:in:wordsPerMinute:)``): at the same time, the
    /// second measured on a thread of its own, when ``Parameters/halvesAtOnce`` says so (espeak-ng
    /// renders on one core per process), else one after the other. Either way each half starts
    /// from espeak-ng's state as it was opened, so a text is rendered the same on any number of
    /// cores.
    func render(
        _ phrases: [String], in language: SpeechLanguage, upperFrequency: Double, synthesizer: SpeechSynthesizer,
        stopped: (@Sendable () -> Bool)? = nil
    ) throws -> Rendering {
        let half = Self.secondHalf(of: phrases, least: parameters.leastSecondProcessBytes)
        var frames = RenderedFrames(joinFrames: parameters.joinFrames)
        guard half < phrases.count else {
            try measure(
                phrases[...], in: language, upperFrequency: upperFrequency, synthesizer: synthesizer, into: &frames,
                stopped: stopped)
            return frames.rendering()
        }
        // Both processes start now, while this one is small (a fork copies this process's page
        // tables). One after the other, the second waits on its full pipe after its first
        // phrase until its half is read.
        let started = try synthesizer.renderInChildProcess(Array(phrases[half...]), in: language)
        guard parameters.halvesAtOnce, let second = started else {
            try measure(
                phrases[..<half], in: language, upperFrequency: upperFrequency, synthesizer: synthesizer, into: &frames,
                stopped: stopped)
            if let started {
                try measure(started, upperFrequency: upperFrequency, into: &frames, stopped: stopped)
            } else {
                try measure(
                    phrases[half...], in: language, upperFrequency: upperFrequency, synthesizer: synthesizer,
                    into: &frames, stopped: stopped)
            }
            return frames.rendering()
        }
        let reader = OwnThread { [self] () throws -> RenderedFrames in
            var rest = RenderedFrames(joinFrames: 0)
            try measure(second, upperFrequency: upperFrequency, into: &rest, stopped: stopped)
            return rest
        }
        do {
            try measure(
                phrases[..<half], in: language, upperFrequency: upperFrequency, synthesizer: synthesizer, into: &frames,
                stopped: stopped)
        } catch {
            second.stop()
            _ = try? reader.join()
            throw error
        }
        frames.append(contentsOf: try reader.join())
        return frames.rendering()
    }

    /// `phrases` rendered by a process of their own and appended to `frames`; phrase by phrase
    /// in this process when no process can be started.
    private func measure(
        _ phrases: ArraySlice<String>, in language: SpeechLanguage, upperFrequency: Double,
        synthesizer: SpeechSynthesizer, into frames: inout RenderedFrames, stopped: (@Sendable () -> Bool)?
    ) throws {
        guard !phrases.isEmpty else { return }
        if let child = try synthesizer.renderInChildProcess(Array(phrases), in: language) {
            try measure(child, upperFrequency: upperFrequency, into: &frames, stopped: stopped)
            return
        }
        for phrase in phrases {
            if stopped?() == true { throw RenderingStopped() }
            let speech = try synthesizer.render([phrase], in: language)[0]
            try frames.append(speech, parameters: parameters, upperFrequency: upperFrequency)
        }
    }

    /// Each phrase `child` renders, appended to `frames` as it comes; the process is ended when
    /// `stopped` says so.
    private func measure(
        _ child: ChildRendering, upperFrequency: Double, into frames: inout RenderedFrames,
        stopped: (@Sendable () -> Bool)?
    ) throws {
        while let speech = try child.next() {
            if stopped?() == true {
                child.stop()
                throw RenderingStopped()
            }
            try frames.append(speech, parameters: parameters, upperFrequency: upperFrequency)
        }
    }

    /// Where a text long enough to be worth a second process is parted (the first phrase the
    /// second half renders), by its characters; the phrase count when it is not.
    static func secondHalf(of phrases: [String], least: Int) -> Int {
        let lengths = phrases.map(\.utf8.count)
        let total = lengths.reduce(0, +)
        guard total >= least, phrases.count >= 2 else { return phrases.count }
        var sum = 0
        for (index, length) in lengths.enumerated() {
            if sum * 2 >= total { return max(index, 1) }
            sum += length
        }
        return phrases.count - 1
    }

    /// The rendering of `speech` (one per phrase) as frames for alignment, on `upperFrequency`'s band.
    func rendering(of speech: [RenderedSpeech], upperFrequency: Double) throws -> Rendering {
        var frames = RenderedFrames(joinFrames: parameters.joinFrames)
        for phrase in speech { try frames.append(phrase, parameters: parameters, upperFrequency: upperFrequency) }
        return frames.rendering()
    }
}

/// Rendered phrases' frames as they are measured, one phrase at a time, each followed by a
/// join of silent frames.
struct RenderedFrames {
    var features: [Float] = []
    var quiet: [Bool] = []
    var phrases: [Range<Int>] = []

    /// Frames that start with a join of `joinFrames` (the rendering's first) or none (0: a part
    /// to be appended).
    init(joinFrames: Int) {
        join(joinFrames)
    }

    private mutating func join(_ count: Int) {
        features.append(contentsOf: repeatElement(0, count: count * FeatureMatrix.dimension))
        quiet.append(contentsOf: repeatElement(true, count: count))
    }

    /// One phrase's speech, measured and trimmed of its own leading and trailing silence, then a join.
    mutating func append(
        _ phrase: RenderedSpeech, parameters: ContentAligner.Parameters, upperFrequency: Double
    ) throws {
        let d = FeatureMatrix.dimension
        let hop = EnergyEnvelope.hopFrames(sampleRate: phrase.sampleRate)
        var meter = try CepstrumMeter(sampleRate: phrase.sampleRate, hopFrames: hop, upperFrequency: upperFrequency)
        var band = SpeechBandMeter(sampleRate: phrase.sampleRate, hopFrames: hop)
        phrase.samples.withUnsafeBufferPointer { samples in
            meter.consume(samples)
            band.consume(samples)
        }
        let cepstra = meter.finish()
        let levels = band.finish()
        let count = min(levels.count, cepstra.count / d)
        let loudest = levels.prefix(count).max() ?? -120
        let isQuiet = levels.prefix(count).map { $0 < loudest - parameters.renderingSilence }
        let first = isQuiet.firstIndex(of: false) ?? 0
        let last = (isQuiet.lastIndex(of: false) ?? max(count - 1, 0)) + 1
        let start = quiet.count
        if count > 0 && first < last {
            features.append(contentsOf: cepstra[(first * d)..<(last * d)])
            quiet.append(contentsOf: isQuiet[first..<last])
        }
        phrases.append(start..<quiet.count)
        join(parameters.joinFrames)
    }

    /// Another part's phrases after these (its frames start with its first phrase).
    mutating func append(contentsOf part: consuming RenderedFrames) {
        let shift = quiet.count
        features.append(contentsOf: part.features)
        part.features = []
        quiet.append(contentsOf: part.quiet)
        phrases.append(contentsOf: part.phrases.map { ($0.lowerBound + shift)..<($0.upperBound + shift) })
    }

    /// The rendering: its features normalised over its speech.
    consuming func rendering() -> ContentAligner.Rendering {
        let quiet = self.quiet
        let phrases = self.phrases
        var values: [Float] = []
        swap(&values, &features)
        var matrix = FeatureMatrix(values: consume values)
        matrix.normalise { !quiet[$0] }
        var filler = [Bool](repeating: true, count: quiet.count)
        for span in phrases { for column in span { filler[column] = false } }
        return ContentAligner.Rendering(
            frames: .init(features: matrix.values, quiet: quiet, filler: filler), phrases: phrases)
    }
}

/// The costs ``ContentAligner/identification(take:rows:rendering:warping:measured:)`` measured,
/// per phrase and stretch of the take, kept for another call on the same take and rendering.
final class IdentificationCosts {
    /// Per phrase, per stretch of the take, its costs against the phrases it was told from.
    var costs: [Int: [ClosedRange<Int>: [Int: Double]]] = [:]
}

extension ContentAligner {

    /// Aligns the take's frames with the rendering: finds each phrase's words in the take,
    /// leaving out speech the text does not hold (an intro, an added sentence, a false start)
    /// and phrases the take does not read, and checks each phrase found against its own sounds
    /// played backwards.
    ///
    /// `fillerCost`, when given, is what speech the text does not hold costs (a share of what
    /// unrelated words cost), instead of what a first path measures for this voice; `skipCost`,
    /// what a rendered speech frame left out costs, instead of ``Parameters/skipCost``.
    func align(
        take: DynamicTimeWarping.Frames, rendering: Rendering, fillerCost: Float? = nil, skipCost: Float? = nil
    ) -> Alignment {
        // Costs in units of the distance between unrelated speech frames of these two recordings.
        let scale = Float(unrelatedCost(take: take, rendering: rendering.frames))
        var scaled = scaledWarping(by: scale)
        var phraseOfColumn = [Int](repeating: -1, count: rendering.frames.count)
        for (index, span) in rendering.phrases.enumerated() { for column in span { phraseOfColumn[column] = index } }
        if let fillerCost {
            scaled.parameters.fillerCost = scale * fillerCost
        } else {
            // How well this voice matches the synthesizer's sets what speech the text does not
            // hold costs: a first path, where such speech costs as much as unrelated words,
            // measures what the take's words cost against their own (about 0.6 of unrelated for
            // a voice like the synthesizer's, 0.85 for some real ones); the path that counts
            // lies between.
            scaled.parameters.fillerCost = scale * parameters.firstFillerCost
            let first = scaled.align(take: take, rendering: rendering.frames, skipCost: parameters.skipCost * scale)
            let matched =
                Self.matchedCost(
                    first, take: take, rendering: rendering, phraseOfColumn: phraseOfColumn, scaled.parameters)
                / scale
            scaled.parameters.fillerCost = scale * (matched + parameters.fillerMargin * max(0, 1 - matched))
        }
        let warping = scaled
        let path = warping.align(
            take: take, rendering: rendering.frames, skipCost: (skipCost ?? parameters.skipCost) * scale)
        var onPath = [Bool](repeating: false, count: rendering.frames.count)
        var rows = [ClosedRange<Int>?](repeating: nil, count: rendering.phrases.count)
        for cell in path {
            let column = Int(cell.column)
            let row = Int(cell.row)
            onPath[column] = true
            let phrase = phraseOfColumn[column]
            guard phrase >= 0 else { continue }
            rows[phrase] = rows[phrase].map { min($0.lowerBound, row)...max($0.upperBound, row) } ?? row...row
        }
        for (index, span) in rendering.phrases.enumerated() {
            let spoken = span.filter { !rendering.frames.quiet[$0] }
            if spoken.isEmpty
                || Double(spoken.filter { onPath[$0] }.count) < parameters.foundShare * Double(spoken.count)
            {
                rows[index] = nil
            }
        }

        // Each phrase found, against its own sounds played backwards on the same hops; half the
        // phrases on each core.
        let foundRows = rows
        let measure = { @Sendable (phrases: ArraySlice<Int>) -> [(phrase: Int, better: Int, speech: Int)] in
            phrases.compactMap { index -> (phrase: Int, better: Int, speech: Int)? in
                guard let found = foundRows[index] else { return nil }
                let (forward, backward) = localCosts(
                    take: take, rows: found, rendering: rendering, phrase: index, warping: warping)
                var better = 0
                var speech = 0
                for (offset, row) in found.enumerated() where !take.quiet[row] {
                    speech += 1
                    if forward[offset] < backward[offset] { better += 1 }
                }
                return (index, better, speech)
            }
        }
        let foundPhrases = rows.indices.filter { rows[$0] != nil }
        let half = foundPhrases.count / 2
        let (firstHalf, secondHalf) = bothAtOnce(
            { measure(foundPhrases[..<half]) }, { measure(foundPhrases[half...]) })
        var agreement = [Double?](repeating: nil, count: rendering.phrases.count)
        var agreeing = 0
        var compared = 0
        for (index, better, speech) in firstHalf + secondHalf {
            agreement[index] = speech == 0 ? 0 : Double(better) / Double(speech)
            agreeing += better
            compared += speech
        }
        let shares = Self.speechShares(path, take: take, rendering: rendering)
        let logShares = shares.indices.filter { rows[$0] != nil && shares[$0] > 0 }.map { log(shares[$0]) }
        let meanLog = logShares.reduce(0, +) / Double(max(logShares.count, 1))
        let spread = (logShares.map { ($0 - meanLog) * ($0 - meanLog) }.reduce(0, +) / Double(max(logShares.count, 1)))
            .squareRoot()
        let sortedLogs = logShares.sorted()
        let medianLog = sortedLogs.isEmpty ? 0 : sortedLogs[sortedLogs.count / 2]
        let absoluteDeviations = logShares.map { abs($0 - medianLog) }.sorted()
        let robustSpread = absoluteDeviations.isEmpty ? 0 : 1.4826 * absoluteDeviations[absoluteDeviations.count / 2]
        let deviation = shares.indices.map { index -> Double? in
            rows[index] == nil ? nil : shares[index] > 0 ? log(shares[index]) - medianLog : -.infinity
        }
        return Alignment(
            phraseRows: rows, agreement: agreement,
            overallAgreement: compared == 0 ? 0 : Double(agreeing) / Double(compared), lengthSpread: spread,
            robustLengthSpread: robustSpread,
            lengthDeviation: deviation,
            unmatchedSpeech: Self.unmatchedShare(of: take, outside: rows.compactMap { $0 }), warping: warping)
    }

    /// The take's hops `rows` aligned alone with one phrase's rendering, forwards and with the
    /// phrase played backwards: each hop's cost on either path, averaged over its neighbours.
    private func localCosts(
        take: DynamicTimeWarping.Frames, rows: ClosedRange<Int>, rendering: Rendering, phrase: Int,
        warping: DynamicTimeWarping
    ) -> (forward: [Float], backward: [Float]) {
        let takePart = take.rows(rows)
        let forwardFrames = rendering.phraseFrames(phrase, joinFrames: parameters.joinFrames)
        let backwardFrames = rendering.phraseFrames(phrase, joinFrames: parameters.joinFrames, backwards: true)
        var warping = warping
        warping.parameters.coarseCells = parameters.checkCells
        let forward = warping.align(take: takePart, rendering: forwardFrames)
        let backward = warping.align(take: takePart, rendering: backwardFrames)
        let radius = 10
        return (
            Self.windowed(
                rowCosts(forward, take: takePart, rendering: forwardFrames, warping.parameters), radius: radius),
            Self.windowed(
                rowCosts(backward, take: takePart, rendering: backwardFrames, warping.parameters), radius: radius)
        )
    }

    /// How clearly each found phrase's words, rather than its neighbours' in the text, are
    /// what the take says where it was found: the take's hops there are aligned with the phrase
    /// and with up to ``Parameters/identificationNeighbours`` phrases either side, on the low
    /// cepstra alone (the shape of the spectrum, which voices share, rather than its detail,
    /// which is the speaker's). With each phrase's mean cost over the stretches it was tried
    /// on taken away (a phrase whose rendering fits any speech), a phrase's own cost on its
    /// stretch lies this many standard deviations below the others' there: on the development
    /// sets 4.6-40 for a voice like the synthesizer's, 2.2-13 for real speakers reading the
    /// text, -1 to 2 for another text or language.
    ///
    /// `measured`, when given, keeps each phrase's costs on its stretch for the next call on the
    /// same take and rendering: a stretch aligned again several ways, the phrases around it
    /// where they were.
    func identification(
        take: DynamicTimeWarping.Frames, rows: [ClosedRange<Int>?], rendering: Rendering, warping: DynamicTimeWarping,
        measured: IdentificationCosts? = nil
    ) -> [Double?] {
        let count = rendering.phrases.count
        guard count >= 3 else { return [Double?](repeating: nil, count: count) }
        let reach = parameters.identificationNeighbours
        var costs: [Int: [Int: Double]] = [:]
        for (phrase, found) in rows.enumerated() {
            guard let found else { continue }
            let low = max(0, phrase - reach)
            let high = min(count - 1, phrase + reach)
            // Near the text's ends, the neighbours on the other side make up the number.
            let first = max(0, min(low, high - 2 * reach))
            let last = min(count - 1, max(high, low + 2 * reach))
            if let known = measured?.costs[phrase]?[found] {
                costs[phrase] = known
                continue
            }
            let takePart = take.rows(found).keepingLowCepstra(parameters.identificationCepstra)
            costs[phrase] = Dictionary(
                uniqueKeysWithValues: (first...last).map {
                    ($0, Double(lowOrderCost(takePart: takePart, rendering: rendering, phrase: $0, warping: warping)))
                })
            measured?.costs[phrase, default: [:]][found] = costs[phrase]
        }
        var columnSums = [Double](repeating: 0, count: count)
        var columnCounts = [Int](repeating: 0, count: count)
        for row in costs.values {
            for (column, cost) in row {
                columnSums[column] += cost
                columnCounts[column] += 1
            }
        }
        let columnMean = (0..<count).map { columnCounts[$0] == 0 ? 0 : columnSums[$0] / Double(columnCounts[$0]) }
        var result = [Double?](repeating: nil, count: count)
        for (phrase, row) in costs {
            let centred = row.map { ($0.key, $0.value - columnMean[$0.key]) }
            guard let own = centred.first(where: { $0.0 == phrase })?.1 else { continue }
            let others = centred.filter { $0.0 != phrase }.map(\.1)
            guard others.count >= 2 else { continue }
            let mean = others.reduce(0, +) / Double(others.count)
            let deviation = (others.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(others.count)).squareRoot()
            result[phrase] = (mean - own) / max(deviation, 1e-6)
        }
        return result
    }

    /// The mean cost per speech hop of `takePart` (a stretch of the take, its low cepstra
    /// alone) aligned alone with `phrase`'s rendering, on the same cepstra.
    private func lowOrderCost(
        takePart: DynamicTimeWarping.Frames, rendering: Rendering, phrase: Int, warping: DynamicTimeWarping
    ) -> Float {
        let frames = rendering.phraseFrames(phrase, joinFrames: parameters.joinFrames)
            .keepingLowCepstra(parameters.identificationCepstra)
        return meanSpeechCost(of: takePart, against: frames, warping: warping)
    }

    /// The mean cost per speech frame of `takePart` aligned alone with `frames`.
    func meanSpeechCost(
        of takePart: DynamicTimeWarping.Frames, against frames: DynamicTimeWarping.Frames, warping: DynamicTimeWarping
    ) -> Float {
        let path = warping.align(take: takePart, rendering: frames)
        let costs = rowCosts(path, take: takePart, rendering: frames, warping.parameters)
        let speech = (0..<takePart.count).filter { !takePart.quiet[$0] }
        return speech.map { costs[$0] }.reduce(0, +) / Float(max(speech.count, 1))
    }

    /// The warping with its costs in units of the distance between unrelated speech frames of
    /// these two recordings.
    func scaledWarping(take: DynamicTimeWarping.Frames, rendering: DynamicTimeWarping.Frames) -> DynamicTimeWarping {
        scaledWarping(by: Float(unrelatedCost(take: take, rendering: rendering)))
    }

    private func scaledWarping(by scale: Float) -> DynamicTimeWarping {
        var scaled = self.warping
        scaled.parameters.speechAgainstSilence *= scale
        scaled.parameters.silenceAgainstSpeech *= scale
        scaled.parameters.stepPenalty *= scale
        return scaled
    }

    /// The median over phrases of the mean cost of the take's speech hops the path puts on a
    /// phrase's speech.
    static func matchedCost(
        _ path: [(row: Int32, column: Int32)], take: DynamicTimeWarping.Frames, rendering: Rendering,
        phraseOfColumn: [Int], _ parameters: DynamicTimeWarping.Parameters
    ) -> Float {
        var sums = [Float](repeating: 0, count: rendering.phrases.count)
        var counts = [Int](repeating: 0, count: rendering.phrases.count)
        let aligner = ContentAligner()
        for cell in path {
            let row = Int(cell.row)
            let column = Int(cell.column)
            let phrase = phraseOfColumn[column]
            guard phrase >= 0, !take.quiet[row], !rendering.frames.quiet[column] else { continue }
            sums[phrase] += aligner.distance(take, row, rendering.frames, column, parameters)
            counts[phrase] += 1
        }
        let means = zip(sums, counts).filter { $0.1 > 0 }.map { $0.0 / Float($0.1) }.sorted()
        return means.isEmpty ? 1 : means[means.count / 2]
    }

    /// The share of the take's speech hops outside `spans`.
    static func unmatchedShare(of take: DynamicTimeWarping.Frames, outside spans: [ClosedRange<Int>]) -> Double {
        var inside = [Bool](repeating: false, count: take.count)
        for span in spans { for row in span { inside[row] = true } }
        let speech = (0..<take.count).filter { !take.quiet[$0] }
        guard !speech.isEmpty else { return 0 }
        return Double(speech.filter { !inside[$0] }.count) / Double(speech.count)
    }

    /// Per take row, the cost of its first cell on the path.
    func rowCosts(
        _ path: [(row: Int32, column: Int32)], take: DynamicTimeWarping.Frames, rendering: DynamicTimeWarping.Frames,
        _ parameters: DynamicTimeWarping.Parameters
    ) -> [Float] {
        var costs = [Float](repeating: 0, count: take.count)
        for cell in path.reversed() {
            costs[Int(cell.row)] = distance(take, Int(cell.row), rendering, Int(cell.column), parameters)
        }
        return costs
    }

    /// Each value's mean over the half second around it.
    static func windowed(_ values: [Float], radius: Int = 25) -> [Float] {
        var prefix = [Double](repeating: 0, count: values.count + 1)
        for (index, value) in values.enumerated() { prefix[index + 1] = prefix[index] + Double(value) }
        return values.indices.map { index in
            let low = max(0, index - radius)
            let high = min(values.count, index + radius + 1)
            return Float((prefix[high] - prefix[low]) / Double(high - low))
        }
    }

    /// For each phrase, the take's speech frames the path puts on it against its rendering's speech frames.
    static func speechShares(
        _ path: [(row: Int32, column: Int32)], take: DynamicTimeWarping.Frames, rendering: Rendering
    ) -> [Double] {
        var phraseOfColumn = [Int](repeating: -1, count: rendering.frames.count)
        for (index, span) in rendering.phrases.enumerated() { for column in span { phraseOfColumn[column] = index } }
        var speech = [Int](repeating: 0, count: rendering.phrases.count)
        var lastRow: Int32 = -1
        for cell in path where cell.row != lastRow {
            lastRow = cell.row
            let phrase = phraseOfColumn[Int(cell.column)]
            if phrase >= 0 && !take.quiet[Int(cell.row)] { speech[phrase] += 1 }
        }
        return rendering.phrases.indices.map { index in
            let spoken = rendering.phrases[index].filter { !rendering.frames.quiet[$0] }.count
            return spoken == 0 ? 1 : Double(speech[index]) / Double(spoken)
        }
    }

    func distance(
        _ take: DynamicTimeWarping.Frames, _ row: Int, _ rendering: DynamicTimeWarping.Frames, _ column: Int,
        _ p: DynamicTimeWarping.Parameters
    ) -> Float {
        switch (take.quiet[row], rendering.quiet[column]) {
        case (true, true): return 0
        case (false, true): return p.speechAgainstSilence
        case (true, false): return p.silenceAgainstSpeech
        case (false, false):
            let d = FeatureMatrix.dimension
            var sum: Float = 0
            for k in 0..<d {
                let difference = take.features[take.offset(row) + k] - rendering.features[rendering.offset(column) + k]
                sum += difference * difference
            }
            return sum.squareRoot()
        }
    }

    /// The mean distance between the take's speech frames and the rendering's, paired without
    /// regard to what is said: what a take of another text would cost.
    private func unrelatedCost(take: DynamicTimeWarping.Frames, rendering: DynamicTimeWarping.Frames) -> Double {
        let takeSpeech = (0..<take.count).filter { !take.quiet[$0] }
        let renderingSpeech = (0..<rendering.count).filter { !rendering.quiet[$0] }
        guard !takeSpeech.isEmpty, !renderingSpeech.isEmpty else { return 1 }
        var generator = SplitMix64(seed: 0x5EED)
        var sum: Double = 0
        let samples = 4_000
        for _ in 0..<samples {
            let row = takeSpeech[Int(generator.next() % UInt64(takeSpeech.count))]
            let column = renderingSpeech[Int(generator.next() % UInt64(renderingSpeech.count))]
            sum += Double(distance(take, row, rendering, column, warping.parameters))
        }
        return sum / Double(samples)
    }
}
