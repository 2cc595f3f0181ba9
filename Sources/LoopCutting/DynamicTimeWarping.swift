import LoopFoundation

/// Dynamic time warping of a take's frames against a rendering's, in memory that grows with the
/// take rather than with the product of the two lengths.
///
/// The path is found coarse to fine: first on frames averaged over a block (as many as keep
/// the whole matrix small), then at each finer level only within a band around the coarser
/// path, as far as the original 10 ms frames.
struct DynamicTimeWarping {
    /// One side's frames at one resolution.
    struct Frames {
        var features: [Float]
        /// Per frame: silence (no speech).
        var quiet: [Bool]
        /// When set, frame k's features are those stored at `order[k]` (the same features read
        /// in another order, without a copy).
        var order: [Int32]? = nil
        /// Per frame (the rendering's): a join between two phrases, or before the first or after
        /// the last, where the take may say what the text does not (an intro, an added sentence,
        /// a false start) at ``Parameters/fillerCost`` a frame.
        var filler: [Bool]? = nil
        var count: Int { quiet.count }

        /// Where frame `index`'s features start in `features`.
        @inline(__always)
        func offset(_ index: Int) -> Int { (order.map { Int($0[index]) } ?? index) &* FeatureMatrix.dimension }

        /// The frames `rows`, copied out.
        func rows(_ rows: ClosedRange<Int>) -> Frames {
            let d = FeatureMatrix.dimension
            var features: [Float] = []
            features.reserveCapacity(rows.count * d)
            for row in rows { features.append(contentsOf: self.features[offset(row)..<(offset(row) + d)]) }
            return Frames(features: features, quiet: Array(quiet[rows]))
        }

        /// The same frames with only the first `kept` cepstra and their deltas: the shape of the
        /// spectrum, which voices share, without its detail, which is the speaker's.
        func keepingLowCepstra(_ kept: Int) -> Frames {
            var copy = self
            let d = FeatureMatrix.dimension
            let c = FeatureMatrix.cepstra
            for frame in stride(from: 0, to: copy.features.count, by: d) {
                for k in kept..<c {
                    copy.features[frame + k] = 0
                    copy.features[frame + c + k] = 0
                }
            }
            return copy
        }

        /// Blocks of `factor` frames averaged; a block is quiet when most of it is.
        func coarsened(by factor: Int) -> Frames {
            guard factor > 1 else { return self }
            var averaged = [Float](repeating: 0, count: blocks(factor) * FeatureMatrix.dimension)
            averaged.withUnsafeMutableBufferPointer { average(by: factor, into: $0) }
            return coarsened(by: factor, averaged: averaged)
        }

        /// `first` and `second` coarsened by `factor`, their features averaged at once on two
        /// threads into arrays made on this one (an array a worker thread makes comes from its own
        /// malloc arena, which kept 8 MiB more at the peak of an hour's alignment).
        static func coarsened(_ first: Frames, _ second: Frames, by factor: Int) -> (Frames, Frames) {
            guard factor > 1 else { return (first, second) }
            let d = FeatureMatrix.dimension
            var a = [Float](repeating: 0, count: first.blocks(factor) * d)
            var b = [Float](repeating: 0, count: second.blocks(factor) * d)
            a.withUnsafeMutableBufferPointer { a in
                b.withUnsafeMutableBufferPointer { b in
                    let a = UnsafeSendable(value: a)
                    let b = UnsafeSendable(value: b)
                    _ = bothAtOnce(
                        { first.average(by: factor, into: a.value) }, { second.average(by: factor, into: b.value) })
                }
            }
            return (first.coarsened(by: factor, averaged: a), second.coarsened(by: factor, averaged: b))
        }

        private func blocks(_ factor: Int) -> Int { (count + factor - 1) / factor }

        /// Each block's features averaged into `target` (zeros, a block's values after another's).
        private func average(by factor: Int, into target: UnsafeMutableBufferPointer<Float>) {
            let d = FeatureMatrix.dimension
            let count = count
            features.withUnsafeBufferPointer { source in
                guard let sums = target.baseAddress, let source = source.baseAddress else { return }
                for block in 0..<blocks(factor) {
                    let first = block * factor
                    let last = min(first + factor, count)
                    let sum = sums + block * d
                    // Frame by frame in order, as the sums always were.
                    for frame in first..<last {
                        let values = source + offset(frame)
                        for k in 0..<d { sum[k] += values[k] }
                    }
                    let scale = 1 / Float(last - first)
                    for k in 0..<d { sum[k] *= scale }
                }
            }
        }

