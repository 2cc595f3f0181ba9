import LoopSpeech
import Testing

@testable import LoopCutting

/// Which phrases spotted among a take's pauses are taken for its text.
struct PhraseSpotterTests {
    /// Spots of `phrases` (nil: placed by its order) in consecutive stretches, each told apart
    /// by `score` standard deviations.
    private func spotting(_ phrases: [Int?], stretches: [Int]? = nil, score: Double = 3) -> PhraseSpotter.Spotting {
        var previous = 0
        let spots = phrases.enumerated().map { index, phrase -> PhraseSpotter.Spot in
            let stretch = stretches?[index] ?? index
            defer { previous = phrase ?? previous + 1 }
            return .init(
                phrase: phrase ?? previous + 1, rows: (stretch * 100)...(stretch * 100 + 80),
                stretches: stretch...stretch, identification: phrase == nil ? nil : score)
        }
        return .init(spots: spots, stretches: [], partings: [], lengthSpread: 0.05)
    }

    @Test func phrasesReadOneAfterAnotherAreTheText() {
        let cutter = TakeCutter(synthesizer: .shared)
        #expect(cutter.accepts(spotting([0, 1, 2])))
        #expect(cutter.accepts(spotting([2, 3, nil, 5])), "a short line placed by its order between two")
        #expect(cutter.accepts(spotting([0, 1, 3, 4])), "a line skipped")
        #expect(cutter.accepts(spotting([0, 1, 2, 3], stretches: [0, 1, 3, 4])), "a sentence added")
    }

    /// Phrases told apart by chance in another text's take lie scattered: in the text, in
    /// the take, or both.
    @Test func phrasesFoundOutOfOrderAreNotTakenForTheText() {
        let cutter = TakeCutter(synthesizer: .shared)
        #expect(!cutter.accepts(spotting([0, 2, 4])))
        #expect(!cutter.accepts(spotting([1, 2, 3], stretches: [0, 2, 5])))
        #expect(!cutter.accepts(spotting([0, 2, 3, 5])), "two breaks for four phrases")
    }

    @Test func twoPhrasesOrPhrasesToldApartLooselyAreNotEnough() {
        let cutter = TakeCutter(synthesizer: .shared)
        #expect(!cutter.accepts(spotting([0, 1])))
        #expect(!cutter.accepts(spotting([0, 1, 2], score: 1.8)), "told apart by 1.8 on average")
        #expect(!cutter.accepts(spotting([0, 1, 2], score: 2.4)), "three told apart by 2.4: too little in all")
        #expect(cutter.accepts(spotting([0, 1, 2, 3, 4], score: 2.4)), "five told apart by 2.4")
    }

    /// Stretches of 100 hops each, 20 hops apart; a phrase rendered in 100 hops; read at the
    /// synthesizer's rate.
    private func layout() -> PhraseSpotter.Layout {
        let stretches = (0..<8).map { ($0 * 120)...($0 * 120 + 99) }
        return PhraseSpotter.Layout(
            stretches: stretches, rendered: [100, 100, 100, 60, 100, 100], rate: 1, runs: [], scores: [],
            speechOf: { rows in stretches.filter { rows.contains($0.lowerBound) }.map(\.count).reduce(0, +) },
            parameters: .init())
    }

    /// Phrases passed over between two found are placed where the stretches between are as
    /// many and as long as they are; not where they are not, nor at the take's ends by length
    /// alone (an intro or an outro may be there).
    @Test func phrasesPassedOverArePlacedByTheirOrderAndLength() {
        let layout = layout()
        let placed = layout.placed(2..<4, 1..<3, atEnd: false)
        #expect(placed.map(\.phrase) == [1, 2] && placed.map(\.stretches) == [2...2, 3...3])
        #expect(placed.allSatisfy { $0.identification == nil })
        #expect(layout.placed(2..<3, 3..<4, atEnd: false).isEmpty, "60 hops of phrase in 100 of speech")
        #expect(layout.placed(2..<5, 1..<2, atEnd: false).isEmpty, "three stretches, 300 hops, for one phrase")
        #expect(layout.placed(0..<2, 0..<2, atEnd: true).isEmpty, "at the start, by length alone")
    }
}
