import Foundation
import LoopFoundation

/// Finds a text's phrases among the stretches of speech a take's pauses part, by telling them
/// apart rather than by following the words frame by frame: for a voice far from the
/// synthesizer's (a real speaker), whose words fit the rendering about as loosely as another
/// text's do, but whose phrases still sound more like their own rendering than like the others'.
///
/// Every run of one to ``Parameters/longestRun`` stretches is compared, on the low cepstra,
/// with every phrase of a short text (of a long one, every phrase about as long); each
/// comparison becomes how many standard deviations the phrase's cost lies below the other
/// phrases' on that run (each phrase's mean over the runs taken away first). A monotone chain
/// of runs and phrases then takes the most of that above ``Parameters/threshold``, less a
/// penalty for a run out of proportion with its phrase at the reader's rate (the rate whose
/// chain takes the most): speech no phrase explains (an intro, an added sentence, a false
/// start) and phrases the take does not read are left out for free. Phrases passed over where
/// the stretches between two found are as many and as long are placed there by their order.
struct PhraseSpotter {
    struct Parameters {
        /// Silence that parts two stretches (seconds).
        var partingPause = 0.12
        /// One phrase covers at most this many stretches (pauses at its commas).
        var longestRun = 5
        /// A run may be a phrase when its speech against the phrase's rendered speech is in
        /// this range (a reader from much faster to much slower than the synthesizer)...
        var plausibleRate = 0.5...2.2
        /// ...and within this factor of the reader's rate, tried in steps of `rateStep`.
        var rateTolerance = 1.3
        var rateStep = 1.05
        /// A match at the edge of that tolerance counts this many standard deviations less.
        var offRatePenalty = 4.0
        /// A text of at most this many phrases has each run compared with all of them; a
        /// longer one with those whose rendered speech is within this range of the run's.
        var wholeText = 16
        var comparedRate = 0.33...3.0
        /// A phrase placed by its order before the first phrase found or after the last lies at
        /// least this many standard deviations below the others: no worse than they do on
        /// average. Lines alike but for a word or two ("For sales, press 1." ... "For the
        /// operator, press 0.") are told apart from one another by 0.05-0.85 where they are
        /// read; their order, and the stretches left being as many and as long as they are,
        /// decide.
        var placedAtEnds = 0.0
        /// A run compared with fewer phrases is not scored.
        var fewestCompared = 4
        /// A match adds its standard deviations less this to the chain...
        var threshold = 1.0
        /// ...counting at most this many (one phrase told apart by chance far from the others
        /// does not outweigh several told apart clearly).
        var highestScore = 6.0
        /// The coarsening of both recordings for the comparisons.
        var coarsening = 2
        /// Beyond this many compared cells the take is not spotted (about 10 s on one core).
        var cellBudget = 500_000_000
    }

    /// A phrase found: the take's hops its run covers and how clearly it is told apart.
    struct Spot {
        var phrase: Int
        var rows: ClosedRange<Int>
        /// The run's first and last stretch.
        var stretches: ClosedRange<Int>
        /// Its standard deviations below the other phrases'; nil for a phrase placed by its
        /// order alone, between two told apart.
        var identification: Double?
    }

    struct Spotting {
        var spots: [Spot]
        /// The stretches of speech, as hops.
        var stretches: [ClosedRange<Int>]
        /// For each pause between stretch k and k+1, the pause.
        var partings: [PauseAnalysis.Pause]
        /// The spots' speech against their phrases' rendered speech: the robust spread of its log.
        var lengthSpread: Double

        /// The spots after the first that do not read the phrase after the previous spot's in
        /// the stretch after its: a line skipped or a sentence added in a take that reads its
        /// text; most of them for phrases found by chance.
        var breaks: Int {
            zip(spots, spots.dropFirst()).filter {
                $1.phrase != $0.phrase + 1 || $1.stretches.lowerBound != $0.stretches.upperBound + 1
            }.count
        }
    }

