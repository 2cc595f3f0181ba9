import Foundation
import LoopAudioFiles
import LoopCutting
import LoopSpeech
import LoopTestSupport
import Testing

/// A take read with no pause between its phrases, and the true joins in seconds.
private func continuousTake(_ phrases: [String], voice: String = "en-us+m3") throws -> (path: String, joins: [Double]) {
    let take = try SpokenTake.continuous(phrases, voice: voice)
    return (take.path, take.phrases.dropFirst().map(\.lowerBound))
}

private let story = [
    "We ordered soup, bread and a large salad for the table.",
    "The flight was delayed, so we missed our connection in Madrid.",
    "For breakfast, I usually have toast with butter and jam.",
    "If the shop is closed, we can buy milk at the petrol station.",
    "Our neighbours invited us for coffee on Sunday afternoon.",
    "My sister works as a nurse, so she often sleeps during the day.",
]

private let otherStory = [
    "The museum opens at ten and closes early on Mondays.",
    "He forgot his umbrella on the train again this morning.",
    "Could you tell me where the nearest pharmacy is, please?",
    "They painted the kitchen yellow last summer.",
]

struct TakeCutterTests {
    let cutter = TakeCutter()

    @Test func aTakeReadWithoutPausesIsCutWhereEachPhraseEnds() throws {
        let take = try continuousTake(story)
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.method == .text(SpeechLanguage(code: "en", voice: "en", origin: .loop)))
        #expect(segmentation.segments.count == story.count)
        for (cut, join) in zip(segmentation.cuts, take.joins) {
            #expect(abs(segmentation.seconds(cut.frame) - join) < 0.1, "cut at \(segmentation.seconds(cut.frame)) s, phrase ends at \(join) s")
        }
    }

    @Test func aTakeOfTheFirstPhrasesIsCutIntoThoseAlone() throws {
        let take = try continuousTake(Array(story.prefix(3)))
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == 0..<3)
        #expect(segmentation.segments.count == 3)
        for (cut, join) in zip(segmentation.cuts, take.joins) {
            #expect(abs(segmentation.seconds(cut.frame) - join) < 0.1)
        }
    }

    @Test func aTakeThatStartsMidTextIsFoundThere() throws {
        let take = try continuousTake(Array(story.suffix(3)))
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == 3..<6)
    }

    /// The aligner refuses a take that does not read `text`. A known gap, intermittent (it
    /// depends on what espeak-ng rendered before): when such a take happens to hold as many clear
    /// pauses as the text has joins, the fallback for takes read with pauses cuts it there
    /// instead (noted on issue 29). The aligner itself must never accept it.
    func expectRefused(_ take: String, _ text: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let cut = try cutter.cut(path: take, hint: .text(text, language: "en"))
            #expect(cut.method == .pauses, "the aligner accepted a take of another text", sourceLocation: sourceLocation)
            withKnownIssue("another text cut at its pauses by the fallback for takes read with pauses", isIntermittent: true) {
                Issue.record("cut at its \(cut.cuts.count) pauses instead of refused", sourceLocation: sourceLocation)
            }
        } catch let error as SegmentationError {
            #expect(error.kind == .textMismatch, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aTakeOfAnotherTextIsRefused() throws {
        expectRefused(try continuousTake(otherStory).path, story)
    }

    @Test func aTakeInAnotherLanguageIsRefused() throws {
        let spanish = ["Mañana vamos a la playa con mis primos.", "El tren sale a las ocho de la noche.", "Me gusta mucho el café con leche.",
                       "Mi abuela vive en un pueblo pequeño.", "Los niños juegan en el parque todos los días.", "Hace mucho calor en verano."]
        expectRefused(try continuousTake(spanish, voice: "es").path, story)
    }

    @Test func theLanguageIsGuessedFromTheScriptWhenNoneIsGiven() {
        #expect(SpeechLanguage.guess(["Благодарим за звонок."]) == "ru")
        #expect(SpeechLanguage.guess(["今天天气很好。"]) == "cmn")
        #expect(SpeechLanguage.guess(["きょうはいいてんきです。"]) == "ja")
        #expect(SpeechLanguage.guess(["Le chat est sur la table et il dort."]) == "fr")
        #expect(SpeechLanguage.resolve(given: nil, loop: nil, text: ["今天天气很好。"])?.voice == "cmn-latn-pinyin")
    }

    @Test func japaneseKanjiAreGivenReadingsTheSynthesizerCanSpeak() throws {
        let reading = try JapaneseReadings.shared.reading("今日は良い天気です。")
        #expect(!reading.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) })
        #expect(reading.contains("テンキ"))
    }
}
