import Testing

@testable import LoopCutting

/// The warping's path, found in one pass or in two halves at once (a long take's band is split
/// between two cores): a path that costs as little.
@Suite struct DynamicTimeWarpingTests {
    /// A small seeded generator, so every run warps the same frames.
    private struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    /// A rendering of `phrases` phrases (speech with joins of silent filler between them) and a
    /// take that reads it at its own pace, with noise, pauses of its own, an intro the text
    /// lacks and, when `skipping`, one phrase left out.
    private func recordings(seed: UInt64, phrases: Int, skipping: Bool) -> (
        take: DynamicTimeWarping.Frames, rendering: DynamicTimeWarping.Frames
    ) {
        var random = Seeded(state: seed)
        let d = FeatureMatrix.dimension
        func frame() -> [Float] { (0..<d).map { _ in Float.random(in: -1...1, using: &random) } }
        var rendering: [[Float]] = []
        var quiet: [Bool] = []
        var filler: [Bool] = []
        var phraseSpans: [Range<Int>] = []
        func join() {
            for _ in 0..<6 {
                rendering.append([Float](repeating: 0, count: d))
                quiet.append(true)
                filler.append(true)
            }
        }
        join()
        for _ in 0..<phrases {
            let start = rendering.count
            for _ in 0..<Int.random(in: 20...60, using: &random) {
                rendering.append(frame())
                quiet.append(false)
                filler.append(false)
            }
            phraseSpans.append(start..<rendering.count)
            join()
        }
        var take: [[Float]] = []
        var takeQuiet: [Bool] = []
        for _ in 0..<30 {
            take.append(frame())
            takeQuiet.append(false)
        }
        let skipped = skipping ? phrases / 2 : -1
        for (index, span) in phraseSpans.enumerated() where index != skipped {
            var position = Double(span.lowerBound)
            let pace = Double.random(in: 0.7...1.4, using: &random)
            while Int(position) < span.upperBound {
                take.append(rendering[Int(position)].map { $0 + Float.random(in: -0.3...0.3, using: &random) })
                takeQuiet.append(false)
                position += pace
            }
            for _ in 0..<Int.random(in: 0...15, using: &random) {
                take.append([Float](repeating: 0, count: d))
                takeQuiet.append(true)
            }
        }
        return (
            .init(features: take.flatMap { $0 }, quiet: takeQuiet),
            .init(features: rendering.flatMap { $0 }, quiet: quiet, filler: filler)
        )
    }

    /// What `path` costs under the warping's rules, counted here on its own: each cell's cost
    /// (silence against silence free, speech against silence or a join fixed, speech against
    /// speech their distance), each step that holds one side still its penalty (none into a
    /// free cell), each jump and each speech frame of the rendering left out before or after
    /// `skipCost`.
    private func cost(
        of path: [(row: Int32, column: Int32)], take: DynamicTimeWarping.Frames,
        rendering: DynamicTimeWarping.Frames, skipCost: Float?, _ parameters: DynamicTimeWarping.Parameters
    ) -> Double {
        let d = FeatureMatrix.dimension
        func free(_ row: Int, _ column: Int) -> Bool { take.quiet[row] && rendering.quiet[column] }
        func speech(_ columns: Range<Int>) -> Double { Double(columns.filter { !rendering.quiet[$0] }.count) }
        var total = 0.0
        for (index, cell) in path.enumerated() {
            let row = Int(cell.row)
            let column = Int(cell.column)
            if free(row, column) {
                // Silence against silence costs nothing.
            } else if rendering.quiet[column] {
                total += Double(rendering.filler![column] ? parameters.fillerCost : parameters.speechAgainstSilence)
            } else if take.quiet[row] {
                total += Double(parameters.silenceAgainstSpeech)
            } else {
                let a = take.features[(row * d)..<(row * d + d)]
                let b = rendering.features[(column * d)..<(column * d + d)]
                total += Double(zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot())
            }
            guard index > 0 else { continue }
            let before = path[index - 1]
            if cell.row == before.row && cell.column > before.column + 1 {
                total += Double(skipCost!) * speech((Int(before.column) + 1)..<column)
            } else if !(cell.row == before.row + 1 && cell.column == before.column + 1) {
                total += free(row, column) ? 0 : Double(parameters.stepPenalty)
            }
        }
        if let skipCost, let first = path.first, let last = path.last {
            total +=
                Double(skipCost) * (speech(0..<Int(first.column)) + speech((Int(last.column) + 1)..<rendering.count))
        }
        return total
    }

