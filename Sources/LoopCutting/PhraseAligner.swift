import Foundation
import LoopFoundation

/// Chooses which pauses of a take end phrases.
///
/// - With nothing known, every pause at least ``Parameters/minimumPause`` long is a cut.
/// - With the phrase count N, the N-1 pauses with the longest silence are cuts, so a comma or a
///   hesitation only wins over a pause between phrases when it is longer; among pauses of
///   about the same silence, the cuts that leave no phrase far too long win; and when a phrase
///   is left far longer than the rest, a pause inside it takes the place of a somewhat longer
///   cut that only halved a phrase.
/// - With the text, each phrase's expected length (its weight times the take's own seconds per
///   unit of weight) joins the pause lengths in a dynamic programme: a long hesitation inside a
///   long phrase loses to a shorter pause where the text says a phrase ends.
struct PhraseAligner {
    struct Parameters {
        /// Without a hint, the silence that ends a phrase (seconds).
        var minimumPause = 0.2
        /// The shortest silence that can be a cut at all; fewer such pauses than needed is an error.
        var viablePause = 0.05
        /// A phrase holds at least this much speech (seconds).
        var minimumPhraseSpeech = 0.1
        /// Pause evidence: scale and midpoint of the log-odds `scale * ln(silence / midpoint)`.
        var pauseScale = 2.0
        var pauseMidpoint = 0.22
        /// Spread of a phrase's actual over expected length, as a log ratio (one standard deviation).
        var lengthSpread = log(1.5)
        /// With the count alone, pauses whose silences are within this ratio of the weakest cut's
        /// count as tied (closer than the silence of a pause can be measured), and phrase
        /// lengths choose among them. Wider bands were tried: on takes the project had not
        /// tuned on, they cut at commas beside one-word phrases more often than they saved a
        /// hesitation (`Scripts/make-segmentation-set`; see the README).
        var tieRatio = 1.1
        /// With the count alone, a phrase with at least this many times the take's average speech
        /// is two phrases run together (``relieveOverlongPhrase(_:count:)``).
        var overlongRatio = 1.8
        /// A pause inside such a phrase may take the place of a cut whose silence is at most this
        /// many times its own,
        var swapRatio = 1.6
        /// but only of a cut that halved a phrase: each side holds at least this share of the
        /// average (a hesitation; the pause beside a one-word phrase stays a cut).
        var halfPhraseRatio = 0.35
        /// With the text, a phrase more than this many times longer or shorter than its text
        /// implies is not considered.
        var maximumLengthRatio = 6.0
        /// With the text, a cut with no rival place between its neighbours gets this margin (log-odds).
        var unrivalledMargin = 4.0
        /// With the text, a cut's confidence is also capped by its silence against this (seconds).
        var textSilenceReference = 0.08
        /// With the count, a cut's confidence is capped by its silence against this (seconds).
        var countSilenceReference = 0.12
    }

    struct Choice {
        /// Indices into the analysis's pauses, in order.
        var pauses: [Int]
        var confidences: [Double]
    }

    let analysis: PauseAnalysis
    var parameters = Parameters()

    func choose(hint: SegmentationHint) throws(SegmentationError) -> Choice {
        switch hint {
        case .none:
            let chosen = analysis.pauses.indices.filter {
                analysis.pauses[$0].silentDuration >= parameters.minimumPause
            }
            let kept = enforceMinimumSpeech(chosen)
            return Choice(
                pauses: kept,
                confidences: kept.map {
                    absoluteConfidence(analysis.pauses[$0].silentDuration, against: parameters.minimumPause)
                })
        case .count(let count):
            guard count >= 1 else {
                throw SegmentationError(.invalidCount, "the phrase count must be at least 1, not \(count)")
            }
            let chosen = try chooseByCount(count)
            return Choice(pauses: chosen, confidences: rankConfidences(chosen))
        case .text(let phrases, _):
            guard !phrases.isEmpty else { throw SegmentationError(.invalidCount, "the text holds no phrases") }
            try requireViablePauses(phrases.count)
            let model = PhraseLengthModel()
            return chooseByText(weights: phrases.map { model.weight(of: $0) })
        }
    }

    // MARK: Count

