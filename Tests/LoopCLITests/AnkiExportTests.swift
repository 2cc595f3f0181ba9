import Foundation
import LoopTestSupport
import Testing

/// `loop export --format anki`, checked with Anki's own library: a fresh collection imports the
/// package; a newer export of the edited loop updates the notes and duplicates none.
/// Needs the Python of a virtual environment with PyPI's `anki` (Scripts/test makes one and
/// names it in LOOP_TEST_ANKI_PYTHON).
struct AnkiExportTests {
    static let python = ProcessInfo.processInfo.environment["LOOP_TEST_ANKI_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }

    func importIntoAnki(_ packages: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python!)
        process.arguments = [Fixture.folder + "/../Anki/import_packages.py"] + packages
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(failure)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(failure)")
    }

    @Test(.enabled(if: python != nil, "set LOOP_TEST_ANKI_PYTHON to a Python with PyPI's anki (Scripts/test does)"))
    func ankiImportsTheDeckAndANewerExportUpdatesItsNotes() throws {
        let library = TestLibrary()
        let text = Scratch.path("lesson", extension: "txt")
        try
            "# title: Au café\n# language: fr\n# translation: en\n# tags: travel\n\nBonjour, madame. | Hello, madam.\nUn café, s'il vous plaît. | A coffee, please.\nMerci. | Thanks.\n\nOù est la gare, s'il vous plaît ? | Where is the station?\nÀ droite, puis tout droit. | Right, then straight on.\n"
            .write(toFile: text, atomically: true, encoding: .utf8)
        #expect(try library.run(["new", "--text", text, "--audio", "clean.flac"]).status == 0)
        // Pictures: the loop's (for group 1) and group 2's own.
        #expect(try library.run(["image", "Au café", "picture-red.png"]).status == 0)
        #expect(try library.run(["image", "Au café", "--group", "2", "picture-green.jpg"]).status == 0)
        let first = Scratch.path("first", extension: "apkg")
        let second = Scratch.path("second", extension: "apkg")
        let exported = try library.run(["export", "Au café", "--format", "anki", "-o", first])
        #expect(exported.status == 0 && exported.output.isEmpty, "\(exported.error)")

        let once = try importIntoAnki([first])
        let notes = try #require(once["notes"] as? [[String: Any]])
        #expect((once["logs"] as? [[String: Int]])?.first?["new"] == 5)
        #expect(
            notes.count == 5
                && notes.allSatisfy { $0["noteType"] as? String == "LoopLearn phrase" && $0["cards"] as? Int == 1 })
        let fields = notes.compactMap { $0["fields"] as? [String: String] }.sorted {
            ($0["Number"] ?? "") < ($1["Number"] ?? "")
        }
        #expect(
            fields.map { $0["Text"] ?? "" } == [
                "Bonjour, madame.", "Un café, s'il vous plaît.", "Merci.", "Où est la gare, s'il vous plaît ?",
                "À droite, puis tout droit.",
            ])
        #expect(
            fields.map { $0["Translation"] ?? "" }.first == "Hello, madam."
                && fields.allSatisfy { $0["Loop"] == "Au café" })
        let media = try #require(once["media"] as? [String: Int])
        #expect(
            media.count == 7 && media.values.allSatisfy { $0 > 100 }, "a clip per note and the two pictures: \(media)")
        #expect(
            fields.allSatisfy { field in media.keys.contains { field["Audio"] == "[sound:\($0)]" } },
            "each note plays its own clip")
        // Each note shows its group's picture, the same file for the notes that share it.
        let pictures = fields.map { field in media.keys.first { field["Picture"] == "<img src=\"\($0)\">" } }
        #expect(
            pictures.allSatisfy { $0 != nil } && Set(pictures.prefix(3)).count == 1
                && Set(pictures.suffix(2)).count == 1 && pictures[0] != pictures[3],
            "group 1 shows the loop's picture, group 2 its own: \(fields.map { $0["Picture"] ?? "" })")
        #expect(pictures[0]?.hasSuffix(".png") == true && pictures[3]?.hasSuffix(".jpg") == true)
        #expect((once["decks"] as? [String])?.contains("Au café") == true)

        // The author fixes a translation and retitles the loop, and exports again, later.
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try library.run(["edit", "Au café", "--title", "Au café (2)"]).status == 0)
        #expect(try library.run(["export", "Au café", "--format", "anki", "-o", second]).status == 0)
        let twice = try importIntoAnki([first, second])
        let logs = try #require(twice["logs"] as? [[String: Int]])
        #expect(
            logs.count == 2 && logs[1]["new"] == 0 && logs[1]["updated"] == 5,
            "the newer export updates the notes: \(logs)")
        let updated = try #require(twice["notes"] as? [[String: Any]])
        #expect(updated.count == 5, "nothing duplicated")
        #expect(updated.allSatisfy { ($0["fields"] as? [String: String])?["Loop"] == "Au café (2)" })
        #expect(Set(updated.compactMap { $0["guid"] as? String }) == Set(notes.compactMap { $0["guid"] as? String }))
    }

    /// A translation or a text that writes `[sound:...]` names no media in the deck: the only
    /// sound a card plays is its own clip, which the package carries.
    @Test(.enabled(if: python != nil, "set LOOP_TEST_ANKI_PYTHON to a Python with PyPI's anki (Scripts/test does)"))
    func aSoundTagInTheTextIsTextNotMedia() throws {
        let library = TestLibrary()
        let text = Scratch.path("hostile-anki", extension: "txt")
        try """
        # title: Sound [sound:title.mp3]
        # language: fr

        Bonjour, madame. | [sound:../../etc/passwd]
        Un café, s'il vous plaît. [sound:x.mp3]
        Merci.

        Où est la gare, s'il vous plaît ?
        À droite, puis tout droit.
        """.write(toFile: text, atomically: true, encoding: .utf8)
        #expect(try library.run(["new", "--text", text, "--audio", "clean.flac"]).status == 0)
        let package = Scratch.path("hostile", extension: "apkg")
        let exported = try library.run(["export", "sound", "--format", "anki", "-o", package])
        #expect(exported.status == 0, "\(exported.error)")
        let imported = try importIntoAnki([package])
        let fields = try #require(imported["notes"] as? [[String: Any]]).compactMap {
            $0["fields"] as? [String: String]
        }
        #expect(fields.count == 5)
        for field in fields {
            for name in ["Text", "Translation", "Loop"] {
                #expect(field[name]?.contains("[sound:") == false, "\(name): \(field[name] ?? "")")
            }
        }
        #expect(fields.contains { $0["Translation"] == "&#91;sound:../../etc/passwd&#93;" })
    }
}