    var parameters = Parameters()
    var aligner = ContentAligner()

    /// The phrases found among the take's stretches (`take`'s frames, `analysis` its pauses),
    /// with `warping` scaled to the two recordings; nil when no run is a phrase or the take is
    /// too long to compare within ``Parameters/cellBudget``.
    func spot(
        take: DynamicTimeWarping.Frames, analysis: PauseAnalysis, rendering: ContentAligner.Rendering,
        warping: DynamicTimeWarping
    ) -> Spotting? {
        let count = rendering.phrases.count
        guard count >= 3, !analysis.speechRange.isEmpty else { return nil }
        let partings = analysis.pauses.filter { $0.silentDuration >= parameters.partingPause }
        var stretches: [ClosedRange<Int>] = []
        var start = analysis.speechRange.lowerBound
        for pause in partings {
            stretches.append(start...max(start, pause.range.lowerBound - 1))
            start = pause.range.upperBound
        }
        stretches.append(start...max(start, analysis.speechRange.upperBound - 1))
        let speechOf = { (rows: ClosedRange<Int>) -> Int in
            analysis.speechHops(in: rows.lowerBound..<(rows.upperBound + 1))
        }
        let rendered = rendering.phrases.map { span in max(1, span.filter { !rendering.frames.quiet[$0] }.count) }
        // The runs, each compared with every phrase of a short text, or of a long one with
        // those whose length could be the run's.
        var runs: [Run] = []
        var cells = 0
        let factor = parameters.coarsening
        let budget = parameters.cellBudget * factor * factor
        for first in stretches.indices {
            for last in first..<min(stretches.count, first + parameters.longestRun) {
                let rows = stretches[first].lowerBound...stretches[last].upperBound
                let speech = Double(speechOf(rows))
                guard rendered.contains(where: { parameters.plausibleRate.contains(speech / Double($0)) }) else {
                    continue
                }
                let phrases =
                    count <= parameters.wholeText
                    ? Array(0..<count)
                    : (0..<count).filter { parameters.comparedRate.contains(speech / Double(rendered[$0])) }
                for phrase in phrases { cells += rows.count * rendering.phrases[phrase].count }
                // Too long a take for its text to be compared in bounded time: not spotted.
                guard cells <= budget else { return nil }
                runs.append(Run(first: first, last: last, rows: rows, speech: speech, phrases: phrases))
            }
        }
        guard !runs.isEmpty else { return nil }
        let kept = aligner.parameters.identificationCepstra
        let phraseFrames = (0..<count).map {
            rendering.phraseFrames($0, joinFrames: aligner.parameters.joinFrames).keepingLowCepstra(kept)
                .coarsened(by: factor)
        }
        let compare = { @Sendable (slice: ArraySlice<Run>) -> [[Int: Double]] in
            slice.map { run in
                let part = take.rows(run.rows).keepingLowCepstra(kept).coarsened(by: factor)
                return Dictionary(
                    uniqueKeysWithValues: run.phrases.map {
                        ($0, Double(aligner.meanSpeechCost(of: part, against: phraseFrames[$0], warping: warping)))
                    })
            }
        }
        let allRuns = runs
        let half = runs.count / 2
        let (a, b) = bothAtOnce({ compare(allRuns[..<half]) }, { compare(allRuns[half...]) })
        let scores = Self.scores(a + b, phrases: count, fewest: parameters.fewestCompared)
        // The reader's rate is the one whose chain gathers the most: each tried in turn, from
        // much faster than the synthesizer to much slower.
        var chosen: (score: Double, matches: [(run: Int, phrase: Int)]) = (0, [])
        var chosenRate = 1.0
        var rate = parameters.plausibleRate.lowerBound
        while rate <= parameters.plausibleRate.upperBound {
            let tried = rate
            let candidate = chain(runs, scores, rendered: rendered, stretches: stretches.count) { ratio in
                let off = abs(log(ratio / tried)) / log(parameters.rateTolerance)
                return off <= 1 ? parameters.offRatePenalty * off * off : nil
            }
            if candidate.score > chosen.score { (chosen, chosenRate) = (candidate, tried) }
            rate *= parameters.rateStep
        }
        let matches = chosen.matches
        guard !matches.isEmpty else { return nil }
        let layout = Layout(
            stretches: stretches, rendered: rendered, rate: chosenRate, runs: runs, scores: scores,
            speechOf: speechOf, parameters: parameters)
        var spots: [Spot] = []
        for match in matches {
            let run = runs[match.run]
            if let previous = spots.last {
                spots += layout.placed(
                    (previous.stretches.upperBound + 1)..<run.first, (previous.phrase + 1)..<match.phrase, atEnd: false)
            } else {
                // A text that starts before the take: the phrases just before the first found.
                let before = min(run.first, match.phrase)
                spots += layout.placed(0..<run.first, (match.phrase - before)..<match.phrase, atEnd: true)
            }
            spots.append(
                Spot(
                    phrase: match.phrase, rows: run.rows, stretches: run.first...run.last,
                    identification: scores[match.run][match.phrase]))
        }
        let last = spots[spots.count - 1]
        // A text that goes on past the take: the phrases just after the last found.
        let after = min(stretches.count - last.stretches.upperBound - 1, count - last.phrase - 1)
        spots += layout.placed(
            (last.stretches.upperBound + 1)..<stretches.count, (last.phrase + 1)..<(last.phrase + 1 + after),
            atEnd: true)
        spots = layout.parted(spots, phrases: count)
        let logs = spots.map { log(Double(speechOf($0.rows)) / Double(rendered[$0.phrase])) }.sorted()
        let median = logs.isEmpty ? 0 : logs[logs.count / 2]
        let deviations = logs.map { abs($0 - median) }.sorted()
        let spread = deviations.isEmpty ? 0 : 1.4826 * deviations[deviations.count / 2]
        return Spotting(spots: spots, stretches: stretches, partings: partings, lengthSpread: spread)
    }

