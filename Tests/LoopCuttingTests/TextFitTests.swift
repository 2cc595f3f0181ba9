import Testing

@testable import LoopCutting

struct TextFitTests {
    @Test func theShortestReadingCountsLettersAndSyllables() {
        // 20 letters a second; kana, hangul and ideographs 10 a second; digits as syllables.
        #expect(abs(TextFit.shortestReading(["Hello, world!"]) - 0.5) < 1e-9)
        #expect(abs(TextFit.shortestReading(["東京へ行きます。"]) - 0.7) < 1e-9)
        #expect(abs(TextFit.shortestReading(["안녕하세요", "2026"]) - 0.9) < 1e-9)
    }

    @Test func aTextIsRefusedOnlyWhenFarLongerThanItsTake() {
        let line = String(repeating: "a", count: 40) // 2 s at the fastest
        // A 10 s take: up to 10 times its length and a minute (160 s: 80 such lines).
        #expect(TextFit.refusal(Array(repeating: line, count: 80), takeSeconds: 10) == nil)
        let refusal = TextFit.refusal(Array(repeating: line, count: 81), takeSeconds: 10)
        #expect(
            refusal
                == "the text is far longer than the take: its 81 phrases take at least 2 min 42 s to read aloud, the take 10.0 s"
        )
    }
}
