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
        var count: Int { quiet.count }

        /// Blocks of `factor` frames averaged; a block is quiet when most of it is.
        func coarsened(by factor: Int) -> Frames {
            guard factor > 1 else { return self }
            let d = FeatureMatrix.dimension
            let blocks = (count + factor - 1) / factor
            var averaged = [Float](repeating: 0, count: blocks * d)
            var quietBlocks = [Bool](repeating: false, count: blocks)
            features.withUnsafeBufferPointer { source in
                averaged.withUnsafeMutableBufferPointer { target in
                    for block in 0..<blocks {
                        let first = block * factor, last = min(first + factor, count)
                        var quietCount = 0
                        for frame in first..<last {
                            if quiet[frame] { quietCount += 1 }
                            for k in 0..<d { target[block * d + k] += source[frame * d + k] }
                        }
                        let scale = 1 / Float(last - first)
                        for k in 0..<d { target[block * d + k] *= scale }
                        quietBlocks[block] = quietCount * 2 > last - first
                    }
                }
            }
            return Frames(features: averaged, quiet: quietBlocks)
        }
    }

    struct Parameters {
        /// The coarsest level's matrix holds at most this many cells.
        var coarseCells = 3_000_000
        /// At each finer level the band reaches this many frames beyond the coarser path.
        var bandRadius = 12
        /// Take speech against rendering silence, or the reverse: a fixed cost per frame, in units of
        /// the mean distance between unrelated speech frames of the two recordings.
        var speechAgainstSilence: Float = 1.1
        var silenceAgainstSpeech: Float = 0.7
        /// A step that holds one side still costs this much more than a diagonal one (speech only).
        var stepPenalty: Float = 0.05
    }

    var parameters = Parameters()

    /// The path from the take's first to last frame (`take` rows, `rendering` columns), each
    /// element a (row, column) pair, from the first to the last column of the rendering; or,
    /// with `skipCost`, from any column to any later one, each speech frame of the rendering
    /// left out before or after costing that much (a take that reads only some of the text).
    func align(take: Frames, rendering: Frames, skipCost: Float? = nil) -> [(row: Int32, column: Int32)] {
        var factor = 1
        while (take.count / factor) * (rendering.count / factor) > parameters.coarseCells, factor < 1 << 12 { factor *= 2 }
        // Each level is made from the frames when it is needed and let go after: the memory of
        // one coarser copy at a time, not of all of them.
        var path: [(row: Int32, column: Int32)]?
        var f = factor
        while f >= 1 {
            defer { f /= 2 }
            let rows = take.coarsened(by: f), columns = rendering.coarsened(by: f)
            let band = path.map { Self.band(around: $0, rows: rows.count, columns: columns.count, radius: parameters.bandRadius) }
                ?? Array(repeating: 0..<columns.count, count: rows.count)
            path = warp(rows, columns, band: band, skipCost: skipCost.map { $0 * Float(rendering.count) / Float(columns.count) })
        }
        return path ?? []
    }

    /// The band a path drawn at half this resolution covers, widened by `radius` frames.
    static func band(around path: [(row: Int32, column: Int32)], rows: Int, columns: Int, radius: Int) -> [Range<Int>] {
        var low = [Int](repeating: Int.max, count: rows), high = [Int](repeating: Int.min, count: rows)
        for cell in path {
            for row in (Int(cell.row) * 2)..<min(Int(cell.row) * 2 + 2, rows) {
                low[row] = min(low[row], Int(cell.column) * 2)
                high[row] = max(high[row], min(Int(cell.column) * 2 + 2, columns))
            }
        }
        // Rows the coarse path did not reach (an odd last row) take their neighbour's span.
        for row in 0..<rows where low[row] == Int.max {
            let other = row > 0 ? row - 1 : min(row + 1, rows - 1)
            low[row] = low[other] == Int.max ? 0 : low[other]
            high[row] = high[other] == Int.min ? columns : high[other]
        }
        // Widen: each row covers its neighbours' spans within the radius, plus the radius.
        var widenedLow = [Int](repeating: 0, count: rows), widenedHigh = [Int](repeating: 0, count: rows)
        for row in 0..<rows {
            let near = max(0, row - radius)...min(rows - 1, row + radius)
            widenedLow[row] = max(0, low[near.lowerBound] - radius)
            widenedHigh[row] = min(columns, high[near.upperBound] + radius)
        }
        // Monotone edges, so every row's band meets the next.
        for row in stride(from: rows - 2, through: 0, by: -1) { widenedLow[row] = min(widenedLow[row], widenedLow[row + 1]) }
        for row in 1..<max(rows, 1) { widenedHigh[row] = max(widenedHigh[row], widenedHigh[row - 1]) }
        return (0..<rows).map { widenedLow[$0]..<max(widenedHigh[$0], widenedLow[$0] + 1) }
    }

    /// The cheapest path within `band` (per row, the columns it may visit) from the first cell
    /// of the first row to the last cell of the last; with `skipCost`, from any cell of the first
    /// row to any of the last, at that cost per speech column left out.
    func warp(_ take: Frames, _ rendering: Frames, band: [Range<Int>], skipCost: Float? = nil) -> [(row: Int32, column: Int32)] {
        let rows = take.count
        guard rows > 0, rendering.count > 0 else { return [] }
        // Speech columns before each column, for the cost of leaving them out.
        var speechBefore = [Float](repeating: 0, count: rendering.count + 1)
        for column in 0..<rendering.count { speechBefore[column + 1] = speechBefore[column] + (rendering.quiet[column] ? 0 : 1) }
        let d = FeatureMatrix.dimension
        var offsets = [Int](repeating: 0, count: rows + 1)
        for row in 0..<rows { offsets[row + 1] = offsets[row] + band[row].count }
        // 0: diagonal, 1: from the row before (take advanced), 2: from the column before.
        var steps = [UInt8](repeating: 0, count: offsets[rows])
        var previous = [Float](), current = [Float]()
        let speechAgainstSilence = parameters.speechAgainstSilence, silenceAgainstSpeech = parameters.silenceAgainstSpeech
        let penalty = parameters.stepPenalty
        take.features.withUnsafeBufferPointer { takeFeatures in
        rendering.features.withUnsafeBufferPointer { renderingFeatures in
        steps.withUnsafeMutableBufferPointer { steps in
            var previousBand = 0..<0
            for row in 0..<rows {
                let span = band[row]
                current.removeAll(keepingCapacity: true)
                current.append(contentsOf: repeatElement(Float.infinity, count: span.count))
                let takeQuiet = take.quiet[row]
                let t = row * d
                for column in span {
                    let renderingQuiet = rendering.quiet[column]
                    var cost: Float
                    if takeQuiet && renderingQuiet {
                        cost = 0
                    } else if renderingQuiet {
                        cost = speechAgainstSilence
                    } else if takeQuiet {
                        cost = silenceAgainstSpeech
                    } else {
                        var sum: Float = 0
                        let r = column * d
                        for k in 0..<d {
                            let difference = takeFeatures[t + k] - renderingFeatures[r + k]
                            sum += difference * difference
                        }
                        cost = sum.squareRoot()
                    }
                    let free = takeQuiet && renderingQuiet
                    var best: Float = .infinity
                    if row == 0 {
                        if let skipCost { best = skipCost * speechBefore[column] } else if column == span.lowerBound { best = 0 }
                    }
                    var step: UInt8 = 0
                    if row > 0 {
                        if previousBand.contains(column - 1) { best = previous[column - 1 - previousBand.lowerBound] }
                        if previousBand.contains(column) {
                            let up = previous[column - previousBand.lowerBound] + (free ? 0 : penalty)
                            if up < best { best = up; step = 1 }
                        }
                    }
                    if column > span.lowerBound && !(row == 0 && skipCost != nil) {
                        let left = current[column - 1 - span.lowerBound] + (free ? 0 : penalty)
                        if left < best { best = left; step = 2 }
                    }
                    current[column - span.lowerBound] = best + cost
                    steps[offsets[row] + column - span.lowerBound] = step
                }
                swap(&previous, &current)
                previousBand = span
            }
        }
        }
        }
        // Back from the last cell (or the cheapest end).
        let lastSpan = band[rows - 1]
        var column = lastSpan.upperBound - 1
        if let skipCost {
            var best = Float.infinity
            for (index, value) in previous.enumerated() {
                let total = value + skipCost * (speechBefore[rendering.count] - speechBefore[lastSpan.lowerBound + index + 1])
                if total < best { best = total; column = lastSpan.lowerBound + index }
            }
        }
        var path: [(row: Int32, column: Int32)] = []
        path.reserveCapacity(rows * 2)
        var row = rows - 1
        while true {
            path.append((Int32(row), Int32(column)))
            let step = steps[offsets[row] + column - band[row].lowerBound]
            if row == 0 && (skipCost != nil || column == band[0].lowerBound) { break }
            switch row == 0 ? 2 : step {
            case 0: row -= 1; column -= 1
            case 1: row -= 1
            default: column -= 1
            }
            column = min(max(column, band[row].lowerBound), band[row].upperBound - 1)
        }
        path.reverse()
        return path
    }
}