    /// The stretches and the reader's rate, for placing phrases by their order.
    struct Layout {
        var stretches: [ClosedRange<Int>]
        var rendered: [Int]
        var rate: Double
        /// The run over each range of stretches.
        var runIndex: [ClosedRange<Int>: Int] = [:]
        var scores: [[Int: Double]]
        var speechOf: (ClosedRange<Int>) -> Int
        var parameters: Parameters

        init(
            stretches: [ClosedRange<Int>], rendered: [Int], rate: Double, runs: [Run], scores: [[Int: Double]],
            speechOf: @escaping (ClosedRange<Int>) -> Int, parameters: Parameters
        ) {
            (self.stretches, self.rendered, self.rate, self.scores) = (stretches, rendered, rate, scores)
            (self.speechOf, self.parameters) = (speechOf, parameters)
            for (index, run) in runs.enumerated() { runIndex[run.first...run.last] = index }
        }

        /// Whether the stretches `range` are as long as `phrase` at the reader's rate.
        func fits(_ range: ClosedRange<Int>, _ phrase: Int) -> Bool { deviation(range, phrase) != nil }

        /// How far the stretches `range` are from `phrase`'s length at the reader's rate (the
        /// log ratio), nil beyond the tolerance.
        func deviation(_ range: ClosedRange<Int>, _ phrase: Int) -> Double? {
            let rows = stretches[range.lowerBound].lowerBound...stretches[range.upperBound].upperBound
            let off = abs(log(Double(speechOf(rows)) / Double(rendered[phrase]) / rate))
            return off <= log(parameters.rateTolerance) ? off : nil
        }

