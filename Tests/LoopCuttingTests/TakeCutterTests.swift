import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
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

/// Six sentences that share no line with `story`.
private let unrelatedStory =
    otherStory + [
        "The children played in the garden until it was dark.",
        "I would like a return ticket to the coast, please.",
    ]

struct TakeCutterTests {
    let cutter = TakeCutter(synthesizer: .shared)

    /// Only a language espeak-ng lists reaches it: a path into its data folder is no voice.
    @Test func theSynthesizerTakesOnlyTheVoicesItLists() throws {
        let synthesizer = SpeechSynthesizer.shared
        for voice in [
            "../../../../etc/passwd", "../../../../dev/zero", "/tmp", "fr+" + String(repeating: "a", count: 60),
        ] {
            #expect(!synthesizer.hasVoice(voice), "\(voice)")
            #expect(throws: SpeechError.self, "\(voice)") { try synthesizer.render(["Bonjour."], voice: voice) }
        }
        #expect(
            synthesizer.hasVoice("fr") && synthesizer.hasVoice("cmn-latn-pinyin") && synthesizer.hasVoice("en-us+m3"))
        #expect(!synthesizer.hasVoice("fr+../../../etc/passwd") && !synthesizer.hasVoice("fr+m3+x/y"))
        #expect(try synthesizer.render(["Bonjour."], voice: "fr")[0].samples.count > 1_000)
    }

    @Test func aTakeReadWithoutPausesIsCutWhereEachPhraseEnds() throws {
        let take = try continuousTake(story)
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.method == .text(SpeechLanguage(code: "en", voice: "en", origin: .loop)))
        #expect(segmentation.segments.count == story.count)
        for (cut, join) in zip(segmentation.cuts, take.joins) {
            #expect(
                abs(segmentation.seconds(cut.frame) - join) < 0.1,
                "cut at \(segmentation.seconds(cut.frame)) s, phrase ends at \(join) s")
        }
    }

    @Test func aTakeOfTheFirstPhrasesIsCutIntoThoseAlone() throws {
        let take = try continuousTake(Array(story.prefix(3)))
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == [0, 1, 2])
        #expect(segmentation.segments.count == 3)
        for (cut, join) in zip(segmentation.cuts, take.joins) {
            #expect(abs(segmentation.seconds(cut.frame) - join) < 0.1)
        }
    }

    /// A text far longer than its take is refused before it is rendered: a take may read a part
    /// of its text, not a sliver of it (20,000 lines against a 10 s take used to run 50 s at
    /// 1.3 GB; a long text of other words was cut into slivers).
    @Test func aTextFarLongerThanTheTakeIsRefusedBeforeItIsRendered() throws {
        let take = try continuousTake(Array(story.prefix(2)))
        let long = (0..<2_000).map { story[$0 % story.count] + " (\($0))" }
        #expect {
            _ = try cutter.cut(path: take.path, hint: .text(long, language: "en"))
        } throws: { error in
            guard let error = error as? SegmentationError else { return false }
            return error.kind == .textLongerThanTake && error.message.contains("its 2000 phrases take at least")
        }
        // The take's own text, and a text with a few lines more than it reads, are cut.
        #expect(try cutter.cut(path: take.path, hint: .text(story, language: "en")).phrases == [0, 1])
    }

    /// A header's length is the file's word only. A FLAC that announces no length is judged by
    /// the length read: a text far longer than that is refused as such, its rendering stopped,
    /// not rendered whole and aligned. One that announces ten hours and holds seconds is
    /// refused as truncated.
    @Test func aTextFarLongerThanWhatTheTakeHoldsIsRefusedWhateverItsHeaderSays() throws {
        let speech = try SpeechSynthesizer.shared.render([story[0] + " " + story[1]], voice: "en")[0]
        let long = (0..<2_000).map { story[$0 % story.count] + " (\($0))" }
        for (name, announced) in [("no-length", 0), ("ten-hours", 10 * 3_600 * speech.sampleRate)] {
            let path = Scratch.path("announces-\(name)", extension: "flac")
            var writer = try AudioFileWriter(path: path, format: .flac, sampleRate: speech.sampleRate, channelCount: 1)
            try writer.write(speech.samples)
            try writer.commit()
            try LyingFLAC.rewrite(path, frames: UInt64(announced))
            do {
                _ = try cutter.cut(path: path, hint: .text(long, language: "en"))
                Issue.record("\(name): cut")
            } catch let error as SegmentationError {
                #expect(announced == 0 && error.kind == .textLongerThanTake, "\(name): \(error.message)")
            } catch let error as AudioError {
                #expect(announced > 0 && error.kind == .truncated, "\(name): \(error.message)")
            }
        }
    }

    @Test func aTakeThatStartsMidTextIsFoundThere() throws {
        let take = try continuousTake(Array(story.suffix(3)))
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == [3, 4, 5])
    }

    /// The clips of `segmentation` against the true spans of the take's phrases: each clip holds
    /// its phrase (its edges within `slack` of the phrase's) and none reaches more than 100 ms
    /// (a clip's padding, where the speech runs on) into `outside`, the speech the text does not hold.
    private func expectClips(
        _ segmentation: Segmentation, hold spans: [Range<Double>], clear outside: [Range<Double>],
        slack: Double = 0.15, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(segmentation.segments.count == spans.count, sourceLocation: sourceLocation)
        for (segment, span) in zip(segmentation.segments, spans) {
            let clip = segmentation.seconds(segment.startFrame)..<segmentation.seconds(segment.endFrame)
            #expect(
                abs(clip.lowerBound - span.lowerBound) < slack && abs(clip.upperBound - span.upperBound) < slack,
                "clip \(clip) for the phrase at \(span)", sourceLocation: sourceLocation)
            for other in outside {
                #expect(
                    clip.upperBound <= other.lowerBound + 0.1 || clip.lowerBound >= other.upperBound - 0.1,
                    "clip \(clip) holds speech the text does not (\(other))", sourceLocation: sourceLocation)
            }
        }
    }

    /// An audiobook's way: an announcement before the text is left out of every clip.
    @Test func speechBeforeTheTextIsLeftOutOfEveryClip() throws {
        let intro = ["This is a recording made for language learners.", "Lesson five. At the station."]
        let take = try SpokenTake.continuous(intro + story)
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == Array(story.indices))
        expectClips(segmentation, hold: Array(take.phrases.dropFirst(2)), clear: Array(take.phrases.prefix(2)))
    }

    /// An audiobook chapter: a long announcement, then the first lines of a text that goes on
    /// past the take. The announcement is left out, the lines read get their clips, and the
    /// lines after them none (a first path took the announcement for the text's first lines).
    @Test func anAudiobookIntroBeforeTheFirstLinesOfALongerTextIsLeftOut() throws {
        let intro = [
            "This recording is in the public domain.", "Read by a volunteer.", "Part one.",
            "In spring, the evenings get longer and warmer.", "The forecast says it will snow on Tuesday night.",
        ]
        let take = try SpokenTake.continuous(intro + story.prefix(4), voice: "en+f1")
        let text = story + unrelatedStory.prefix(4)
        let segmentation = try cutter.cut(path: take.path, hint: .text(text, language: "en"))
        #expect(segmentation.phrases == [0, 1, 2, 3])
        expectClips(
            segmentation, hold: Array(take.phrases.dropFirst(intro.count)),
            clear: Array(take.phrases.prefix(intro.count)))
    }

    @Test func speechAfterTheTextIsLeftOutOfEveryClip() throws {
        let take = try SpokenTake.continuous(story + ["Thank you for listening, and see you next time."])
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == Array(story.indices))
        expectClips(segmentation, hold: Array(take.phrases.prefix(6)), clear: [take.phrases[6]])
    }

    /// The first lines of a text that goes on past the take, then a word of thanks and other
    /// sentences: the alignment, which matches them to the lines after the ones read as well as
    /// it can, finds those lines' words fitting loosely and not told apart from their
    /// neighbours, and gives them no clip (they held the outro's words).
    @Test func speechAfterTheFirstLinesOfALongerTextIsNotGivenTheLinesAfterThem() throws {
        let outro = [
            "Thank you for listening to this lesson.", "The museum opens at ten and closes early on Mondays.",
            "See you next time.",
        ]
        let take = try SpokenTake.continuous(Array(story.prefix(4)) + outro)
        let text = story + otherStory.suffix(3)
        let segmentation = try cutter.cut(path: take.path, hint: .text(text, language: "en"))
        #expect(segmentation.phrases == [0, 1, 2, 3])
        expectClips(segmentation, hold: Array(take.phrases.prefix(4)), clear: Array(take.phrases.suffix(3)))
    }

    /// A line the reader skipped gets no clip, and its neighbours keep theirs.
    @Test func aLineSkippedInTheMiddleGetsNoClip() throws {
        var read = story
        read.remove(at: 2)
        let take = try SpokenTake.continuous(read)
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == [0, 1, 3, 4, 5])
        expectClips(segmentation, hold: take.phrases, clear: [])
    }

    /// A long continuous take by a voice whose words fit the synthesizer's only loosely
    /// (`Tests/Fixtures/skipped-line-en.opus`), its reader skipping one of 19 lines: the
    /// alignment squeezed the skipped line between its neighbours, which were then not told
    /// apart from the rest of the text. Aligned again around them, with each line there left
    /// out in turn, the skipped one gets no clip and its neighbours hold their own words.
    @Test func aLineSkippedInALongTakeByAFarVoiceLeavesItsNeighboursTheirWords() throws {
        let text = [
            "For a moment nothing happened, and my heart sank.",
            "Then we heard a slow, heavy tick, and another after it.",
            "The sound filled the little room and echoed down the stairs.",
            "Abel took out his pocket watch and compared the two.",
            "The tower was now almost three hours behind the rest of the world.",
            #""We cannot simply move the hands," he explained."#,
            #""The bells must strike every hour in turn, or they will jam.""#,
            "So we sat on an upturned crate and let the clock catch up.",
            "Every few minutes, Abel advanced the hands a little further.",
            "Each time the bells rang, pigeons burst from the roof in a panic.",
            "Down in the square, people stopped and stared up at us.",
            "Some of them clapped, and a boy threw his cap into the air.",
            "While we waited, Abel told me about his own apprenticeship.",
            "He had learned the trade from his uncle in a city far to the north.",
            "His uncle had been strict, impatient and almost completely deaf.",
            #""He could hear a clock that was wrong, though," Abel said."#,
            #""He could hear it from across the street.""#,
            "I asked whether he had ever wanted to do anything else.",
            "He thought about it for a long time before he answered.",
        ]
        let segmentation = try cutter.cut(
            path: Fixture.path("skipped-line-en.opus"), hint: .text(text, language: "en"))
        #expect(segmentation.phrases == Array(0..<9) + Array(10..<19))
        let clip = { (phrase: Int) -> Range<Double>? in
            segmentation.phrases?.firstIndex(of: phrase).map {
                let segment = segmentation.segments[$0]
                return segmentation.seconds(segment.startFrame)..<segmentation.seconds(segment.endFrame)
            }
        }
        // The true times of the two lines before the one skipped and of the line after it.
        for (phrase, truth) in [(7, 31.290..<35.691), (8, 35.691..<40.337), (10, 40.404..<44.618)] {
            let found = try #require(clip(phrase))
            #expect(
                abs(found.lowerBound - truth.lowerBound) < 0.15 && abs(found.upperBound - truth.upperBound) < 0.15,
                "line \(phrase + 1)'s clip \(found), its speech \(truth)")
        }
    }

    /// A sentence the text lacks, said between two lines, is in neither's clip.
    @Test func aSentenceTheTextLacksIsInNoClip() throws {
        let read = Array(story.prefix(3)) + ["By the way, the weather was lovely all week."] + story.suffix(3)
        let take = try SpokenTake.continuous(read)
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == Array(story.indices))
        var spans = take.phrases
        let added = spans.remove(at: 3)
        expectClips(segmentation, hold: spans, clear: [added])
    }

    /// A line said otherwise, a word or two more at its start run straight into it ("Sadly the
    /// flight..." for "The flight..."), keeps those words in its clip: they are its own, not
    /// speech the text lacks, and the cut stays in the pause before them.
    @Test func wordsAddedAtALinesStartStayInItsClip() throws {
        var read = story
        read[1] = "Sadly the flight was delayed, so we missed our connection in Madrid."
        read[4] = "And then our neighbours invited us for coffee on Sunday afternoon."
        let take = try SpokenTake.withPauses(read, pause: 0.8, voice: "en+f1")
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == Array(story.indices))
        expectClips(segmentation, hold: take.phrases, clear: [])
    }

    /// A cut in a clear pause between two phrases found is certain.
    @Test func aCutInAClearPauseIsCertain() throws {
        let take = try SpokenTake.withPauses(story, pause: 0.8)
        let segmentation = try cutter.cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.cuts.count == story.count - 1)
        #expect(segmentation.cuts.allSatisfy { $0.confidence >= 0.95 }, "\(segmentation.cuts.map(\.confidence))")
    }

    /// Refused, with no clips: neither the aligner nor the fallback for takes read with pauses
    /// accepts a take that does not read `text`.
    func expectRefused(
        _ take: String, _ text: [String], by cutter: TakeCutter? = nil, language: String = "en",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let cut = try (cutter ?? self.cutter).cut(path: take, hint: .text(text, language: language))
            Issue.record(
                "a take of another text was cut into \(cut.segments.count) clips (\(cut.method))",
                sourceLocation: sourceLocation)
        } catch let error as SegmentationError {
            #expect(error.kind == .textMismatch, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A cutter with some of its ways to accept a take shut, so that the one a test is about
    /// decides: `words`, the words fitting the text's; `pauses`, a take read with pauses cut
    /// there; `toldApart`, phrases told apart from their neighbours in the text.
    private func cutter(
        words: Bool = true, pauses: Bool = true, toldApart: Bool = true,
        _ change: (inout TakeCutter.Parameters) -> Void = { _ in }
    ) -> TakeCutter {
        var cutter = TakeCutter(synthesizer: .shared)
        if !words {
            cutter.parameters.verdict.minimumAgreement = 1.01
            cutter.parameters.verdict.minimumPartialAgreement = 1.01
        }
        if !pauses { cutter.parameters.pausedFallback.minimumPausedAgreement = 1.01 }
        if !toldApart { cutter.parameters.verdict.minimumIdentification = .infinity }
        change(&cutter.parameters)
        return cutter
    }

    /// A cutter whose aligner never accepts, so that the fallback for takes read with pauses
    /// alone decides.
    private func fallbackOnly(minimumPausedAgreement: Double? = nil) -> TakeCutter {
        cutter(words: false, toldApart: false) {
            if let minimumPausedAgreement { $0.pausedFallback.minimumPausedAgreement = minimumPausedAgreement }
        }
    }

    @Test func aTakeReadWithPausesIsCutThereWhenItsWordsCannotBeMatched() throws {
        let take = try SpokenTake.withPauses(story)
        let segmentation = try fallbackOnly().cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.method == .pauses)
        #expect(segmentation.segments.count == story.count)
        #expect(segmentation.phrases == Array(story.indices), "a clip per phrase, in order")
        for (cut, phrase) in zip(segmentation.cuts, take.phrases.dropFirst()) {
            #expect(
                abs(segmentation.seconds(cut.frame) - phrase.lowerBound) < 0.6,
                "cut at \(segmentation.seconds(cut.frame)) s, the phrase starts at \(phrase.lowerBound) s")
        }
    }

    /// Another text whose take happens to hold as many pauses as the text has joins: the
    /// alignment, free to leave phrases out, finds only some of them, so the pauses are not
    /// taken for the text's.
    @Test func anotherTextIsRefusedWhereTheAlignmentFindsOnlySomePhrases() throws {
        expectRefused(try continuousTake(otherStory).path, story, by: fallbackOnly(minimumPausedAgreement: 0))
    }

    /// Another text read with as many pauses as the text has joins: the pauses alone would
    /// give the right number of clips, but their lengths are out of proportion with the text's.
    @Test func anotherTextReadWithAsManyPausesIsRefused() throws {
        let other = [
            "The museum opens at ten.", "He forgot his umbrella on the train again this morning, and his gloves too.",
            "Yes.", "Could you tell me where the nearest pharmacy is, please?", "They painted it.",
            "The children were playing in the garden until their grandmother called them in for supper.",
        ]
        let take = try SpokenTake.withPauses(other)
        expectRefused(take.path, story, by: fallbackOnly(minimumPausedAgreement: 0))
    }

    /// A cutter that cannot tell a take's words from their sounds backwards well enough (as
    /// with a voice far from the synthesizer's), so that telling the phrases apart decides.
    private func identificationOnly() -> TakeCutter { cutter(words: false, pauses: false) }

    /// Each phrase found is told apart from its neighbours in the text: a take of the text is
    /// cut, one of another text, whose words fit no phrase better than the next, is refused.
    @Test func aTakeIsToldFromAnotherTextByItsPhrasesBeingToldApart() throws {
        let take = try continuousTake(story)
        let segmentation = try identificationOnly().cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == Array(story.indices))
        expectRefused(try continuousTake(unrelatedStory).path, story, by: identificationOnly())
    }

    /// A cutter that neither follows the words frame by frame nor cuts at pauses alone, as
    /// with a real speaker's take that holds more than its text: telling phrases apart among
    /// the take's pauses decides.
    private func spottingOnly() -> TakeCutter {
        cutter(words: false, pauses: false) { $0.verdict.leastAgreement = 1.01 }
    }

    /// A take read with pauses, an introduction before the text and a word of thanks after it,
    /// in a voice the alignment follows only loosely: each phrase is told apart among the
    /// stretches the pauses part, and neither the intro nor the outro is in a clip.
    @Test func phrasesAreToldApartAmongThePausesOfATakeThatHoldsMore() throws {
        let intro = ["This is a recording made for language learners.", "Lesson five. At the station."]
        let outro = ["Thank you for listening, and see you next time."]
        let take = try SpokenTake.withPauses(intro + story + outro, pause: 0.5, voice: "en-gb-x-rp+f3")
        let segmentation = try spottingOnly().cut(path: take.path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == Array(story.indices))
        expectClips(
            segmentation, hold: Array(take.phrases[2..<8]), clear: Array(take.phrases.prefix(2)) + [take.phrases[8]],
            slack: 0.2)
        #expect(segmentation.notes.contains { $0.contains("told apart at its pauses") })
    }

    /// A line too short to be told apart ("Yes, please.") between two that are is placed
    /// where it is read, by its order and its length.
    @Test func aShortLineBetweenTwoToldApartIsPlacedByItsOrder() throws {
        var text = story
        text.insert("Yes, please.", at: 3)
        let take = try SpokenTake.withPauses(
            ["Lesson five. At the station."] + text, pause: 0.5, voice: "en-gb-x-rp+f3")
        let segmentation = try spottingOnly().cut(path: take.path, hint: .text(text, language: "en"))
        #expect(segmentation.phrases == Array(text.indices))
        expectClips(segmentation, hold: Array(take.phrases.dropFirst()), clear: [take.phrases[0]], slack: 0.2)
    }

    /// A real speaker (a studio phone prompt, `Tests/Fixtures/menu-ru-real.flac`) reading the
    /// last five lines of a menu, alike but for a word or two ("Для связи с отделом продаж,
    /// нажмите 1." ... "Для связи с оператором, нажмите 0."): the lines after the last one told
    /// apart are placed by their order, the stretches left being as many and as long as they
    /// are, and each clip holds its line (the true spans, to 10 ms).
    @Test func theLastLinesOfARealSpeakersMenuAreFoundByTheirOrderWhereTheyAreAlike() throws {
        let menu = [
            "Благодарим за звонок в компанию Рога и Копыта, мирового поставщика сырья для колбас и прочих мясных изделий.",
            "Если Вы знаете номер сотрудника, введите его в любой момент в тоновом режиме.",
            "Для связи с отделом продаж, нажмите 1.", "Для соединения с технической поддержкой, нажмите 2.",
            "Для связи с финансовым отделом, нажмите 3.", "Для перехода в каталог сотрудников, нажмите 4.",
            "Для связи с оператором, нажмите 0.",
        ]
        let spans = [0.5..<3.2, 3.46..<6.65, 6.87..<9.7, 9.91..<12.95, 13.21..<15.51]
        let segmentation = try cutter.cut(path: Fixture.path("menu-ru-real.flac"), hint: .text(menu, language: "ru"))
        #expect(segmentation.phrases == [2, 3, 4, 5, 6])
        expectClips(segmentation, hold: spans, clear: [], slack: 0.2)
    }

    /// A real speaker (a studio phone prompt, `Tests/Fixtures/echo-test-fr-real.flac`) reading
    /// the second and third lines of four: her words fit the synthesizer's less well than a
    /// voice like it would need where only some lines are found, but the two are one run of the
    /// text, each told apart from its neighbours, and they are cut; the same take given another
    /// French text is still refused.
    @Test func theMiddleOfARealSpeakersTextIsFoundAndNotAnotherText() throws {
        let echoTest = [
            "Vous êtes sur le point d'entreprendre un test d'écho.",
            "Dans ce mode, tout ce que vous direz vous sera répété dès que reçu.",
            "Le but de ce test est pour vous donner un exemple audible de latence entre vous et la machine qui exécute l'application de test d'écho.",
            "Vous pourrez quitter le test en raccrochant ou en appuyant sur dièse.",
        ]
        let path = Fixture.path("echo-test-fr-real.flac")
        let segmentation = try cutter.cut(path: path, hint: .text(echoTest, language: "fr"))
        #expect(segmentation.phrases == [1, 2])
        expectClips(segmentation, hold: [0.5..<4.37, 4.635..<12.45], clear: [], slack: 0.2)
        let market = [
            "Au marché, on trouve des légumes frais, du miel et des fleurs.",
            "Demain, il va pleuvoir toute la journée dans le nord.",
            "Mon oncle habite dans une ferme avec des vaches et des poules.",
            "Notre équipe a fini le rapport deux jours avant la date prévue.",
        ]
        expectRefused(path, market, language: "fr")
    }

    /// Another text read with as many pauses: phrases told apart by chance among its stretches
    /// are too few, too loosely told apart or out of order, and the take is refused.
    @Test func anotherTextIsNotFoundAmongItsPauses() throws {
        let take = try SpokenTake.withPauses(
            unrelatedStory + ["Our flight leaves early, so we should pack tonight."], pause: 0.5, voice: "en-gb-x-rp+f3"
        )
        expectRefused(take.path, story, by: spottingOnly())
    }

    /// A text of three lines against another take read with pauses: three clips can be cut at
    /// the longest pauses of any take, and three phrases are too few to tell apart, so the
    /// take is refused rather than cut into clips of other words.
    @Test func threeLinesAreNotCutAtTheLongestPausesOfAnotherTake() throws {
        let take = try SpokenTake.withPauses(
            otherStory + ["The children played in the garden until it was dark."], pause: 1.0)
        expectRefused(take.path, Array(story.prefix(3)))
    }

    /// A cutter that takes the words as fitting however loosely they do, so that telling the
    /// phrases apart decides.
    private func looseWords() -> TakeCutter {
        cutter(pauses: false) {
            $0.verdict.minimumAgreement = 0
            $0.verdict.minimumPartialAgreement = 0
            $0.verdict.maximumWeakSpread = 10
            $0.verdict.maximumSpread = 10
            $0.verdict.strongAgreement = 1.01
        }
    }

    /// Where the words fit only loosely (as a real speaker's, and another text's, can), the
    /// phrases must also be told apart: a take of the text is cut, one of another is refused.
    @Test func wordsThatFitLooselyMustAlsoBeToldApart() throws {
        let segmentation = try looseWords().cut(
            path: try continuousTake(story).path, hint: .text(story, language: "en"))
        #expect(segmentation.phrases == Array(story.indices))
        expectRefused(try continuousTake(unrelatedStory).path, story, by: looseWords())
    }

    @Test func aTakeOfAnotherTextIsRefused() throws {
        expectRefused(try continuousTake(otherStory).path, story)
    }

    @Test func aTakeInAnotherLanguageIsRefused() throws {
        let spanish = [
            "Mañana vamos a la playa con mis primos.", "El tren sale a las ocho de la noche.",
            "Me gusta mucho el café con leche.",
            "Mi abuela vive en un pueblo pequeño.", "Los niños juegan en el parque todos los días.",
            "Hace mucho calor en verano.",
        ]
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
