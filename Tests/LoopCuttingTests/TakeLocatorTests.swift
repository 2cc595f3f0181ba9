import Testing

@testable import LoopCutting

/// Finding the stretch of a long text a take reads, on frames made for the test (no audio): a
/// rendering of many phrases, each a run of syllables (a spectrum held for a few frames), and a
/// take that reads some of them at its own pace, with noise, its own pauses and an intro the
/// text lacks.
@Suite struct TakeLocatorTests {
    private struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    private struct Made {
        var rendering: ContentAligner.Rendering
        var take: DynamicTimeWarping.Frames
    }

    /// `phrases` phrases rendered, and a take of `read` of them (after an intro of its own),
    /// each frame held `pace` times as long on average.
    private func make(seed: UInt64, phrases: Int, read: ClosedRange<Int>, pace: Double) -> Made {
        var random = Seeded(state: seed)
        let d = FeatureMatrix.dimension
        func syllable() -> [Float] { (0..<d).map { _ in Float.random(in: -1...1, using: &random) } }
        var texts: [[[Float]]] = []
        for _ in 0..<phrases { texts.append((0..<Int.random(in: 4...12, using: &random)).map { _ in syllable() }) }
        var features: [Float] = []
        var quiet: [Bool] = []
        var filler: [Bool] = []
        var spans: [Range<Int>] = []
        func silence(_ count: Int, into features: inout [Float], _ quiet: inout [Bool]) {
            for _ in 0..<count {
                features += [Float](repeating: 0, count: d)
                quiet.append(true)
            }
        }
        silence(4, into: &features, &quiet)
        filler += [Bool](repeating: true, count: 4)
        for text in texts {
            let start = quiet.count
            for value in text {
                for _ in 0..<12 {
                    features += value
                    quiet.append(false)
                    filler.append(false)
                }
            }
            spans.append(start..<quiet.count)
            silence(4, into: &features, &quiet)
            filler += [Bool](repeating: true, count: 4)
        }
        let rendering = ContentAligner.Rendering(
            frames: .init(features: features, quiet: quiet, filler: filler), phrases: spans)

        var takeFeatures: [Float] = []
        var takeQuiet: [Bool] = []
        silence(50, into: &takeFeatures, &takeQuiet)
        let intro = (0..<10).map { _ in syllable() }
        for value in intro {
            for _ in 0..<12 {
                takeFeatures += value.map { $0 + Float.random(in: -0.3...0.3, using: &random) }
                takeQuiet.append(false)
            }
        }
        for index in read {
            silence(Int.random(in: 0...40, using: &random), into: &takeFeatures, &takeQuiet)
            for value in texts[index] {
                for _ in 0..<Int((12 * pace * Double.random(in: 0.8...1.2, using: &random)).rounded()) {
                    takeFeatures += value.map { $0 + Float.random(in: -0.3...0.3, using: &random) }
                    takeQuiet.append(false)
                }
            }
        }
        silence(50, into: &takeFeatures, &takeQuiet)
        return Made(rendering: rendering, take: .init(features: takeFeatures, quiet: takeQuiet))
    }

    /// Every line read is in the stretch, and at most the line before it that is not: the take's
    /// intro, speech of a line's length, is matched to it (the alignment then leaves it out).
    @Test(arguments: [(UInt64(1), 60...79, 1.3), (2, 0...14, 0.8), (3, 185...199, 1.0), (4, 100...150, 1.15)])
    func aTakeOfSomeLinesIsFoundInTheWholeText(seed: UInt64, read: ClosedRange<Int>, pace: Double) throws {
        let made = make(seed: seed, phrases: 200, read: read, pace: pace)
        let found = try #require(TakeLocator().stretch(of: made.take, in: made.rendering))
        #expect(found.upperBound == read.upperBound)
        #expect((max(0, read.lowerBound - 1)...read.lowerBound).contains(found.lowerBound))
    }

    @Test func aCoarserLatticeStillFindsTheStretch() throws {
        // Fewer cells: both sides coarsened more, the path's ends less exact.
        var locator = TakeLocator()
        locator.parameters.cells = 20_000
        let made = make(seed: 5, phrases: 200, read: 150...169, pace: 1)
        let found = try #require(locator.stretch(of: made.take, in: made.rendering))
        #expect(
            found.contains(152) && found.contains(167) && (146...173).contains(found.lowerBound)
                && (146...173).contains(found.upperBound))
    }
}