        /// Phrases the chain passed over, `missing`, where the stretches `between` can be shared
        /// among them in order, each phrase a run of them as long as it at the reader's rate:
        /// placed there by their order (a short phrase has too few sounds to be told apart).
        /// Between two phrases found, that is enough; before the first or after the last
        /// (`atEnd`), where an intro or an outro may be, the stretches must be exactly the
        /// phrases' and each must also sound more like its phrase than the others do.
        func placed(_ between: Range<Int>, _ missing: Range<Int>, atEnd: Bool) -> [Spot] {
            guard !missing.isEmpty, between.count >= missing.count,
                between.count == missing.count || (!atEnd && between.count <= parameters.longestRun * missing.count)
            else { return [] }
            let m = missing.count
            let n = between.count
            // cost[j][i]: the least total deviation with the first j phrases on the first i stretches.
            var cost = [[Double]](repeating: [Double](repeating: .infinity, count: n + 1), count: m + 1)
            var from = [[Int]](repeating: [Int](repeating: -1, count: n + 1), count: m + 1)
            cost[0][0] = 0
            for j in 1...m {
                let phrase = missing.lowerBound + j - 1
                for i in j...n {
                    for start in (j - 1)..<i where cost[j - 1][start].isFinite && i - start <= parameters.longestRun {
                        let range = (between.lowerBound + start)...(between.lowerBound + i - 1)
                        guard let off = deviation(range, phrase) else { continue }
                        if atEnd {
                            let score = runIndex[range].flatMap { scores[$0][phrase] }
                            if (score ?? -.infinity) < parameters.placedAtEnds { continue }
                        }
                        if cost[j - 1][start] + off < cost[j][i] {
                            cost[j][i] = cost[j - 1][start] + off
                            from[j][i] = start
                        }
                    }
                }
            }
            guard cost[m][n].isFinite else { return [] }
            var filled: [Spot] = []
            var i = n
            for j in stride(from: m, to: 0, by: -1) {
                let start = from[j][i]
                let range = (between.lowerBound + start)...(between.lowerBound + i - 1)
                filled.append(
                    Spot(
                        phrase: missing.lowerBound + j - 1,
                        rows: stretches[range.lowerBound].lowerBound...stretches[range.upperBound].upperBound,
                        stretches: range, identification: nil))
                i = start
            }
            return filled.reversed()
        }

        /// A spot over several stretches whose first (or last) is as long as the phrase before
        /// (or after) it, where that phrase is not found, while the rest is as long as its own:
        /// the short phrase was taken in with it, and gets that stretch.
        func parted(_ spots: [Spot], phrases count: Int) -> [Spot] {
            var parted: [Spot] = []
            for (index, found) in spots.enumerated() {
                var spot = found
                let range = spot.stretches
                if range.count > 1, spot.phrase > 0, parted.last.map({ $0.phrase < spot.phrase - 1 }) ?? true,
                    fits((range.lowerBound + 1)...range.upperBound, spot.phrase)
                {
                    let head = placed(
                        range.lowerBound..<(range.lowerBound + 1), (spot.phrase - 1)..<spot.phrase,
                        atEnd: parted.isEmpty)
                    if !head.isEmpty {
                        parted += head
                        spot.stretches = (range.lowerBound + 1)...range.upperBound
                    }
                }
                let next = index + 1 < spots.count ? spots[index + 1].phrase : count
                if spot.stretches.count > 1, spot.phrase + 1 < next,
                    fits(spot.stretches.lowerBound...(spot.stretches.upperBound - 1), spot.phrase)
                {
                    let last = spot.stretches.upperBound
                    let tail = placed(
                        last..<(last + 1), (spot.phrase + 1)..<(spot.phrase + 2), atEnd: index == spots.count - 1)
                    if !tail.isEmpty {
                        spot.stretches = spot.stretches.lowerBound...(last - 1)
                        spot.rows = stretches[spot.stretches.lowerBound].lowerBound...stretches[last - 1].upperBound
                        parted.append(spot)
                        parted += tail
                        continue
                    }
                }
                spot.rows =
                    stretches[spot.stretches.lowerBound].lowerBound...stretches[spot.stretches.upperBound].upperBound
                parted.append(spot)
            }
            return parted
        }
    }

