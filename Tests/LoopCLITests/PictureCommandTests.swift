import Foundation
import LoopModel
import LoopStore
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
        let environment = alsaEnvironment(output: "/dev/null").merging([
            "LOOP_LIBRARY": library.path, "TERM": "xterm-256color", "COLORTERM": "truecolor",
        ]) { $1 }
        let exports = environment.map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        let terminal = try TerminalDriver(name: "loop-pictures", columns: 100, rows: 40)
        // The tmux server may have inherited the runner's NO_COLOR: this terminal has colours.
        try terminal.type(
            "unset NO_COLOR; \(exports); cd '\(LoopProcess.fixtures)'; '\(LoopProcess.executable.path)' study fixture; echo \"exit=$?\""
        )
        try terminal.waitFor("Group 1")
        try terminal.press(" ")
        try terminal.waitFor("paused")
        // tmux says nothing of sixel: character art, red under group 1.
        var colored = try terminal.waitUntil { _ in
            (try? trueColors(in: terminal.screen(escapes: true)).contains { $0.0 > 200 && $0.1 < 40 && $0.2 < 40 })
                ?? false
        }
        #expect(
            !trueColors(in: try terminal.screen(escapes: true)).contains { $0.1 > 100 && $0.0 < 40 }, "no green yet")
        try terminal.press("2")
        try terminal.waitFor("Group 2")
        colored = try terminal.waitUntil { _ in
            (try? trueColors(in: terminal.screen(escapes: true)).contains { $0.1 > 100 && $0.0 < 40 && $0.2 < 40 })
                ?? false
        }
        #expect(
            !trueColors(in: try terminal.screen(escapes: true)).contains { $0.0 > 200 && $0.1 < 40 },
            "the red picture is gone: \(colored)")
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
        let environment = alsaEnvironment(output: "/dev/null").merging([
            "LOOP_LIBRARY": library.path, "TERM": "xterm-256color",
        ]) { $1 }
        let terminal = try PseudoTerminal(["study", "fixture"], environment: environment)
        // Asked what it is, this terminal says a VT220-class terminal with sixel (4).
        let drawn = terminal.read(
            until: { $0.contains("\u{1B}P") && $0.contains("Group 1") }, answering: ["\u{1B}[c": "\u{1B}[?62;4;22c"])
        #expect(drawn, "a sixel picture was drawn: \(terminal.text.suffix(300).debugDescription)")
        let sixel = try #require(terminal.text.range(of: "\u{1B}P"))
        #expect(terminal.text[sixel.upperBound...].prefix(20).contains("q"), "a sixel sequence (DCS … q)")
        terminal.type("q")
        #expect(terminal.waitForExit() == 0)
    }

    @Test func theRecordViewShowsThePictureOfThePhraseToReadNext() throws {
        let library = try libraryWithGroupPictures()
        let terminal = try PseudoTerminal(
            ["record", "fixture", "--input", "clean.flac"],
            environment: ["LOOP_LIBRARY": library.path, "TERM": "xterm-256color"])
        let drawn = terminal.read(
            until: { $0.contains("\u{1B}P") && $0.contains("Group 1") }, answering: ["\u{1B}[c": "\u{1B}[?62;4;22c"])
        #expect(drawn, "a sixel picture in the record view: \(terminal.text.suffix(300).debugDescription)")
        terminal.type("q")
        #expect(terminal.read(until: { $0.contains("Quit without saving") }))
        terminal.type("y")
        #expect(terminal.waitForExit() == 0)
    }

    @Test func withoutSixelOrWithNoImagesNoSixelIsSent() throws {
        let library = try libraryWithGroupPictures()
        let environment = alsaEnvironment(output: "/dev/null").merging([
            "LOOP_LIBRARY": library.path, "TERM": "xterm-256color",
        ]) { $1 }
        // A terminal without sixel (no 4): character art.
        let plain = try PseudoTerminal(["study", "fixture"], environment: environment)
        #expect(
            plain.read(
                until: { $0.contains("Group 1") && $0.contains("48;5;") }, answering: ["\u{1B}[c": "\u{1B}[?62;22c"]))
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

