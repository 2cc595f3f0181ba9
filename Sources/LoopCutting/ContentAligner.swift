import Foundation
import LoopFoundation
import LoopSpeech

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

        /// The same frames with each phrase played backwards: the frames are not copied, the
        /// columns read them in the other order.
        func reversedPhrases() -> Rendering {
            var copy = self
            var order = Array(0..<Int32(frames.count))
            for span in phrases where span.count > 1 {
                order[span].reverse()
                copy.frames.quiet[span].reverse()
            }
            copy.frames.order = order
            return copy
        }
    }

    /// What the alignment found.
    struct Alignment {
        /// The phrases the take reads (indices into the text's phrases), a contiguous run.
        var found: Range<Int>
        /// For each join inside `found` (between phrase k and k+1, k from found.lowerBound), the
        /// take's hops the path maps onto it.
        var joins: [ClosedRange<Int>]
        /// For each join, how much better the path fits the take there than a path through the
        /// phrases played backwards (0: no better; 0.3: clearly).
        var advantage: [Double]
        /// The share of the take's speech where the path fits better than the backwards one:
        /// near 1 for a take that reads its text, near one half for another text.
        var agreement: Double
        /// How much the take's speed against the rendering's varies from phrase to phrase (the
        /// standard deviation of the log ratio): small when the take reads the text.
        var lengthSpread: Double
    }

    struct Parameters {
        /// Silent frames between two phrases of the rendering, and before and after it.
        var joinFrames = 4
        /// A rendering frame this far below the rendering's loudest is silence (dB).
        var renderingSilence: Float = 40
        /// Leaving a speech frame of the rendering out of the path (a phrase the take does not
        /// read) costs this much, in units of the distance between unrelated speech frames.
        var skipCost: Float = 0.4
        /// A phrase is in the take when at least this share of its rendering is on the path.
        var foundShare = 0.5
        /// A take longer than this (frames: 20 minutes) is aligned forwards and backwards one
        /// after the other rather than at once, which would hold twice the memory.
        var longTake = 120_000
    }

    var parameters = Parameters()
    var warping = DynamicTimeWarping()

    /// `phrases` rendered by the synthesizer in `language`, as frames for alignment on
    /// `upperFrequency`'s band. Each phrase's audio is measured as soon as it is rendered and
    /// then let go: an hour's text never lies whole in memory as audio.
    func render(_ phrases: [String], in language: SpeechLanguage, upperFrequency: Double) throws -> Rendering {
        var index = 0
        return try rendering(upperFrequency: upperFrequency) { () throws -> RenderedSpeech? in
            guard index < phrases.count else { return nil }
            defer { index += 1 }
            return try SpeechSynthesizer.shared.render([phrases[index]], in: language)[0]
        }
    }

    /// The rendering of `speech` (one per phrase) as frames for alignment, on `upperFrequency`'s band.
    func rendering(of speech: [RenderedSpeech], upperFrequency: Double) throws -> Rendering {
        var phrases = speech.makeIterator()
        return try rendering(upperFrequency: upperFrequency) { phrases.next() }
    }

    /// The rendering of the phrases `next` gives, one at a time, until it gives nil.
    private func rendering(upperFrequency: Double, next: () throws -> RenderedSpeech?) throws -> Rendering {
        var features: [Float] = []
        var quiet: [Bool] = []
        var phrases: [Range<Int>] = []
        let d = FeatureMatrix.dimension
        let join = { (features: inout [Float], quiet: inout [Bool], count: Int) in
            features.append(contentsOf: repeatElement(0, count: count * d))
            quiet.append(contentsOf: repeatElement(true, count: count))
        }
        join(&features, &quiet, parameters.joinFrames)
        while let phrase = try next() {
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
            // Trim the phrase's own leading and trailing silence.
            let first = isQuiet.firstIndex(of: false) ?? 0
            let last = (isQuiet.lastIndex(of: false) ?? max(count - 1, 0)) + 1
            let start = quiet.count
            if count > 0 && first < last {
                features.append(contentsOf: cepstra[(first * d)..<(last * d)])
                quiet.append(contentsOf: isQuiet[first..<last])
            }
            phrases.append(start..<quiet.count)
            join(&features, &quiet, parameters.joinFrames)
        }
        var matrix = FeatureMatrix(values: consume features)
        matrix.normalise { !quiet[$0] }
        return Rendering(frames: .init(features: matrix.values, quiet: quiet), phrases: phrases)
    }

    /// Aligns the take's frames with the rendering.
    func align(take: DynamicTimeWarping.Frames, rendering: Rendering) -> Alignment {
        // Costs in units of the distance between unrelated speech frames of these two recordings.
        var scaled = self.warping
        let scale = Float(unrelatedCost(take: take, rendering: rendering.frames))
        scaled.parameters.speechAgainstSilence *= scale
        scaled.parameters.silenceAgainstSpeech *= scale
        scaled.parameters.stepPenalty *= scale
        let warping = scaled
        // The phrases the take reads: the path may leave out phrases at either end, at a cost
        // per frame of their speech below what matching them against silence or other words
        // costs. When some are left out, the take is aligned again with the run that is not.
        // The same take is also aligned with each phrase played backwards: the same sounds in
        // the wrong order. Where the text is what is said, the forward path fits the take
        // clearly better. Most takes read all their phrases, so that alignment runs beside the
        // first, with every phrase; it runs again if only some are found.
        // A long take's two alignments run one after the other, for memory.
        let reversedWhole = rendering.reversedPhrases()
        let forwardPass: @Sendable () -> [(row: Int32, column: Int32)] = {
            warping.align(take: take, rendering: rendering.frames, skipCost: parameters.skipCost * scale)
        }
        let reversedPass: @Sendable () -> [(row: Int32, column: Int32)] = {
            warping.align(take: take, rendering: reversedWhole.frames)
        }
        var (path, reversedPath) =
            take.count > parameters.longTake ? (forwardPass(), reversedPass()) : bothAtOnce(forwardPass, reversedPass)
        var onPath = [Bool](repeating: false, count: rendering.frames.count)
        for cell in path { onPath[Int(cell.column)] = true }
        let isFound = rendering.phrases.map { span in
            span.isEmpty || Double(span.filter { onPath[$0] }.count) >= parameters.foundShare * Double(span.count)
        }
        var best = 0..<0, runStart: Int?
        for index in 0...isFound.count {
            if index < isFound.count && isFound[index] {
                if runStart == nil { runStart = index }
            } else if let start = runStart {
                if index - start > best.count { best = start..<index }
                runStart = nil
            }
        }
        var part = rendering
        var reversed = reversedWhole
        if !best.isEmpty && best.count < rendering.phrases.count {
            let offset = rendering.phrases[best.lowerBound].lowerBound - parameters.joinFrames
            let last = rendering.phrases[best.upperBound - 1].upperBound + parameters.joinFrames
            part = Rendering(
                frames: .init(
                    features: Array(
                        rendering.frames.features[(offset * FeatureMatrix.dimension)..<(last * FeatureMatrix.dimension)]
                    ),
                    quiet: Array(rendering.frames.quiet[offset..<last])),
                phrases: rendering.phrases[best].map { ($0.lowerBound - offset)..<($0.upperBound - offset) })
            reversed = part.reversedPhrases()
            let partFrames = part.frames, reversedFrames = reversed.frames
            let forwardPart: @Sendable () -> [(row: Int32, column: Int32)] = {
                warping.align(take: take, rendering: partFrames)
            }
            let reversedPart: @Sendable () -> [(row: Int32, column: Int32)] = {
                warping.align(take: take, rendering: reversedFrames)
            }
            (path, reversedPath) =
                take.count > parameters.longTake
                ? (forwardPart(), reversedPart()) : bothAtOnce(forwardPart, reversedPart)
        }

        // The take's rows on each join between two phrases.
        var rowsOfColumn = [ClosedRange<Int>?](repeating: nil, count: part.frames.count)
        for cell in path {
            let column = Int(cell.column), row = Int(cell.row)
            rowsOfColumn[column] =
                rowsOfColumn[column].map { min($0.lowerBound, row)...max($0.upperBound, row) } ?? row...row
        }
        let joins = part.phrases.indices.dropLast().map { phrase -> ClosedRange<Int> in
            let gap = part.phrases[phrase].upperBound..<part.phrases[phrase + 1].lowerBound
            let rows = gap.compactMap { rowsOfColumn[$0] }
            guard let low = rows.map(\.lowerBound).min(), let high = rows.map(\.upperBound).max() else {
                let row = rowsOfColumn[max(part.phrases[phrase].upperBound - 1, 0)]?.upperBound ?? 0
                return row...row
            }
            return low...high
        }

        let forwardCosts = Self.windowed(rowCosts(path, take: take, rendering: part.frames, warping.parameters))
        let reversedCosts = Self.windowed(
            rowCosts(reversedPath, take: take, rendering: reversed.frames, warping.parameters))
        let speechRows = (0..<take.count).filter { !take.quiet[$0] }
        let agreement =
            speechRows.isEmpty
            ? 0 : Double(speechRows.filter { forwardCosts[$0] < reversedCosts[$0] }.count) / Double(speechRows.count)
        let advantage = joins.map { rows -> Double in
            let centre = (rows.lowerBound + rows.upperBound) / 2
            let forward = forwardCosts[min(max(centre, 0), take.count - 1)],
                backward = reversedCosts[min(max(centre, 0), take.count - 1)]
            return Double((backward - forward) / max(backward, 1e-3))
        }
        let logShares = Self.speechShares(path, take: take, rendering: part).filter { $0 > 0 }.map { log($0) }
        let meanLog = logShares.reduce(0, +) / Double(max(logShares.count, 1))
        let spread = (logShares.map { ($0 - meanLog) * ($0 - meanLog) }.reduce(0, +) / Double(max(logShares.count, 1)))
            .squareRoot()
        return Alignment(found: best, joins: joins, advantage: advantage, agreement: agreement, lengthSpread: spread)
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
            let low = max(0, index - radius), high = min(values.count, index + radius + 1)
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
