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
        let output = Pipe(), errors = Pipe()
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
        try "# title: Au café\n# language: fr\n# translation: en\n# tags: travel\n\nBonjour, madame. | Hello, madam.\nUn café, s'il vous plaît. | A coffee, please.\nMerci. | Thanks.\n\nOù est la gare, s'il vous plaît ? | Where is the station?\nÀ droite, puis tout droit. | Right, then straight on.\n"
            .write(toFile: text, atomically: true, encoding: .utf8)
        #expect(try library.run(["new", "--text", text, "--audio", "clean.flac"]).status == 0)
        let first = Scratch.path("first", extension: "apkg"), second = Scratch.path("second", extension: "apkg")
        let exported = try library.run(["export", "Au café", "--format", "anki", "-o", first])
        #expect(exported.status == 0 && exported.output.isEmpty, "\(exported.error)")

        let once = try importIntoAnki([first])
        let notes = try #require(once["notes"] as? [[String: Any]])
        #expect((once["logs"] as? [[String: Int]])?.first?["new"] == 5)
        #expect(notes.count == 5 && notes.allSatisfy { $0["noteType"] as? String == "LoopLearn phrase" && $0["cards"] as? Int == 1 })
        let fields = notes.compactMap { $0["fields"] as? [String: String] }.sorted { ($0["Number"] ?? "") < ($1["Number"] ?? "") }
        #expect(fields.map { $0["Text"] ?? "" } == ["Bonjour, madame.", "Un café, s'il vous plaît.", "Merci.", "Où est la gare, s'il vous plaît ?", "À droite, puis tout droit."])
        #expect(fields.map { $0["Translation"] ?? "" }.first == "Hello, madam." && fields.allSatisfy { $0["Loop"] == "Au café" })
        let media = try #require(once["media"] as? [String: Int])
        #expect(media.count == 5 && media.values.allSatisfy { $0 > 1000 }, "a clip per note: \(media)")
        #expect(fields.allSatisfy { field in media.keys.contains { field["Audio"] == "[sound:\($0)]" } }, "each note plays its own clip")
        #expect((once["decks"] as? [String])?.contains("Au café") == true)

        // The author fixes a translation and retitles the loop, and exports again, later.
        Thread.sleep(forTimeInterval: 1.1)
        #expect(try library.run(["edit", "Au café", "--title", "Au café (2)"]).status == 0)
        #expect(try library.run(["export", "Au café", "--format", "anki", "-o", second]).status == 0)
        let twice = try importIntoAnki([first, second])
        let logs = try #require(twice["logs"] as? [[String: Int]])
        #expect(logs.count == 2 && logs[1]["new"] == 0 && logs[1]["updated"] == 5, "the newer export updates the notes: \(logs)")
        let updated = try #require(twice["notes"] as? [[String: Any]])
        #expect(updated.count == 5, "nothing duplicated")
        #expect(updated.allSatisfy { ($0["fields"] as? [String: String])?["Loop"] == "Au café (2)" })
        #expect(Set(updated.compactMap { $0["guid"] as? String }) == Set(notes.compactMap { $0["guid"] as? String }))
    }
}