struct PictureCommandTests {
    @Test func aLoopsTextNamesPicturesAndLoopImageChangesThem() throws {
        let library = TestLibrary()
        let folder = Scratch.path("pictured")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in ["picture-red.png", "picture-green.jpg", "picture-blue.webp"] {
            try FileManager.default.copyItem(atPath: Fixture.path(file), toPath: folder + "/" + file)
        }
        try """
        # title: Pictured
        # image: picture-red.png

        # group-image: picture-green.jpg
        Bonjour.
        Merci.
        # phrase-image: picture-blue.webp

        Au revoir.
        """.write(toFile: folder + "/text.txt", atomically: true, encoding: .utf8)
        // Relative to the text's folder, wherever the command runs.
        let created = try library.run(["new", "--text", folder + "/text.txt"])
        #expect(created.status == 0, "\(created.error)")
        var shown = try #require(try library.json(["show", "Pictured"]) as? [String: Any])
        func format(_ picture: Any?) -> String? { (picture as? [String: Any])?["format"] as? String }
        var groups = try #require(shown["groups"] as? [[String: Any]])
        #expect(
            format(shown["picture"]) == "png" && format(groups[0]["picture"]) == "jpeg"
                && format(groups[1]["picture"]) == nil)
        var phrases = try #require(groups[0]["phrases"] as? [[String: Any]])
        #expect(format(phrases[0]["picture"]) == nil && format(phrases[1]["picture"]) == "webp")
        let stored = try #require((shown["picture"] as? [String: Any])?["path"] as? String)
        #expect(
            stored.hasPrefix(library.path + "/pictures/")
                && FileManager.default.contents(atPath: stored)
                    == FileManager.default.contents(atPath: Fixture.path("picture-red.png"))
        )

        // Replaced, added, taken off.
        #expect(try library.run(["image", "Pictured", "--group", "2", "picture-yellow-then-blue.gif"]).status == 0)
        #expect(try library.run(["image", "Pictured", "--remove"]).status == 0)
        #expect(try library.run(["image", "Pictured", "--phrase", "2", "--remove"]).status == 0)
        shown = try #require(try library.json(["show", "Pictured"]) as? [String: Any])
        groups = try #require(shown["groups"] as? [[String: Any]])
        phrases = try #require(groups[0]["phrases"] as? [[String: Any]])
        #expect(
            format(shown["picture"]) == nil && format(groups[1]["picture"]) == "gif"
                && format(phrases[1]["picture"]) == nil)
        #expect(try library.run(["show", "Pictured"]).output.contains("Group 2  picture: GIF 96×64"))
        // What nothing shows any more goes with gc; what is shown stays.
        let collected = try library.run(["gc"])
        #expect(collected.status == 0 && collected.output.contains("removed 2 files"), "\(collected.output)")
        let doctor = try library.run(["doctor"])
        #expect(
            doctor.output.hasPrefix("ok: 1 loops, 3 phrases, 0 audio files and 2 pictures verified"), "\(doctor.output)"
        )
        // A missing group, and no file or --remove.
        #expect(
            try library.run(["image", "Pictured", "--group", "9", "picture-red.png"]).error.contains(
                "the loop has no group 9"))
        #expect(try library.run(["image", "Pictured"]).error.contains("give a picture file (or --remove)"))
    }

    @Test func hostilePicturesAreRefusedWithOneLineAndNothingChanges() throws {
        let library = try libraryWithFixtureLoop()
        let folder = Scratch.path("hostile-pictures")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let png = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("picture-red.png")))
        var huge = [UInt8](png)
        huge[16...23] = [0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30] // 30,000 × 30,000 in the header
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("picture-green.jpg")))
        let cases: [(String, Data, String)] = [
            ("notes.png", Data("just some text".utf8), "not a PNG, JPEG, WebP or GIF picture"),
            ("bomb.png", Data(huge), "30000 × 30000 pixels"),
            ("cut.jpg", jpeg.prefix(jpeg.count / 2), "cut short"),
        ]
        let before = try library.run(["show", "fixture", "--json"]).output
        for (name, bytes, message) in cases {
            try bytes.write(to: URL(fileURLWithPath: folder + "/" + name))
            let refused = try library.run(["image", "fixture", folder + "/" + name])
            #expect(refused.status != 0)
            let lines = refused.error.split(separator: "\n")
            #expect(
                lines.count == 1 && lines[0].hasPrefix("error: \(folder)/\(name): ") && lines[0].contains(message),
                "\(name): \(refused.error)")
        }
        #expect(try library.run(["show", "fixture", "--json"]).output == before, "the loop is as it was")
        #expect(!FileManager.default.fileExists(atPath: library.path + "/pictures"), "no picture was stored")
        // The same picture named by a text is refused before anything is stored.
        try "# image: bomb.png\n\nBonjour.\n".write(toFile: folder + "/text.txt", atomically: true, encoding: .utf8)
        let refused = try library.run(["new", "--text", folder + "/text.txt"])
        #expect(
            refused.status != 0 && refused.error.contains("bomb.png: the picture is 30000 × 30000 pixels"),
            "\(refused.error)")
        #expect((try library.json(["list"]) as? [Any])?.count == 1)
    }

    @Test func killingLoopImageAtEachStepLeavesALibraryThatChecksClean() throws {
        let library = try libraryWithFixtureLoop()
        for step in ["take.received", "audio.renamed"] {
            let run = try LoopProcess.run(
                ["image", "fixture", "picture-red.png"],
                environment: ["LOOP_LIBRARY": library.path, "LOOP_TEST_STOP_AT": step])
            #expect(run.killedBy == SIGKILL, "killed at \(step): \(run.error)")
            let doctor = try library.run(["doctor"])
            #expect(
                doctor.status == 0 && doctor.output.contains("0 pictures verified"),
                "after a kill at \(step): \(doctor.output)")
            let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
            #expect(shown["picture"] is NSNull, "the loop has no picture: the row never committed")
        }
        // What the kills left is a leftover or an orphan, which gc removes.
        #expect(try library.run(["gc"]).output.contains("removed"))
        #expect(try library.run(["image", "fixture", "picture-red.png"]).status == 0)
        #expect(try library.run(["doctor"]).output.contains("1 pictures verified"))
    }

    @Test func doctorFindsAMissingOrDamagedPicture() throws {
        let library = try libraryWithGroupPictures()
        let shown = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let groups = try #require(shown["groups"] as? [[String: Any]])
        let red = try #require((groups[0]["picture"] as? [String: Any])?["path"] as? String)
        let green = try #require((groups[1]["picture"] as? [String: Any])?["path"] as? String)
        try Data("not the picture".utf8).write(to: URL(fileURLWithPath: red))
        try FileManager.default.removeItem(atPath: green)
        let doctor = try library.run(["doctor"])
        #expect(doctor.status != 0)
        #expect(
            doctor.output.contains("\(red): damaged")
                && doctor.output.contains("\(green): missing (a picture of 'Fixture')"), "\(doctor.output)")
        #expect(doctor.output.contains("give the picture again with `loop image LOOP FILE`"), "\(doctor.output)")
    }

    @Test func bundlesCarryPicturesAndPicturelessOnesStayVersionOne() throws {
        let author = try libraryWithGroupPictures()
        #expect(try author.run(["image", "fixture", "--phrase", "4", "picture-blue.webp"]).status == 0)
        let bundle = Scratch.path("pictured", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let inspected = try #require(try author.json(["inspect", bundle]) as? [String: Any])
        #expect(inspected["version"] as? Int == 3, "\(inspected)")
        let learner = TestLibrary()
        let imported = try learner.run(["import", bundle])
        #expect(imported.status == 0, "\(imported.error)")
        let shown = try #require(try learner.json(["show", "fixture"]) as? [String: Any])
        let groups = try #require(shown["groups"] as? [[String: Any]])
        let pictures = groups.map { ($0["picture"] as? [String: Any])?["sha256"] as? String }
        let hashes = try ["picture-red.png", "picture-green.jpg", "picture-blue.webp"].map {
            try #require(try ContentAddress.sha256(ofFileAt: Fixture.path($0)))
        }
        #expect(pictures == [hashes[0], hashes[1]])
        let phrases = try #require(groups[1]["phrases"] as? [[String: Any]])
        #expect((phrases[0]["picture"] as? [String: Any])?["sha256"] as? String == hashes[2])
        #expect(try learner.run(["doctor"]).output.contains("3 pictures verified"))

        // Without pictures a bundle is the version older readers take.
        let plain = try libraryWithFixtureLoop()
        let plainBundle = Scratch.path("plain", extension: "loop")
        #expect(try plain.run(["export", "fixture", "-o", plainBundle]).status == 0)
        #expect((try plain.json(["inspect", plainBundle]) as? [String: Any])?["version"] as? Int == 1)
    }
}
