import LoopFoundation
import LoopTestSupport
import LoopText
import Testing

struct LoopSourceTests {
    @Test func linesArePhrasesAndBlankLinesEndGroups() throws {
        let source = try LoopSource(parsing: "Bonjour.\nMerci.\n\nAu revoir.\n")
        #expect(source.groups.count == 2)
        #expect(source.groups[0].phrases.map(\.text) == ["Bonjour.", "Merci."])
        #expect(source.groups[1].phrases.map(\.text) == ["Au revoir."])
        #expect(source.phrases.map(\.line) == [1, 2, 4])
    }

    @Test func handlesCRLFBOMTabsTrailingSpacesAndRunsOfBlankLines() throws {
        let text = "\u{FEFF}  Uno\t dos  \r\nTres\t\r\n\r\n\r\n \t \r\n\r\nCuatro   \rCinco"
        let source = try LoopSource(parsing: text)
        #expect(source.groups.map { $0.phrases.map(\.text) } == [["Uno dos", "Tres"], ["Cuatro", "Cinco"]])
    }

    @Test func aLanguageLineTakesACodeNeverAPath() throws {
        for bad in ["../../etc/passwd", "fr+klatt", "en us", "-fr", "fr-", String(repeating: "a", count: 36)] {
            #expect(throws: LoopSourceError.self, "\(bad)") {
                try LoopSource(parsing: "# language: \(bad)\n\nBonjour.\n", from: "t.txt")
            }
            #expect(throws: LoopSourceError.self, "\(bad)") {
                try LoopSource(parsing: "# translation: \(bad)\n\nBonjour.\n", from: "t.txt")
            }
        }
        for good in ["fr", "pt-BR", "cmn-latn-pinyin", "Spanish", "zh_TW"] {
            #expect(try LoopSource(parsing: "# language: \(good)\n\nBonjour.\n", from: "t.txt").language == good)
        }
    }

    @Test func normalisesToNFC() throws {
        let decomposed = "Cafe\u{301} cre\u{300}me"
        let source = try LoopSource(parsing: decomposed)
        #expect(source.phrases[0].text.unicodeScalars.count == "Café crème".unicodeScalars.count)
        #expect(source.phrases[0].text == "Café crème")
    }

    @Test func aBarSeparatesTheTranslation() throws {
        let source = try LoopSource(parsing: "Bonjour ! | Hello!\nMerci |\nUn \\| deux | One | two")
        #expect(source.phrases[0].text == "Bonjour !")
        #expect(source.phrases[0].translation == "Hello!")
        #expect(source.phrases[1].translation == nil, "an empty translation is none")
        #expect(source.phrases[2].text == "Un | deux")
        #expect(source.phrases[2].translation == "One | two", "only the first bar separates")
    }

    /// Found by the text fuzzer: a bar followed by a combining mark is one Character, and was
    /// read as text, while the writer escaped it, so the text written back read differently.
    @Test func aBarFollowedByACombiningMarkStillSeparatesAndWritesBackTheSame() throws {
        let source = try LoopSource(parsing: "Bonne journée ! |\u{0DDA}x\nUn \\|\u{0301} deux")
        #expect(source.phrases[0].text == "Bonne journée !" && source.phrases[0].translation == "\u{0DDA}x")
        #expect(source.phrases[1].text == "Un |\u{0301} deux" && source.phrases[1].translation == nil)
        let again = try LoopSource(parsing: source.text)
        #expect(again.phrases.map(\.text) == source.phrases.map(\.text))
        // A line break followed by a combining mark still ends its line.
        for separator in ["\n", "\r", "\r\n"] {
            #expect(
                try LoopSource(parsing: "Un" + separator + "\u{05AB}deux").phrases.count == 2,
                "\(separator.debugDescription)")
        }
    }

    @Test func metadataComesFromHeaderCommentsAndOtherCommentsAreSkipped() throws {
        let text = """
            # Title: Au café
            # language: fr
            # translation: en
            # tags: travel, food ,
            # a note for the author
            Bonjour.
            # title: not metadata after the first phrase
            \\#1 est un numéro.
            """
        let source = try LoopSource(parsing: text)
        #expect(source.title == "Au café")
        #expect(source.language == "fr")
        #expect(source.translationLanguage == "en")
        #expect(source.tags == ["travel", "food"])
        #expect(source.phrases.map(\.text) == ["Bonjour.", "#1 est un numéro."])
    }

    @Test func aTranslationWithoutTextIsAnErrorWithItsLine() {
        #expect(
            throws: LoopSourceError(
                .invalid, path: nil, line: 3, message: "a phrase needs text before the '|' that starts its translation")
        ) {
            _ = try LoopSource(parsing: "Un.\n\n | Two")
        }
    }

    @Test func aTextWithoutPhrasesIsAnError() {
        #expect(throws: LoopSourceError.self) { _ = try LoopSource(parsing: "# title: Empty\n\n  \n") }
    }

    @Test func theSentenceOptionSplitsLinesAndPairsTheirTranslations() throws {
        let source = try LoopSource(
            parsing: "Voilà. Bonne journée ! | Here you are. Have a nice day!\nUn. Deux. | One and two.",
            options: .init(splitSentences: true))
        #expect(source.phrases.map(\.text) == ["Voilà.", "Bonne journée !", "Un. Deux."])
        #expect(source.phrases.map(\.translation) == ["Here you are.", "Have a nice day!", "One and two."])
    }

    @Test func readsAFileAndNamesItInErrors() throws {
        #expect {
            _ = try LoopSource(contentsOf: "/nonexistent/text.txt")
        } throws: { error in
            "\(error)" == "/nonexistent/text.txt: no such file"
        }
    }
}