        /// The blocks of `factor` frames, their features `averaged`: quiet where most of a block
        /// is, and a join where any of it is.
        private func coarsened(by factor: Int, averaged: [Float]) -> Frames {
            let blocks = blocks(factor)
            var quietBlocks = [Bool](repeating: false, count: blocks)
            for block in 0..<blocks {
                let first = block * factor
                let last = min(first + factor, count)
                var quietCount = 0
                for frame in first..<last where quiet[frame] { quietCount += 1 }
                quietBlocks[block] = quietCount * 2 > last - first
            }
            // A block that holds part of a join is one: a join is a few frames, and a coarse
            // path must still be able to leave speech out there.
            var fillerBlocks: [Bool]?
            if let filler {
                var blocksWithFiller = [Bool](repeating: false, count: blocks)
                for frame in 0..<count where filler[frame] { blocksWithFiller[frame / factor] = true }
                for block in 0..<blocks where blocksWithFiller[block] { quietBlocks[block] = true }
                fillerBlocks = blocksWithFiller
            }
            return Frames(features: averaged, quiet: quietBlocks, filler: fillerBlocks)
        }
    }

    struct Parameters {
        /// The coarsest level's matrix holds at most this many cells.
        var coarseCells = 3_000_000
        /// A level's band of at least this many cells is warped in two halves at once.
        var splitCells = 500_000
        /// Both sides are coarsened at once where they hold at least this many frames together.
        var concurrentCoarsening = 100_000
        /// At each finer level the band reaches this many frames beyond the coarser path.
        var bandRadius = 12
        /// Take speech against rendering silence, or the reverse: a fixed cost per frame, in units of
        /// the mean distance between unrelated speech frames of the two recordings.
        var speechAgainstSilence: Float = 1.1
        var silenceAgainstSpeech: Float = 0.7
        /// A step that holds one side still costs this much more than a diagonal one (speech only).
        var stepPenalty: Float = 0.05
        /// Take speech on a join of the rendering (``Frames/filler``): speech the text does not
        /// hold. Below the cost of unrelated speech, above that of the words themselves.
        var fillerCost: Float = 0.7
    }

    var parameters = Parameters()

    private static let dimension = FeatureMatrix.dimension

