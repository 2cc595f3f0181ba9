import Foundation
import LoopFoundation

/// Where in a long text a take reads: a chapter's audio in its whole book, a few lines near a
/// text's end. The take is warped, coarse, against the whole rendering with its start and end
/// free (subsequence dynamic time warping: every hop of the take on the path, the rendering
/// entered and left anywhere), and the path's first and last columns are the stretch the take
/// reads. Only that stretch, with a margin, is then aligned as a text of its own: the rest of
/// the text is absent.
///
/// Memory is two rows of the lattice (the rendering's columns, coarse); time is the lattice's
/// cells, which the coarsening bounds (``Parameters/cells``): the same for any text once it is
/// rendered.
struct TakeLocator {
    struct Parameters {
        /// The coarse lattice holds at most this many cells: a 12-minute take against an hour's
        /// rendering at 80 ms a frame, about a second on one core.
        var cells = 250_000_000
        /// Frames are never finer than this many hops (10 ms each): a syllable's spectrum,
        /// which tells a stretch of text from another as well as finer frames do, at an eighth
        /// of the cost.
        var leastFactor = 8
        /// A step that holds one side still costs this share of the distance between unrelated
        /// speech frames more than a diagonal one (speech only, as in ``DynamicTimeWarping``).
        var stepPenalty: Float = 0.05
        /// Take speech against rendering silence, and the reverse, in units of the distance
        /// between unrelated speech frames (``DynamicTimeWarping/Parameters``'s figures).
        var speechAgainstSilence: Float = 1.1
        var silenceAgainstSpeech: Float = 0.7
    }

    var parameters = Parameters()

    /// The phrases of `rendering` the take reads: those most of whose frames lie between the
    /// columns its path enters and leaves (the path's ends are coarse, and speech the text does
    /// not hold, an intro, takes a little of the lines beside it); nil when none does.
    func stretch(of take: DynamicTimeWarping.Frames, in rendering: ContentAligner.Rendering) -> ClosedRange<Int>? {
        let columns = locate(take: take, rendering: rendering.frames)
        let span = columns.lowerBound..<(columns.upperBound + 1)
        let inside = rendering.phrases.indices.filter {
            let phrase = rendering.phrases[$0]
            return !phrase.isEmpty && 2 * phrase.clamped(to: span).count >= phrase.count
        }
        guard let first = inside.first, let last = inside.last else { return nil }
        return first...last
    }

    /// The columns of `rendering` the take's path enters and leaves: the stretch it reads.
    func locate(take: DynamicTimeWarping.Frames, rendering: DynamicTimeWarping.Frames) -> ClosedRange<Int> {
        guard take.count > 0, rendering.count > 0 else { return 0...max(0, rendering.count - 1) }
        var factor = parameters.leastFactor
        while (take.count / factor) * (rendering.count / factor) > parameters.cells, factor < 1 << 12 { factor *= 2 }
        let (rows, columns) = DynamicTimeWarping.Frames.coarsened(take, rendering, by: factor)
        let unit = Self.unrelatedDistance(rows, columns)
        let (first, last) = warp(rows, columns, unit: unit)
        return (first * factor)...min(rendering.count - 1, (last + 1) * factor - 1)
    }

    /// The first and last columns of the cheapest path that holds every row.
    private func warp(_ take: DynamicTimeWarping.Frames, _ rendering: DynamicTimeWarping.Frames, unit: Float)
        -> (first: Int, last: Int)
    {
        let n = take.count
        let m = rendering.count
        let d = FeatureMatrix.dimension
        let step = parameters.stepPenalty * unit
        let speechOnSilence = parameters.speechAgainstSilence * unit
        let silenceOnSpeech = parameters.silenceAgainstSpeech * unit
        var previous = [Float](repeating: 0, count: m)
        var current = [Float](repeating: 0, count: m)
        var previousStart = [Int32](repeating: 0, count: m)
        var currentStart = [Int32](repeating: 0, count: m)
        // Coarse frames are stored in order, a frame after another.
        rendering.features.withUnsafeBufferPointer { columns in
            take.features.withUnsafeBufferPointer { rows in
                let columnBase = UnsafeRawPointer(columns.address)
                let rowBase = UnsafeRawPointer(rows.address)
                for i in 0..<n {
                    let row = rowBase + i * d * 4
                    let rowQuiet = take.quiet[i]
                    for j in 0..<m {
                        let columnQuiet = rendering.quiet[j]
                        let cost: Float
                        switch (rowQuiet, columnQuiet) {
                        case (true, true): cost = 0
                        case (false, true): cost = speechOnSilence
                        case (true, false): cost = silenceOnSpeech
                        case (false, false): cost = DynamicTimeWarping.distance(row, columnBase + j * d * 4)
                        }
                        let penalty = rowQuiet && columnQuiet ? 0 : step
                        if i == 0 {
                            // The path may enter the rendering anywhere.
                            current[j] = cost
                            currentStart[j] = Int32(j)
                            continue
                        }
                        var best = previous[j] + penalty // the take moves on, the rendering holds
                        var start = previousStart[j]
                        if j > 0 {
                            if previous[j - 1] <= best {
                                best = previous[j - 1]
                                start = previousStart[j - 1]
                            }
                            if current[j - 1] + penalty < best {
                                best = current[j - 1] + penalty
                                start = currentStart[j - 1]
                            }
                        }
                        current[j] = best + cost
                        currentStart[j] = start
                    }
                    swap(&previous, &current)
                    swap(&previousStart, &currentStart)
                }
            }
        }
        // The path may leave the rendering anywhere.
        var end = 0
        for j in 1..<m where previous[j] < previous[end] { end = j }
        return (Int(previousStart[end]), end)
    }

    /// The mean distance between the two sides' speech frames, paired without regard to what
    /// is said: what a take of another text would cost a frame.
    static func unrelatedDistance(_ take: DynamicTimeWarping.Frames, _ rendering: DynamicTimeWarping.Frames) -> Float {
        let takeSpeech = (0..<take.count).filter { !take.quiet[$0] }
        let renderingSpeech = (0..<rendering.count).filter { !rendering.quiet[$0] }
        guard !takeSpeech.isEmpty, !renderingSpeech.isEmpty else { return 1 }
        var generator = SplitMix64(seed: 0x10CA7E)
        var sum: Float = 0
        let samples = 4_000
        take.features.withUnsafeBufferPointer { rows in
            rendering.features.withUnsafeBufferPointer { columns in
                for _ in 0..<samples {
                    let row = takeSpeech[Int(generator.next() % UInt64(takeSpeech.count))]
                    let column = renderingSpeech[Int(generator.next() % UInt64(renderingSpeech.count))]
                    sum += DynamicTimeWarping.distance(
                        UnsafeRawPointer(rows.address) + take.offset(row) * 4,
                        UnsafeRawPointer(columns.address) + rendering.offset(column) * 4)
                }
            }
        }
        return max(sum / Float(samples), .leastNormalMagnitude)
    }
}
