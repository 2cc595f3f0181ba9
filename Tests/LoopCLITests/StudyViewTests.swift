@testable import LoopCLI
@testable import LoopStudy
import Testing

struct StudyViewTests {
    func lines(_ phrases: [StudyPhrase], hideText: Bool = false) -> [String] {
        let display = StudyDisplay(group: 0, selection: [0], phrase: 1, phase: .listening, mode: .repeatWithMe, speed: 1, repeats: 3, repetition: 1, round: 1)
        return StudyView(title: "Fixture", groups: [phrases], display: display, showTranslation: true, hideText: hideText, showHelp: false,
                         terminal: Terminal(isInteractive: false, usesColor: false, width: 120), rows: 40, columns: 120).lines
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
        #expect(!lines(phrases, hideText: true).contains { $0.contains("earlier text") }, "a listening drill hides it with the text")
    }
}

struct InertTextTests {
    @Test func controlCharactersFromALibraryNeverReachTheTerminalRaw() {
        #expect(Terminal.inert("evil\u{1B}]0;pwned\u{7}\u{1B}[2J") == "evil\\u{1B}]0;pwned\\u{7}\\u{1B}[2J")
        #expect(Terminal.inert("a\u{9B}31mb\u{7F}") == "a\\u{9B}31mb\\u{7F}")
        #expect(Terminal.inert("Crème brûlée · 駅で") == "Crème brûlée · 駅で", "ordinary text is left as it is")
    }
}