    private func chooseByCount(_ count: Int) throws(SegmentationError) -> [Int] {
        try requireViablePauses(count)
        let ranked = analysis.pauses.indices.sorted {
            analysis.pauses[$0].silentDuration > analysis.pauses[$1].silentDuration
        }
        var chosen: [Int] = []
        for candidate in ranked where chosen.count < count - 1 {
            let trial = (chosen + [candidate]).sorted()
            if leavesEnoughSpeech(trial) { chosen = trial }
        }
        guard chosen.count == count - 1 else {
            throw tooFewPauses(needed: count - 1, found: chosen.count)
        }
        return relieveOverlongPhrase(breakTies(chosen, count: count), count: count)
    }

    /// Each phrase's speech against the take's average, for cuts in order.
    private func phraseRatios(_ cuts: [Int], average: Double) -> [Double] {
        var start = analysis.speechRange.lowerBound
        var ratios: [Double] = []
        for index in cuts + [-1] {
            let end = index >= 0 ? analysis.pauses[index].cutHop : analysis.speechRange.upperBound
            ratios.append(Double(analysis.speechHops(in: start..<end)) / average)
            start = end
        }
        return ratios
    }

    /// When the cuts leave a phrase far too long (``Parameters/overlongRatio``), two phrases were
    /// run together: a pause inside it takes the place of a cut whose silence is at most
    /// ``Parameters/swapRatio`` longer, if that cut parts two phrases neither of which is short
    /// (a hesitation halves a phrase; the pause beside a one-word phrase is kept) and no phrase
    /// is left far too long. Of such swaps, the one giving up the least silence wins.
    private func relieveOverlongPhrase(_ chosen: [Int], count: Int) -> [Int] {
        guard count >= 3, !chosen.isEmpty else { return chosen }
        let average = Double(analysis.speechHops(in: analysis.speechRange)) / Double(count)
        let ratios = phraseRatios(chosen, average: average)
        // One swap splits one phrase (dropping a cut only lengthens): with two far too long, none helps.
        let overlong = ratios.indices.filter { ratios[$0] >= parameters.overlongRatio }
        guard overlong.count == 1, let phrase = overlong.first else { return chosen }
        let start = phrase == 0 ? analysis.speechRange.lowerBound : analysis.pauses[chosen[phrase - 1]].cutHop
        let end = phrase == chosen.count ? analysis.speechRange.upperBound : analysis.pauses[chosen[phrase]].cutHop
        let inside = analysis.pauses.indices.filter {
            start < analysis.pauses[$0].cutHop && analysis.pauses[$0].cutHop < end
        }
        var best = chosen
        var bestLoss = Double.infinity
        for (position, dropped) in chosen.enumerated()
        where min(ratios[position], ratios[position + 1]) >= parameters.halfPhraseRatio {
            let droppedSilence = analysis.pauses[dropped].silentDuration
            for added in inside {
                let addedSilence = analysis.pauses[added].silentDuration
                guard addedSilence >= parameters.viablePause, droppedSilence <= addedSilence * parameters.swapRatio
                else { continue }
                let loss = log(droppedSilence / addedSilence)
                guard loss < bestLoss else { continue }
                let trial = (chosen.filter { $0 != dropped } + [added]).sorted()
                guard leavesEnoughSpeech(trial), let trialLongest = phraseRatios(trial, average: average).max(),
                    trialLongest < parameters.overlongRatio
                else { continue }
                best = trial
                bestLoss = loss
            }
        }
        return best
    }

    /// Among the pauses whose silences are within ``Parameters/tieRatio`` of the weakest cut's
    /// (silence alone cannot tell them apart), chooses the cuts that leave no phrase far longer
    /// than the take's average: a cut missed merges two phrases into one too long, while a
    /// short phrase (a word) is no sign of anything.
    private func breakTies(_ chosen: [Int], count: Int) -> [Int] {
        let ratio = parameters.tieRatio
        guard !chosen.isEmpty else { return chosen }
        let weakest = chosen.map { analysis.pauses[$0].silentDuration }.min() ?? 0
        let sure = chosen.filter { analysis.pauses[$0].silentDuration > weakest * ratio }
        let band = analysis.pauses.indices.filter {
            let silence = analysis.pauses[$0].silentDuration
            return silence <= weakest * ratio && silence >= weakest / ratio && silence >= parameters.viablePause
        }
        let needed = chosen.count - sure.count
        guard needed > 0, band.count > needed else { return chosen }
        // Too many combinations to weigh: keep the ranking.
        var combinations = 1.0
        for k in 0..<needed { combinations *= Double(band.count - k) / Double(k + 1) }
        guard combinations <= 5_000 else { return chosen }
        let expected = Double(analysis.speechHops(in: analysis.speechRange)) / Double(count)
        func overlength(_ cuts: [Int]) -> Double? {
            guard leavesEnoughSpeech(cuts) else { return nil }
            var start = analysis.speechRange.lowerBound
            var total = 0.0
            for index in cuts + [-1] {
                let end = index >= 0 ? analysis.pauses[index].cutHop : analysis.speechRange.upperBound
                let excess = max(0, log(max(Double(analysis.speechHops(in: start..<end)), 1) / expected))
                total += excess * excess
                start = end
            }
            return total
        }
        var best = chosen
        var bestScore = overlength(chosen) ?? .infinity
        func search(_ from: Int, _ picked: [Int]) {
            if picked.count == needed {
                let cuts = (sure + picked).sorted()
                if let score = overlength(cuts), score < bestScore - 1e-9 {
                    best = cuts
                    bestScore = score
                }
                return
            }
            guard from < band.count else { return }
            for next in from..<band.count { search(next + 1, picked + [band[next]]) }
        }
        search(0, [])
        return best
    }