    /// A run of stretches, its speech (hops), and the phrases it is compared with.
    struct Run {
        var first: Int, last: Int, rows: ClosedRange<Int>
        var speech: Double
        var phrases: [Int]
    }

    /// Per run, each phrase's standard deviations below the others' there, with each phrase's
    /// mean over the runs it was compared with taken away first (a rendering that fits any
    /// speech); none where fewer than `fewest` phrases were compared.
    private static func scores(_ costs: [[Int: Double]], phrases count: Int, fewest: Int) -> [[Int: Double]] {
        var sums = [Double](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: count)
        for row in costs {
            for (phrase, cost) in row {
                sums[phrase] += cost
                counts[phrase] += 1
            }
        }
        let means = (0..<count).map { counts[$0] == 0 ? 0 : sums[$0] / Double(counts[$0]) }
        // Each run's costs, less each phrase's mean and the run's own mean.
        let centred = costs.map { row -> [Int: Double] in
            let values = row.mapValues { $0 }.map { ($0.key, $0.value - means[$0.key]) }
            let mean = values.map(\.1).reduce(0, +) / Double(max(values.count, 1))
            return Dictionary(uniqueKeysWithValues: values.map { ($0.0, $0.1 - mean) })
        }
        // One deviation for all: a few phrases compared on a run give no deviation of their own.
        let all = centred.filter { $0.count >= fewest }.flatMap(\.values)
        let deviation = max((all.map { $0 * $0 }.reduce(0, +) / Double(max(all.count, 1))).squareRoot(), 1e-6)
        return centred.map { row in
            guard row.count >= fewest else { return [:] }
            let n = Double(row.count)
            return row.mapValues { -$0 * n / (n - 1) / deviation }
        }
    }

    /// The monotone chain of (run, phrase) matches, runs apart and phrases in order, that
    /// gathers the most of their scores above the threshold, less what `penalty` asks for each
    /// match's speech ratio, among the matches it gives a penalty for.
    private func chain(
        _ runs: [Run], _ scores: [[Int: Double]], rendered: [Int], stretches n: Int,
        penalty: (Double) -> Double?
    ) -> (score: Double, matches: [(run: Int, phrase: Int)]) {
        let count = rendered.count
        // best[i][k]: the most gathered with stretches ..<i and phrases ..<k.
        var best = [[Double]](repeating: [Double](repeating: 0, count: count + 1), count: n + 1)
        var from = [[(i: Int, k: Int, run: Int)?]](repeating: .init(repeating: nil, count: count + 1), count: n + 1)
        var runsEndingAt = [[Int]](repeating: [], count: n + 1)
        for (index, run) in runs.enumerated() { runsEndingAt[run.last + 1].append(index) }
        for i in 0...n {
            for k in 0...count {
                var value = 0.0
                var choice: (i: Int, k: Int, run: Int)? = nil
                if i > 0, best[i - 1][k] > value {
                    value = best[i - 1][k]
                    choice = (i - 1, k, -1)
                }
                if k > 0, best[i][k - 1] > value {
                    value = best[i][k - 1]
                    choice = (i, k - 1, -1)
                }
                if k > 0 {
                    for index in runsEndingAt[i] {
                        guard let score = scores[index][k - 1].map({ min($0, parameters.highestScore) }),
                            let off = penalty(runs[index].speech / Double(rendered[k - 1])),
                            score - off > parameters.threshold
                        else { continue }
                        let candidate = best[runs[index].first][k - 1] + score - off - parameters.threshold
                        if candidate > value {
                            value = candidate
                            choice = (runs[index].first, k - 1, index)
                        }
                    }
                }
                best[i][k] = value
                from[i][k] = choice
            }
        }
        var matches: [(run: Int, phrase: Int)] = []
        var i = n
        var k = count
        while let step = from[i][k] {
            if step.run >= 0 { matches.append((step.run, k - 1)) }
            (i, k) = (step.i, step.k)
        }
        return (best[n][count], matches.reversed())
    }
}