    /// The Euclidean distance between two frames of ``FeatureMatrix/dimension`` values (24, a
    /// multiple of eight), eight lanes at a time.
    @inline(__always)
    static func distance(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Float {
        var sum = SIMD8<Float>()
        for lane in stride(from: 0, to: dimension * 4, by: 32) {
            let difference =
                a.loadUnaligned(fromByteOffset: lane, as: SIMD8<Float>.self)
                - b.loadUnaligned(fromByteOffset: lane, as: SIMD8<Float>.self)
            sum += difference * difference
        }
        // The eight lanes summed pairwise (a tree three additions deep, where `sum()` adds them
        // one after another: seven deep, on every cell's way to the path).
        let four = sum.lowHalf + sum.highHalf
        let two = four.lowHalf + four.highHalf
        return (two[0] + two[1]).squareRoot()
    }

    /// The path from the take's first to last frame (`take` rows, `rendering` columns), each
    /// element a (row, column) pair, from the first to the last column of the rendering; or,
    /// with `skipCost`, from any column to any later one, each speech frame of the rendering
    /// left out before or after costing that much (a take that reads only some of the text).
    func align(take: Frames, rendering: Frames, skipCost: Float? = nil) -> [(row: Int32, column: Int32)] {
        var factor = 1
        while (take.count / factor) * (rendering.count / factor) > parameters.coarseCells, factor < 1 << 12 {
            factor *= 2
        }
        // Each level is four times finer than the one before (the first step may be two), made
        // from the frames when it is needed and let go after: the memory of one coarser copy
        // at a time, the largest a quarter of the frames.
        var path: [(row: Int32, column: Int32)]?
        var f = factor
        var coarser = factor
        while true {
            // Two long recordings are coarsened at once (one after the other, one core waited).
            let (rows, columns) =
                take.count + rendering.count >= parameters.concurrentCoarsening
                ? Frames.coarsened(take, rendering, by: f)
                : (take.coarsened(by: f), rendering.coarsened(by: f))
            let band =
                path.map {
                    Self.band(
                        around: $0, scale: coarser / f, rows: rows.count, columns: columns.count,
                        radius: parameters.bandRadius)
                }
                ?? Array(repeating: 0..<columns.count, count: rows.count)
            path = warp(
                rows, columns, band: band, skipCost: skipCost.map { $0 * Float(rendering.count) / Float(columns.count) }
            )
            guard f > 1 else { break }
            coarser = f
            f = f % 4 == 0 ? f / 4 : f / 2
        }
        return path ?? []
    }

    /// The band a path drawn at `scale` times coarser covers, widened by `radius` frames.
    static func band(around path: [(row: Int32, column: Int32)], scale: Int, rows: Int, columns: Int, radius: Int)
        -> [Range<Int>]
    {
        var low = [Int32](repeating: .max, count: rows)
        var high = [Int32](repeating: .min, count: rows)
        for cell in path {
            let column = Int(cell.column) * scale
            for row in (Int(cell.row) * scale)..<min(Int(cell.row) * scale + scale, rows) {
                low[row] = min(low[row], Int32(column))
                high[row] = max(high[row], Int32(min(column + scale, columns)))
            }
        }
        // Rows the coarse path did not reach (the last, when the length is not a multiple of
        // the scale) take their neighbour's span.
        for row in 0..<rows where low[row] == .max {
            let other = row > 0 ? row - 1 : min(row + 1, rows - 1)
            low[row] = low[other] == .max ? 0 : low[other]
            high[row] = high[other] == .min ? Int32(columns) : high[other]
        }
        // Widen: each row covers its neighbours' spans within the radius, plus the radius.
        var widenedLow = [Int32](repeating: 0, count: rows)
        var widenedHigh = [Int32](repeating: 0, count: rows)
        for row in 0..<rows {
            let near = max(0, row - radius)...min(rows - 1, row + radius)
            widenedLow[row] = max(0, low[near.lowerBound] - Int32(radius))
            widenedHigh[row] = min(Int32(columns), high[near.upperBound] + Int32(radius))
        }
        // Monotone edges, so every row's band meets the next.
        for row in stride(from: rows - 2, through: 0, by: -1) {
            widenedLow[row] = min(widenedLow[row], widenedLow[row + 1])
        }
        for row in 1..<max(rows, 1) { widenedHigh[row] = max(widenedHigh[row], widenedHigh[row - 1]) }
        return (0..<rows).map { Int(widenedLow[$0])..<Int(max(widenedHigh[$0], widenedLow[$0] + 1)) }
    }

    /// The cheapest path within `band` (per row, the columns it may visit) from the first cell
    /// of the first row to the last cell of the last; with `skipCost`, from any cell of the first
    /// row to any of the last, at that cost per speech column left out.
    ///
    /// A large band is warped in two halves at once, on two threads: the costs from the start to
    /// each cell of the first half's rows, and from each cell of the second half's rows to the
    /// end; every path enters the second half's first row once, from the row before, so the
    /// cheapest entry joins the two into the cheapest path of all (the same path as one pass
    /// but where two paths cost the same).
    func warp(_ take: Frames, _ rendering: Frames, band: [Range<Int>], skipCost: Float? = nil) -> [(
        row: Int32, column: Int32
    )] {
        let rows = take.count
        let columns = rendering.count
        guard rows > 0, columns > 0 else { return [] }
        let lattice = Lattice(take: take, rendering: rendering, band: band, skipCost: skipCost, parameters: parameters)
        let cells = band.reduce(0) { $0 + $1.count }
        guard rows >= 4, cells >= parameters.splitCells else {
            let forward = Self.forward(lattice, rows: rows)
            // Back from the last cell (or the cheapest end).
            let lastSpan = band[rows - 1]
            var column = lastSpan.upperBound - 1
            if let skipCost {
                var best = Float.infinity
                for candidate in lastSpan {
                    let total =
                        forward.last[candidate + 1] + skipCost
                        * (lattice.speechBefore[columns] - lattice.speechBefore[candidate + 1])
                    if total < best {
                        best = total
                        column = candidate
                    }
                }
            }
            return Self.back(lattice, forward, from: (rows - 1, column))
        }
        let middle = rows / 2
        let (forward, backward) = bothAtOnce(
            { Self.forward(lattice, rows: middle) }, { Self.backward(lattice, from: middle) })
        // The cheapest way into the middle row: diagonally or from the column above.
        var best = Float.infinity
        var entry = (above: band[middle - 1].upperBound - 1, column: band[middle].lowerBound)
        for column in band[middle] {
            let rest = backward.first[column]
            guard rest < .infinity else { continue }
            let diagonal = forward.last[column]
            if diagonal + rest < best {
                best = diagonal + rest
                entry = (column - 1, column)
            }
            let above = forward.last[column + 1] + lattice.stepCost(middle, column)
            if above + rest < best {
                best = above + rest
                entry = (column, column)
            }
        }
        entry.above = min(max(entry.above, band[middle - 1].lowerBound), band[middle - 1].upperBound - 1)
        return Self.back(lattice, forward, from: (middle - 1, entry.above))
            + Self.ahead(lattice, backward, from: (middle, entry.column))
    }

    /// What a warp reads: both sides' frames, the band, and what leaving speech out costs.
    private struct Lattice: Sendable {
        let take: Frames, rendering: Frames, band: [Range<Int>], skipCost: Float?, parameters: Parameters
        /// Speech columns before each column, for the cost of leaving them out.
        let speechBefore: [Float]
        /// With `skipCost`, a path may also leave out whole phrases in the middle: from the last
        /// column of one join it jumps to the first of the next, within a row. Per column, where
        /// a jump to it comes from and where one from it goes (-1: none).
        let jumpFrom: [Int], jumpTo: [Int]
        let isFiller: [Bool]

        init(take: Frames, rendering: Frames, band: [Range<Int>], skipCost: Float?, parameters: Parameters) {
            self.take = take
            self.rendering = rendering
            self.band = band
            self.skipCost = skipCost
            self.parameters = parameters
            let columns = rendering.count
            var speechBefore = [Float](repeating: 0, count: columns + 1)
            for column in 0..<columns {
                speechBefore[column + 1] = speechBefore[column] + (rendering.quiet[column] ? 0 : 1)
            }
            self.speechBefore = speechBefore
            var jumpFrom = [Int](repeating: -1, count: columns)
            var jumpTo = [Int](repeating: -1, count: columns)
            if let filler = rendering.filler, skipCost != nil {
                var previousJoinEnd = -1
                for column in 0..<columns where filler[column] {
                    if column > 0 && !filler[column - 1] && previousJoinEnd >= 0 {
                        jumpFrom[column] = previousJoinEnd
                        jumpTo[previousJoinEnd] = column
                    }
                    if column + 1 == columns || !filler[column + 1] { previousJoinEnd = column }
                }
            }
            self.jumpFrom = jumpFrom
            self.jumpTo = jumpTo
            isFiller = rendering.filler ?? [Bool](repeating: false, count: columns)
        }

        /// Silence against silence: no cost, and no cost to step into.
        @inline(__always)
        func free(_ row: Int, _ column: Int) -> Bool { take.quiet[row] && rendering.quiet[column] }

        /// What a step that holds one side still costs into the cell (`row`, `column`).
        @inline(__always)
        func stepCost(_ row: Int, _ column: Int) -> Float { free(row, column) ? 0 : parameters.stepPenalty }

        /// The lattice's arrays as pointers, for the inner loops.
        struct Pointers {
            let takeFeatures: UnsafePointer<Float>, renderingFeatures: UnsafePointer<Float>
            let renderingQuiet: UnsafePointer<Bool>, isFiller: UnsafePointer<Bool>
            let speechBefore: UnsafePointer<Float>, jumpFrom: UnsafePointer<Int>, jumpTo: UnsafePointer<Int>
            let renderingOrder: UnsafePointer<Int32>?

            /// Where the rendering's frame `column` starts in its features.
            @inline(__always)
            func renderingOffset(_ column: Int) -> Int {
                (renderingOrder.map { Int($0[column]) } ?? column) &* FeatureMatrix.dimension
            }
        }

        /// `body` given the lattice's arrays as pointers (every array holds at least a frame).
        func withPointers<Result>(_ body: (Pointers) -> Result) -> Result {
            take.features.withUnsafeBufferPointer { takeFeatures in
                rendering.features.withUnsafeBufferPointer { renderingFeatures in
                    rendering.quiet.withUnsafeBufferPointer { renderingQuiet in
                        isFiller.withUnsafeBufferPointer { isFiller in
                            speechBefore.withUnsafeBufferPointer { speechBefore in
                                jumpFrom.withUnsafeBufferPointer { jumpFrom in
                                    jumpTo.withUnsafeBufferPointer { jumpTo in
                                        withOptionalPointer(rendering.order) { order in
                                            body(
                                                Pointers(
                                                    takeFeatures: takeFeatures.address,
                                                    renderingFeatures: renderingFeatures.address,
                                                    renderingQuiet: renderingQuiet.address,
                                                    isFiller: isFiller.address,
                                                    speechBefore: speechBefore.address,
                                                    jumpFrom: jumpFrom.address, jumpTo: jumpTo.address,
                                                    renderingOrder: order))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }

        private func withOptionalPointer<Result>(_ values: [Int32]?, _ body: (UnsafePointer<Int32>?) -> Result)
            -> Result
        {
            guard let values else { return body(nil) }
            return values.withUnsafeBufferPointer { body($0.baseAddress) }
        }

        /// The cells' offsets in a half's steps, for rows `rows`.
        func offsets(_ rows: Range<Int>) -> [Int] {
            var offsets = [Int](repeating: 0, count: rows.count + 1)
            for (index, row) in rows.enumerated() { offsets[index + 1] = offsets[index] + band[row].count }
            return offsets
        }
    }

    /// One half's steps, two bits a cell, four cells a byte, and its costs at the row where it
    /// meets the other half.
    private struct Half: Sendable {
        var steps: [UInt8]
        /// Where each row's cells start in `steps`, from the half's first row.
        var offsets: [Int]
        var firstRow: Int
        /// The forward half: the costs from the start to each cell of its last row, column c at
        /// c + 1. The backward half: the costs from each cell of its first row to the end, at c.
        var last: [Float] = [], first: [Float] = []

        /// Sets cell `cell`'s step (its bits are still zero).
        @inline(__always)
        static func store(_ step: UInt8, _ cell: Int, in steps: UnsafeMutableBufferPointer<UInt8>) {
            steps[cell >> 2] |= step << UInt8((cell & 3) << 1)
        }

        @inline(__always)
        func step(_ row: Int, _ column: Int, band: [Range<Int>]) -> UInt8 {
            let cell = offsets[row - firstRow] + column - band[row].lowerBound
            return (steps[cell >> 2] >> UInt8((cell & 3) << 1)) & 3
        }
    }

    /// What the cell of a take's frame (`vector`, silent or not) and the rendering's `column`
    /// costs: nothing for silence against silence (and no step penalty into it), a fixed cost
    /// for either against speech or for speech on a join, else their distance.
    @inline(__always)
    private static func cellCost(
        _ vector: UnsafeRawPointer, takeQuiet: Bool, column: Int, _ pointers: Lattice.Pointers,
        _ parameters: Parameters
    ) -> (cost: Float, free: Bool) {
        let quietColumn = pointers.renderingQuiet[column]
        if takeQuiet && quietColumn { return (0, true) }
        if quietColumn {
            return (pointers.isFiller[column] ? parameters.fillerCost : parameters.speechAgainstSilence, false)
        }
        if takeQuiet { return (parameters.silenceAgainstSpeech, false) }
        return (
            distance(vector, UnsafeRawPointer(pointers.renderingFeatures + pointers.renderingOffset(column))), false
        )
    }

    /// The cheapest costs from the start to each cell of the first `rows` rows, with each cell's
    /// step: 0 diagonal, 1 from the row before (take advanced), 2 from the column before, 3 a
    /// jump over phrases (from `jumpFrom`).
    private static func forward(_ lattice: Lattice, rows: Int) -> Half {
        let take = lattice.take
        let band = lattice.band
        let skipCost = lattice.skipCost
        let parameters = lattice.parameters
        let offsets = lattice.offsets(0..<rows)
        var steps = [UInt8](repeating: 0, count: offsets[rows] / 4 + 1)
        // The row before and this row's costs, by column; outside a row's band, infinity.
        var previous = [Float](repeating: .infinity, count: lattice.rendering.count + 1)
        var current = previous
        let penalty = parameters.stepPenalty
        lattice.withPointers { pointers in
            steps.withUnsafeMutableBufferPointer { steps in
                var previousBand = 0..<0
                for row in 0..<rows {
                    let span = band[row]
                    let takeQuiet = take.quiet[row]
                    let vector = UnsafeRawPointer(pointers.takeFeatures + take.offset(row))
                    let rowStart = offsets[row] - span.lowerBound
                    previous.withUnsafeMutableBufferPointer { previous in
                        current.withUnsafeMutableBufferPointer { current in
                            // Column c's cost sits at c + 1, so column -1 (infinity) needs no test.
                            let before = previous.address + 1
                            let here = current.address + 1
                            here[span.lowerBound - 1] = .infinity
                            for column in span {
                                let (cost, free) = cellCost(
                                    vector, takeQuiet: takeQuiet, column: column, pointers, parameters)
                                let stepCost: Float = free ? 0 : penalty
                                var best: Float
                                var step: UInt8 = 0
                                if row == 0 {
                                    if let skipCost {
                                        best = skipCost * pointers.speechBefore[column]
                                    } else {
                                        best = column == span.lowerBound ? 0 : here[column - 1] + stepCost
                                        step = column == span.lowerBound ? 0 : 2
                                    }
                                } else {
                                    // Outside the bands every cost is infinity: no step from there wins.
                                    best = before[column - 1]
                                    let up = before[column] + stepCost
                                    if up < best {
                                        best = up
                                        step = 1
                                    }
                                    let left = here[column - 1] + stepCost
                                    if left < best {
                                        best = left
                                        step = 2
                                    }
                                }
                                // (No jumps without a skip cost: the test comes first, the same for every cell.)
                                if let skipCost, case let origin = pointers.jumpFrom[column], origin >= 0,
                                    span.contains(origin)
                                {
                                    let jump =
                                        here[origin]
                                        + skipCost * (pointers.speechBefore[column] - pointers.speechBefore[origin + 1])
                                    if jump < best {
                                        best = jump
                                        step = 3
                                    }
                                }
                                here[column] = best + cost
                                Half.store(step, rowStart + column, in: steps)
                            }
                            // The row before's band is no longer read: back to infinity for reuse.
                            for column in previousBand { before[column] = .infinity }
                        }
                    }
                    swap(&previous, &current)
                    previousBand = span
                }
            }
        }
        return Half(steps: steps, offsets: offsets, firstRow: 0, last: previous)
    }

    /// The cheapest costs from each cell of the rows from `firstRow` on to the end, with each
    /// cell's step towards it: 0 diagonal (in the last row: the end), 1 to the row after, 2 to
    /// the column after, 3 a jump over phrases (to `jumpTo`). The mirror of ``forward(_:rows:)``:
    /// a cell's cost and a step's into it are the same, read the other way.
    private static func backward(_ lattice: Lattice, from firstRow: Int) -> Half {
        let take = lattice.take
        let band = lattice.band
        let skipCost = lattice.skipCost
        let parameters = lattice.parameters
        let rows = take.count
        let columns = lattice.rendering.count
        let offsets = lattice.offsets(firstRow..<rows)
        var steps = [UInt8](repeating: 0, count: offsets[rows - firstRow] / 4 + 1)
        // The row after and this row's costs, by column (column `columns`: infinity).
        var next = [Float](repeating: .infinity, count: columns + 1)
        var current = next
        let penalty = parameters.stepPenalty
        let last = rows - 1
        lattice.withPointers { pointers in
            steps.withUnsafeMutableBufferPointer { steps in
                var nextBand = 0..<0
                for row in stride(from: last, through: firstRow, by: -1) {
                    let span = band[row]
                    let takeQuiet = take.quiet[row]
                    let nextQuiet = row < last && take.quiet[row + 1]
                    let vector = UnsafeRawPointer(pointers.takeFeatures + take.offset(row))
                    let rowStart = offsets[row - firstRow] - span.lowerBound
                    next.withUnsafeMutableBufferPointer { after in
                        current.withUnsafeMutableBufferPointer { here in
                            here[span.upperBound] = .infinity
                            for column in span.reversed() {
                                let (cost, _) = cellCost(
                                    vector, takeQuiet: takeQuiet, column: column, pointers, parameters)
                                let quietColumn = pointers.renderingQuiet[column]
                                // A step into a cell costs that cell's penalty.
                                let rightCost: Float =
                                    column + 1 < columns && takeQuiet && pointers.renderingQuiet[column + 1]
                                    ? 0 : penalty
                                var best: Float
                                var step: UInt8 = 0
                                if row == last {
                                    if let skipCost {
                                        best =
                                            skipCost
                                            * (pointers.speechBefore[columns] - pointers.speechBefore[column + 1])
                                    } else {
                                        best = column == span.upperBound - 1 ? 0 : .infinity
                                    }
                                } else {
                                    best = after[column + 1]
                                    let down = after[column] + (nextQuiet && quietColumn ? 0 : penalty)
                                    if down < best {
                                        best = down
                                        step = 1
                                    }
                                }
                                let right = here[column + 1] + rightCost
                                if right < best {
                                    best = right
                                    step = 2
                                }
                                if let skipCost, case let target = pointers.jumpTo[column], target >= 0,
                                    span.contains(target)
                                {
                                    let jump =
                                        here[target]
                                        + skipCost * (pointers.speechBefore[target] - pointers.speechBefore[column + 1])
                                    if jump < best {
                                        best = jump
                                        step = 3
                                    }
                                }
                                here[column] = best + cost
                                Half.store(step, rowStart + column, in: steps)
                            }
                            // The row after's band is no longer read: back to infinity for reuse.
                            for column in nextBand { after[column] = .infinity }
                        }
                    }
                    swap(&next, &current)
                    nextBand = span
                }
            }
        }
        return Half(steps: steps, offsets: offsets, firstRow: firstRow, first: next)
    }

    /// The path from the start to the cell `end`, back along the forward half's steps.
    private static func back(_ lattice: Lattice, _ half: Half, from end: (row: Int, column: Int)) -> [(
        row: Int32, column: Int32
    )] {
        let band = lattice.band
        var path: [(row: Int32, column: Int32)] = []
        path.reserveCapacity(end.row * 2 + 2)
        var row = end.row
        var column = end.column
        while true {
            path.append((Int32(row), Int32(column)))
            let step = half.step(row, column, band: band)
            if row == 0 && step != 3 && (lattice.skipCost != nil || column == band[0].lowerBound) { break }
            switch row == 0 && step != 3 ? 2 : step {
            case 0:
                row -= 1
                column -= 1
            case 1: row -= 1
            case 3: column = lattice.jumpFrom[column]
            default: column -= 1
            }
            column = min(max(column, band[row].lowerBound), band[row].upperBound - 1)
        }
        path.reverse()
        return path
    }

    /// The path from the cell `start` to the end, ahead along the backward half's steps.
    private static func ahead(_ lattice: Lattice, _ half: Half, from start: (row: Int, column: Int)) -> [(
        row: Int32, column: Int32
    )] {
        let band = lattice.band
        let last = lattice.take.count - 1
        var path: [(row: Int32, column: Int32)] = []
        path.reserveCapacity((last - start.row) * 2 + 2)
        var row = start.row
        var column = start.column
        while true {
            path.append((Int32(row), Int32(column)))
            let step = half.step(row, column, band: band)
            if row == last && step == 0 { break }
            switch step {
            case 0:
                row += 1
                column += 1
            case 1: row += 1
            case 3: column = lattice.jumpTo[column]
            default: column += 1
            }
            // A step past the band (never taken at a finite cost) ends the path there.
            guard row <= last, column < band[row].upperBound else { break }
            column = max(column, band[row].lowerBound)
        }
        return path
    }
}