struct SentenceSplitterTests {
    let splitter = SentenceSplitter()

    @Test func splitsAtTerminalPunctuationFollowedBySpace() {
        #expect(
            splitter.split("It rains. Take an umbrella! Are you ready? Yes…  Go.") == [
                "It rains.", "Take an umbrella!", "Are you ready?", "Yes…", "Go.",
            ])
    }

    @Test func keepsAbbreviationsInitialsAndDecimalsWhole() {
        #expect(
            splitter.split("Dr. Smith paid 3.50 euros. Mr. J. K. Rowling came, e.g. on Monday.") == [
                "Dr. Smith paid 3.50 euros.", "Mr. J. K. Rowling came, e.g. on Monday.",
            ])
        #expect(
            splitter.split("Sra. García llega. Mme. Dupont aussi.") == ["Sra. García llega.", "Mme. Dupont aussi."])
    }

    @Test func aFullStopBeforeALowerCaseWordDoesNotEndASentence() {
        #expect(
            splitter.split("Bring apples, pears, etc. and some bread.") == ["Bring apples, pears, etc. and some bread."]
        )
    }

    @Test func closingQuotesAndBracketsStayWithTheirSentence() {
        #expect(splitter.split("Il a dit « Non. » Puis il est parti.") == ["Il a dit « Non. »", "Puis il est parti."])
        #expect(
            splitter.split("She left (quickly.) Then \"Stop!\" he said.") == [
                "She left (quickly.)", "Then \"Stop!\" he said.",
            ])
    }

    @Test func spanishOpeningMarksStartTheNextSentence() {
        #expect(splitter.split("Hola. ¿Qué tal? ¡Muy bien!") == ["Hola.", "¿Qué tal?", "¡Muy bien!"])
    }

    @Test func chineseAndJapaneseStopsSplitWithoutSpaces() {
        #expect(splitter.split("你好。你叫什么名字？我很好！") == ["你好。", "你叫什么名字？", "我很好！"])
        #expect(splitter.split("「はい。」と言った。ありがとう。") == ["「はい。」", "と言った。", "ありがとう。"])
    }

    @Test func germanOrdinalsAreNotSentenceEnds() {
        #expect(
            splitter.split("Wir kommen am 3. Oktober. Bis dann.", language: "de") == [
                "Wir kommen am 3. Oktober.", "Bis dann.",
            ])
        #expect(
            splitter.split("I was born in 1990. Then I moved.", language: "en") == [
                "I was born in 1990.", "Then I moved.",
            ])
    }

    @Test func runsOfMarksEndOnce() {
        #expect(splitter.split("Really?! Yes... Fine.") == ["Really?!", "Yes...", "Fine."])
    }
}
