import Foundation
import LoopTestSupport
import Testing

/// Imports racing other processes on the same library: the sharing rules are judged again where
/// the import is written, so what another process did meanwhile counts.
struct ImportRaceTests {
    /// Starts `loop import BUNDLE` into `library`, held just before it writes (its rules already
    /// judged once, its audio stored); returns it and the file that holds it.
    func heldImport(_ bundle: String, into library: TestLibrary) throws -> (LoopProcess.Running, String) {
        let marker = Scratch.path("held")
        let running = try LoopProcess.start(
            ["import", bundle],
            environment: [
                "LOOP_LIBRARY": library.path, "LOOP_TEST_STOP_AT": "import.before-commit:pause",
                "LOOP_TEST_STOP_FILE": marker,
            ])
        for _ in 0..<6_000 where !FileManager.default.fileExists(atPath: marker) { usleep(10_000) }
        #expect(FileManager.default.fileExists(atPath: marker), "the import reached the step before its write")
        return (running, marker)
    }

    @Test func anEditMadeWhileAnUpdateIsImportedIsNotOverwritten() throws {
        let author = try libraryWithFixtureLoop()
        let first = Scratch.path("first", extension: "loop")
        let second = Scratch.path("second", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", first]).status == 0)
        let learner = TestLibrary()
        #expect(try learner.run(["import", first]).status == 0)
        #expect(try author.run(["edit", "fixture", "--tag", "v2"]).status == 0)
        #expect(try author.run(["export", "fixture", "-o", second]).status == 0)

        // The update is judged (not edited here: an update) and held; meanwhile the learner edits.
        let (importing, marker) = try heldImport(second, into: learner)
        #expect(try learner.run(["edit", "fixture", "--title", "My notes"]).status == 0)
        try FileManager.default.removeItem(atPath: marker)
        let imported = importing.finish(limit: 60)
        #expect(
            imported.status != 0 && imported.error.contains("was edited here since it was imported"),
            "\(imported.error)")

        let loops = try #require(try learner.json(["list"]) as? [[String: Any]])
        #expect(
            loops.count == 1 && loops.first?["title"] as? String == "My notes"
                && (loops.first?["tags"] as? [String])?.contains("v2") == false,
            "the learner's edit stands: \(loops)")
        #expect(try learner.run(["doctor"]).status == 0)
    }

    @Test func twoIdenticalImportsAtOnceBothSucceedAndAddTheLoopOnce() throws {
        let author = try libraryWithFixtureLoop()
        let bundle = Scratch.path("same", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let learner = TestLibrary()
        #expect(try learner.run(["list"]).status == 0)

        // Both judge the loop new and hold before writing; let go, one adds it and the other
        // finds it there at the same revision.
        let (one, oneMarker) = try heldImport(bundle, into: learner)
        let (two, twoMarker) = try heldImport(bundle, into: learner)
        try FileManager.default.removeItem(atPath: oneMarker)
        try FileManager.default.removeItem(atPath: twoMarker)
        let results = [one.finish(limit: 60), two.finish(limit: 60)]
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.error))")
        #expect(results.filter { $0.output.contains("Added 'Fixture'") }.count == 1, "\(results.map(\.output))")
        #expect(((try learner.json(["list"]) as? [Any]) ?? []).count == 1)
        let checked = try learner.run(["doctor"])
        #expect(
            checked.status == 0 && checked.output.hasPrefix("ok: 1 loops, 5 phrases, 1 audio files"),
            "\(checked.output)")
    }
}
