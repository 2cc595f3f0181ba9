import Foundation
import LoopTestSupport
import Testing

/// A library holding the fixture loop, group 1 showing a red picture and group 2 a green one.
func libraryWithGroupPictures() throws -> TestLibrary {
    let library = try libraryWithFixtureLoop()
    for (group, file) in [(1, "picture-red.png"), (2, "picture-green.jpg")] {
        let given = try library.run(["image", "fixture", "--group", "\(group)", file])
        #expect(given.status == 0 && given.output.isEmpty, "quiet on success: \(given.error)")
    }
    return library
}

/// The 24-bit colours a screen's escape sequences set (`38;2;R;G;B` and `48;2;R;G;B`).
func trueColors(in screen: String) -> [(Int, Int, Int)] {
    screen.matches(of: /[34]8;2;(\d+);(\d+);(\d+)/).map { (Int($0.1)!, Int($0.2)!, Int($0.3)!) }
}

struct PictureStudyTests {
    @Test(.enabled(if: TerminalDriver.isAvailable))
    func aPicturePerGroupShowsAsCharacterArtInTmuxAndFollowsTheGroup() throws {
        let library = try libraryWithGroupPictures()
        let environment = alsaEnvironment(output: "/dev/null").merging(["LOOP_LIBRARY": library.path, "TERM": "xterm-256color", "COLORTERM": "truecolor"]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-pictures", columns: 100, rows: 40)
        try terminal.type("\(exports); cd '\(LoopProcess.fixtures)'; '\(LoopProcess.executable.path)' study fixture; echo \"exit=$?\"")
        try terminal.waitFor("Group 1")
        try terminal.press(" ")
        try terminal.waitFor("paused")
        // tmux says nothing of sixel: character art, red under group 1.
        var colored = try terminal.waitUntil { _ in
            (try? trueColors(in: terminal.screen(escapes: true)).contains { $0.0 > 200 && $0.1 < 40 && $0.2 < 40 }) ?? false
        }
        #expect(!trueColors(in: try terminal.screen(escapes: true)).contains { $0.1 > 100 && $0.0 < 40 }, "no green yet")
        try terminal.press("2")
        try terminal.waitFor("Group 2")
        colored = try terminal.waitUntil { _ in
            (try? trueColors(in: terminal.screen(escapes: true)).contains { $0.1 > 100 && $0.0 < 40 && $0.2 < 40 }) ?? false
        }
        #expect(!trueColors(in: try terminal.screen(escapes: true)).contains { $0.0 > 200 && $0.1 < 40 }, "the red picture is gone: \(colored)")
        try terminal.press("q")
        try terminal.waitFor("exit=0")

        // --no-images: the same screen without a picture.
        try terminal.type("clear; '\(LoopProcess.executable.path)' study fixture --no-images; echo \"exit=$?\"")
        try terminal.waitFor("Group 1")
        try terminal.press(" ")
        try terminal.waitFor("paused")
        #expect(trueColors(in: try terminal.screen(escapes: true)).isEmpty)
        try terminal.press("q")
        try terminal.waitFor("exit=0")
    }

    @Test func aTerminalThatSaysItDrawsSixelGetsSixelGraphics() throws {
        let library = try libraryWithGroupPictures()
        let environment = alsaEnvironment(output: "/dev/null").merging(["LOOP_LIBRARY": library.path, "TERM": "xterm-256color"]) { $1 }
        let terminal = try PseudoTerminal(["study", "fixture"], environment: environment)
        // Asked what it is, this terminal says a VT220-class terminal with sixel (4).
        let drawn = terminal.read(until: { $0.contains("\u{1B}P") && $0.contains("Group 1") }, answering: ["\u{1B}[c": "\u{1B}[?62;4;22c"])
        #expect(drawn, "a sixel picture was drawn: \(terminal.text.suffix(300).debugDescription)")
        let sixel = try #require(terminal.text.range(of: "\u{1B}P"))
        #expect(terminal.text[sixel.upperBound...].prefix(20).contains("q"), "a sixel sequence (DCS … q)")
        terminal.type("q")
        #expect(terminal.waitForExit() == 0)
    }

    @Test func withoutSixelOrWithNoImagesNoSixelIsSent() throws {
        let library = try libraryWithGroupPictures()
        let environment = alsaEnvironment(output: "/dev/null").merging(["LOOP_LIBRARY": library.path, "TERM": "xterm-256color"]) { $1 }
        // A terminal without sixel (no 4): character art.
        let plain = try PseudoTerminal(["study", "fixture"], environment: environment)
        #expect(plain.read(until: { $0.contains("Group 1") && $0.contains("48;5;") }, answering: ["\u{1B}[c": "\u{1B}[?62;22c"]))
        plain.type("q")
        #expect(plain.waitForExit() == 0)
        #expect(!plain.text.contains("\u{1B}P"))
        // --no-images: not even the question.
        let none = try PseudoTerminal(["study", "fixture", "--no-images"], environment: environment)
        #expect(none.read(until: { $0.contains("Group 1") }, answering: ["\u{1B}[c": "\u{1B}[?62;4;22c"]))
        none.type("q")
        #expect(none.waitForExit() == 0)
        #expect(!none.text.contains("\u{1B}P") && !none.text.contains("\u{1B}[c") && !none.text.contains("48;5;"))
    }
}
