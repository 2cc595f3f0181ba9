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
        // A 10 s take: up to 200 times its length and a minute (2,060 s: 1,030 such lines), as
        // long as a stretch the locator can find in its text.
        #expect(TextFit.refusal(Array(repeating: line, count: 1_030), takeSeconds: 10) == nil)
        let refusal = TextFit.refusal(Array(repeating: line, count: 1_031), takeSeconds: 10)
        #expect(
            refusal
                == "the text is far longer than the take: its 1031 phrases take at least 34 min 22 s to read aloud, the take 10.0 s"
        )
    }
}