    @Test(arguments: [(UInt64(1), false), (2, true), (3, false), (4, true)])
    func aPathWarpedInTwoHalvesCostsAsLittleAsTheOnePassPath(seed: UInt64, skipping: Bool) {
        let (take, rendering) = recordings(seed: seed, phrases: 12, skipping: skipping)
        var whole = DynamicTimeWarping()
        whole.parameters.splitCells = .max
        // Small enough a matrix for a few levels, each split.
        whole.parameters.coarseCells = 20_000
        var halves = whole
        halves.parameters.splitCells = 0
        for skipCost: Float? in [nil, 0.4] {
            let one = whole.align(take: take, rendering: rendering, skipCost: skipCost)
            let two = halves.align(take: take, rendering: rendering, skipCost: skipCost)
            let costs = (
                cost(of: one, take: take, rendering: rendering, skipCost: skipCost, whole.parameters),
                cost(of: two, take: take, rendering: rendering, skipCost: skipCost, whole.parameters)
            )
            #expect(abs(costs.0 - costs.1) <= 1e-4 * costs.0, "skip cost \(String(describing: skipCost))")
            // Paths that cost the same may differ where silence meets either side (a fixed cost,
            // the same wherever it falls); speech meets the same speech on both.
            func speechCells(_ path: [(row: Int32, column: Int32)]) -> [Int32: [Int32]] {
                Dictionary(
                    grouping: path.filter { !rendering.quiet[Int($0.column)] && !take.quiet[Int($0.row)] },
                    by: \.column
                )
                .mapValues { $0.map(\.row) }
            }
            #expect(speechCells(one) == speechCells(two), "skip cost \(String(describing: skipCost))")
            // From the first row to the last, a step at a time (or a jump within a row).
            #expect(two.first?.row == 0 && two.last?.row == Int32(take.count - 1))
            for (a, b) in zip(two, two.dropFirst()) {
                #expect(b.row == a.row || (b.row == a.row + 1 && b.column - a.column <= 1))
                #expect(b.column >= a.column)
            }
            if skipCost == nil { #expect(two.first?.column == 0 && two.last?.column == Int32(rendering.count - 1)) }
        }
    }

    /// Blocks of frames as the coarse levels read them: each block's features averaged frame by
    /// frame (through `order` where it is set), quiet where more than half of it is, a join where
    /// any of it is; the same when the two sides are coarsened at once, on two threads.
    @Test(arguments: [2, 3, 4, 16])
    func coarseFramesAreTheirBlocksAveragedWhetherMadeAloneOrTogether(factor: Int) {
        let (take, rendering) = recordings(seed: UInt64(factor), phrases: 6, skipping: false)
        var backwards = rendering
        backwards.order = (0..<Int32(rendering.count)).reversed()
        func expected(_ frames: DynamicTimeWarping.Frames) -> ([Float], [Bool], [Bool]?) {
            let d = FeatureMatrix.dimension
            var features: [Float] = []
            var quiet: [Bool] = []
            var filler: [Bool] = []
            for first in stride(from: 0, to: frames.count, by: factor) {
                let block = first..<min(first + factor, frames.count)
                var sum = [Float](repeating: 0, count: d)
                for frame in block {
                    for k in 0..<d { sum[k] += frames.features[frames.offset(frame) + k] }
                }
                features += sum.map { $0 * (1 / Float(block.count)) }
                let isFiller = frames.filler.map { filler in block.contains { filler[$0] } } ?? false
                quiet.append(block.filter { frames.quiet[$0] }.count * 2 > block.count || isFiller)
                filler.append(isFiller)
            }
            return (features, quiet, frames.filler == nil ? nil : filler)
        }
        for (a, b) in [(take, rendering), (take, backwards)] {
            let together = DynamicTimeWarping.Frames.coarsened(a, b, by: factor)
            let alone = (a.coarsened(by: factor), b.coarsened(by: factor))
            for (made, frames) in [(together.0, a), (together.1, b), (alone.0, a), (alone.1, b)] {
                let (features, quiet, filler) = expected(frames)
                #expect(made.features == features)
                #expect(made.quiet == quiet)
                #expect(made.filler == filler)
                #expect(made.order == nil)
            }
        }
        // A path drawn with both sides coarsened at once is the path drawn one side after the other.
        var oneAfterTheOther = DynamicTimeWarping()
        oneAfterTheOther.parameters.coarseCells = 20_000
        oneAfterTheOther.parameters.concurrentCoarsening = .max
        var atOnce = oneAfterTheOther
        atOnce.parameters.concurrentCoarsening = 0
        for skipCost: Float? in [nil, 0.4] {
            let one = oneAfterTheOther.align(take: take, rendering: rendering, skipCost: skipCost)
            let two = atOnce.align(take: take, rendering: rendering, skipCost: skipCost)
            #expect(one.map(\.row) == two.map(\.row) && one.map(\.column) == two.map(\.column))
        }
    }
}