    private func requireViablePauses(_ count: Int) throws(SegmentationError) {
        let viable = analysis.pauses.filter { $0.silentDuration >= parameters.viablePause }.count
        if viable < count - 1 { throw tooFewPauses(needed: count - 1, found: viable) }
    }

    private func tooFewPauses(needed: Int, found: Int) -> SegmentationError {
        SegmentationError(
            .tooFewPauses,
            "the take has \(found) clear pause\(found == 1 ? "" : "s") but \(needed + 1) phrases need \(needed); cutting anyway would cut inside speech. Record again with a short pause after each phrase, or check that the text matches the take"
        )
    }

    // MARK: Text

    /// The best cut pauses for phrases of the given weights (dynamic programme over pauses).
    ///
    /// A cut's confidence is the margin by which it beats the best other place for it between
    /// its neighbouring cuts, pause evidence and both phrases' length fit together.
    private func chooseByText(weights: [Double]) -> Choice {
        let phraseCount = weights.count
        guard phraseCount > 1 else { return Choice(pauses: [], confidences: []) }
        let candidates = analysis.pauses.indices.filter { analysis.pauses[$0].silentDuration >= parameters.viablePause }
        // Boundaries: 0 = speech start, 1...K = candidates, K+1 = speech end.
        let boundaryHops =
            [analysis.speechRange.lowerBound]
            + candidates.map { analysis.pauses[$0].cutHop }
            + [analysis.speechRange.upperBound]
        let totalSpeech = Double(analysis.speechHops(in: analysis.speechRange))
        let totalWeight = weights.reduce(0, +)
        let hopsPerWeight = totalSpeech / totalWeight
        let evidence = [0.0] + candidates.map { pauseEvidence(analysis.pauses[$0].silentDuration) } + [0.0]
        let lastBoundary = boundaryHops.count - 1
        let inverseVariance = 1 / (2 * parameters.lengthSpread * parameters.lengthSpread)
        let minimumHops = parameters.minimumPhraseSpeech / analysis.envelope.hopDuration
        let maximumRatio = parameters.maximumLengthRatio

        func fit(_ phrase: Int, from a: Int, to b: Int) -> Double? {
            let actual = Double(analysis.speechHops(in: boundaryHops[a]..<boundaryHops[b]))
            guard actual >= minimumHops else { return nil }
            let expected = max(weights[phrase] * hopsPerWeight, 1)
            let ratio = log(actual / expected)
            guard abs(ratio) < log(maximumRatio) else { return nil }
            return -ratio * ratio * inverseVariance
        }

        // previous[b] / current[b]: best total with phrase j-1 / j ending at boundary b (two rows
        // kept); back[j * width + b]: where phrase j then starts. Memory: 4 bytes a phrase and pause.
        let minusInfinity = -Double.infinity
        let width = boundaryHops.count
        var previous = [Double](repeating: minusInfinity, count: width)
        var back = [Int32](repeating: -1, count: phraseCount * width)
        for b in 1...lastBoundary {
            guard let value = fit(0, from: 0, to: b) else {
                if Double(analysis.speechHops(in: boundaryHops[0]..<boundaryHops[b])) > weights[0] * hopsPerWeight
                    * maximumRatio
                {
                    break
                }
                continue
            }
            previous[b] = value + evidence[b]
        }
        for j in 1..<phraseCount {
            var current = [Double](repeating: minusInfinity, count: width)
            defer { previous = current }
            let ends: ClosedRange<Int> = j == phraseCount - 1 ? lastBoundary...lastBoundary : (j + 1)...lastBoundary
            guard ends.lowerBound <= ends.upperBound else { break }
            for b in ends {
                var best = minusInfinity
                var bestFrom = -1
                // Walking the start back only lengthens the phrase: stop once it is far too long.
                let longest = weights[j] * hopsPerWeight * maximumRatio
                for a in stride(from: b - 1, through: j, by: -1) {
                    if Double(analysis.speechHops(in: boundaryHops[a]..<boundaryHops[b])) > longest { break }
                    guard previous[a] > minusInfinity, let value = fit(j, from: a, to: b) else { continue }
                    let total = previous[a] + value
                    if total > best {
                        best = total
                        bestFrom = a
                    }
                }
                if bestFrom >= 0 {
                    current[b] = best + evidence[b]
                    back[j * width + b] = Int32(bestFrom)
                }
            }
        }
        guard previous[lastBoundary] > minusInfinity else {
            // The text and the take disagree too much for the length model: fall back to the count.
            let chosen = (try? chooseByCount(phraseCount)) ?? []
            return Choice(pauses: chosen, confidences: rankConfidences(chosen))
        }
        var boundaries = [lastBoundary]
        var boundary = lastBoundary
        for j in stride(from: phraseCount - 1, to: 0, by: -1) {
            boundary = Int(back[j * width + boundary])
            boundaries.append(boundary)
        }
        boundaries.append(0)
        boundaries.reverse() // 0, cut 1, ..., cut N-1, last

        var confidences: [Double] = []
        for j in 1..<phraseCount {
            let before = boundaries[j - 1]
            let chosen = boundaries[j]
            let after = boundaries[j + 1]
            func local(_ c: Int) -> Double? {
                guard let left = fit(j - 1, from: before, to: c), let right = fit(j, from: c, to: after) else {
                    return nil
                }
                return left + right + evidence[c]
            }
            let mine = local(chosen) ?? 0
            let rival = (before + 1..<after).filter { $0 != chosen }.compactMap(local).max()
            let margin = rival.map { mine - $0 } ?? parameters.unrivalledMargin
            let silence = analysis.pauses[candidates[chosen - 1]].silentDuration
            confidences.append(
                min(logistic(margin), absoluteConfidence(silence, against: parameters.textSilenceReference)))
        }
        return Choice(pauses: boundaries[1..<phraseCount].map { candidates[$0 - 1] }, confidences: confidences)
    }

