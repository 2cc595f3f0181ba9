import Testing

@testable import LoopCutting

struct PhraseLengthModelTests {
    let model = PhraseLengthModel()

    @Test func longerTextWeighsMore() {
        #expect(model.weight(of: "Je cherche un petit hôtel près de la rivière.") > 3 * model.weight(of: "Bon."))
        #expect(model.weight(of: "你叫什么名字？") > model.weight(of: "对。"))
        #expect(model.weight(of: "Доброе утро, как дела?") > model.weight(of: "Да."))
    }

    @Test func countsVowelGroupsAsSyllables() {
        #expect(model.weight(of: "banana") == 3)
        #expect(model.weight(of: "Crème brûlée") == 4)
    }

    @Test func countsKanaAsMoraeShorterThanSyllables() {
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }
        #expect(close(model.weight(of: "こんにちは"), 5 * PhraseLengthModel.moraWeight))
        // A voiced kana is one mora, though decomposition splits off its mark; so is "kya"
        // with its small ya; the small tsu of a doubled consonant is a mora of its own.
        #expect(close(model.weight(of: "ばんごはん"), model.weight(of: "はんこはん")))
        #expect(close(model.weight(of: "きゃく"), model.weight(of: "かく")))
        #expect(close(model.weight(of: "ガッコウ"), 4 * PhraseLengthModel.moraWeight))
        // 7 to 8 morae a second against 5 to 6 syllables: ten morae say faster than ten syllables.
        #expect(model.weight(of: "わたしはがくせいです") < model.weight(of: "ta ta ta ta ta ta ta ta ta ta"))
    }
}
