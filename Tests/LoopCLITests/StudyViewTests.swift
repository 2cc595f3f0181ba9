import LoopModel
import Testing

@testable import LoopScreens
@testable import LoopStudy
@testable import LoopTerminal

struct StudyViewTests {
    func lines(_ phrases: [StudyPhrase], hideText: Bool = false) -> [String] {
        let display = StudyDisplay(
            group: 0, selection: [0], phrase: 1, phase: .listening, mode: .repeatWithMe, speed: 1, repeats: 3,
            repetition: 1, round: 1)
        return StudyView(
            title: "Fixture", groups: [phrases], display: display, showTranslation: true, hideText: hideText,
            showHelp: false,
            terminal: Terminal(isInteractive: false, usesColor: false, width: 120), rows: 40, columns: 120
        ).lines
    }

    @Test func aClipRecordedForAnEarlierTextIsMarked() {
        let phrases = [
            StudyPhrase(number: 1, text: "Bonsoir, madame.", duration: 1_000_000, clipIsForEarlierText: true),
            StudyPhrase(number: 2, text: "Merci.", duration: 1_000_000),
            StudyPhrase(number: 3, text: "Au revoir.", duration: nil),
        ]
        let shown = lines(phrases)
        #expect(shown.contains("▶ Bonsoir, madame.  (recorded for an earlier text)"))
        #expect(shown.contains("  Merci."))
        #expect(shown.contains("  Au revoir.  (no audio)"))
        #expect(
            !lines(phrases, hideText: true).contains { $0.contains("earlier text") },
            "a listening drill hides it with the text")
    }
}

struct StudyViewMarksTests {
    @Test func whileAGroupPlaysThePhraseSoundingIsMarkedAndInItsSilenceEveryPhrase() {
        let phrases = (1...3).map { StudyPhrase(number: $0, text: "Phrase \($0).", duration: 1_000_000) }
        func marked(_ phase: StudyDisplay.Phase, sounding: Int?) -> [String] {
            var display = StudyDisplay(
                group: 0, selection: [0], phrase: nil, phase: phase, mode: .listenAndRepeat, speed: 1, repeats: 1,
                repetition: 1, round: 1)
            display.sounding = sounding
            return StudyView(
                title: "Fixture", groups: [phrases], display: display, showTranslation: false, hideText: false,
                showHelp: false, terminal: Terminal(isInteractive: false, usesColor: false, width: 80), rows: 30,
                columns: 80
            ).lines.filter { $0.hasPrefix("▶ ") }
        }
        #expect(marked(.listening, sounding: 2) == ["▶ Phrase 2."])
        #expect(marked(.repeatAloud, sounding: nil) == ["▶ Phrase 1.", "▶ Phrase 2.", "▶ Phrase 3."])
    }
}

struct StudyViewKeysTests {
    func view(columns: Int, help: Bool) -> [String] {
        let display = StudyDisplay(
            group: 0, selection: [0], phrase: 1, phase: .listening, mode: .repeatWithMe, speed: 1, repeats: 3,
            repetition: 1, round: 1)
        return StudyView(
            title: "Fixture", groups: [[StudyPhrase(number: 1, text: "Merci.", duration: 1_000_000)]],
            display: display, showTranslation: false, hideText: false, showHelp: help,
            terminal: Terminal(isInteractive: true, usesColor: false, width: columns), rows: 40, columns: columns
        ).lines
    }

    @Test(arguments: [80, 100])
    func everyKeyIsShownWholeAtEightyColumnsAndMore(columns: Int) {
        let keys = view(columns: columns, help: false)
        #expect(!keys.contains { $0.hasSuffix("…") }, "nothing cut: \(keys)")
        for key in ["space pause", "1-9 select", "+/- speed", "? help", "q quit"] {
            #expect(keys.contains { $0.contains(key) }, "\(key) in \(keys)")
        }
        let help = view(columns: columns, help: true)
        #expect(!help.contains { $0.hasSuffix("…") }, "nothing cut: \(help)")
        for entry in StudyView.help {
            #expect(help.contains { $0.contains(entry) }, "\(entry) in \(help)")
        }
    }

    @Test func aTableOfKeysTakesAsManyColumnsAsTheScreenHolds() {
        let entries = ["a  one", "b  two", "c  three", "d  four", "e  five"]
        #expect(DisplayWidth.table(entries, columns: 80) == ["a  one   b  two   c  three   d  four   e  five"])
        #expect(DisplayWidth.table(entries, columns: 20) == ["a  one     d  four", "b  two     e  five", "c  three"])
        #expect(DisplayWidth.table(entries, columns: 5) == entries)
        #expect(DisplayWidth.wrap(["ab", "cd", "ef"], columns: 7) == ["ab · cd", "ef"])
    }
}

struct InertTextTests {
    @Test func controlCharactersFromALibraryNeverReachTheTerminalRaw() {
        #expect(Terminal.inert("evil\u{1B}]0;pwned\u{7}\u{1B}[2J") == "evil\\u{1B}]0;pwned\\u{7}\\u{1B}[2J")
        #expect(Terminal.inert("a\u{9B}31mb\u{7F}") == "a\\u{9B}31mb\\u{7F}")
        #expect(Terminal.inert("Crème brûlée · 駅で") == "Crème brûlée · 駅で", "ordinary text is left as it is")
    }
}

struct DisplayWidthTests {
    @Test func chineseAndJapaneseTakeTwoColumnsAndEscapesNone() {
        #expect(DisplayWidth.of("駅で") == 4)
        #expect(DisplayWidth.of("Crème brûlée") == 12)
        #expect(DisplayWidth.of("e\u{301}") == 1, "a combining accent takes no column")
        #expect(DisplayWidth.of("\u{1B}[1m駅\u{1B}[0m") == 2)
    }

    @Test func aLineOfWideCharactersIsCutAtTheScreensWidthNotItsCharacterCount() {
        // Ten columns: four wide characters (eight columns) and the ellipsis, never five (ten + 1).
        #expect(DisplayWidth.fit("我想喝咖啡我想喝咖啡", columns: 10) == "我想喝咖…")
        #expect(DisplayWidth.of(DisplayWidth.fit("我想喝咖啡我想喝咖啡", columns: 10)) <= 10)
        #expect(DisplayWidth.fit("short", columns: 10) == "short")
        // Colours stay whole and are reset after the cut.
        let cut = DisplayWidth.fit("\u{1B}[1m" + String(repeating: "駅", count: 20) + "\u{1B}[0m", columns: 9)
        #expect(cut == "\u{1B}[1m駅駅駅駅…\u{1B}[0m", "\(cut.debugDescription)")
    }

    @Test func theStudyViewFitsAChinesePhraseInANarrowScreen() {
        let display = StudyDisplay(
            group: 0, selection: [0], phrase: 1, phase: .listening, mode: .repeatWithMe, speed: 1, repeats: 1,
            repetition: 1, round: 1)
        let phrase = StudyPhrase(number: 1, text: String(repeating: "咖啡馆在哪里", count: 10), duration: 1_000_000)
        let lines = StudyView(
            title: "咖啡", groups: [[phrase]], display: display, showTranslation: true, hideText: false, showHelp: false,
            terminal: Terminal(isInteractive: true, usesColor: true, width: 30), rows: 30, columns: 30
        ).lines
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 30 }, "\(lines.map { DisplayWidth.of($0) })")
    }
}