    // MARK: Confidence

    /// Log-odds that a pause of this silence ends a phrase.
    private func pauseEvidence(_ silence: Double) -> Double {
        parameters.pauseScale * log(max(silence, 0.01) / parameters.pauseMidpoint)
    }

    /// Against the strongest pause not chosen, and against a plain minimum.
    private func rankConfidences(_ chosen: [Int]) -> [Double] {
        let chosenSet = Set(chosen)
        let strongestRejected = analysis.pauses.indices.filter { !chosenSet.contains($0) }.map {
            analysis.pauses[$0].silentDuration
        }.max()
        return chosen.map { index in
            let silence = analysis.pauses[index].silentDuration
            var confidence = absoluteConfidence(silence, against: parameters.countSilenceReference)
            if let rival = strongestRejected {
                confidence = min(confidence, logistic(2 * log(max(silence, 0.01) / max(rival, 0.01))))
            }
            return confidence
        }
    }

    private func absoluteConfidence(_ silence: Double, against reference: Double) -> Double {
        logistic(3 * log(max(silence, 0.01) / reference))
    }

    private func logistic(_ x: Double) -> Double { 1 / (1 + exp(-x)) }

    // MARK: Phrase length

    private func leavesEnoughSpeech(_ sortedPauses: [Int]) -> Bool {
        let minimumHops = Int((parameters.minimumPhraseSpeech / analysis.envelope.hopDuration).rounded())
        var start = analysis.speechRange.lowerBound
        for index in sortedPauses + [-1] {
            let end = index >= 0 ? analysis.pauses[index].cutHop : analysis.speechRange.upperBound
            if analysis.speechHops(in: start..<end) < minimumHops { return false }
            start = end
        }
        return true
    }

    /// Drops the weakest cuts that would leave a phrase with almost no speech.
    private func enforceMinimumSpeech(_ chosen: [Int]) -> [Int] {
        var kept = chosen
        while !leavesEnoughSpeech(kept),
            let weakest = kept.min(by: { analysis.pauses[$0].silentDuration < analysis.pauses[$1].silentDuration })
        {
            kept.removeAll { $0 == weakest }
        }
        return kept
    }
}
