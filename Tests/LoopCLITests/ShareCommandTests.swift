import Foundation
import LoopTestSupport
import Testing

struct ShareCommandTests {
    @Test func exportInspectImportBetweenTwoLibraries() throws {
        let author = try libraryWithFixtureLoop()
        let fingerprint = try author.run(["identity"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(fingerprint.split(separator: ":").count == 8)
        let bundle = Scratch.path("bundle", extension: "loop")
        let exported = try author.run(["export", "fixture", "-o", bundle])
        #expect(exported.status == 0 && exported.output.isEmpty, "\(exported.error)")
        let missingFolder = Scratch.path("missing-folder")
        let nowhere = missingFolder + "/x.loop"
        let refused = try author.run(["export", "fixture", "-o", nowhere])
        #expect(
            refused.status != 0
                && refused.error
                    == "error: \(nowhere): cannot create the file: there is no folder \(missingFolder)\n",
            "\(refused.error)")

        let inspected = try #require(try LoopProcess.run(["inspect", bundle, "--json"]).output.data(using: .utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: inspected) as? [String: Any])
        #expect(
            object["signer"] as? String == fingerprint && object["verified"] as? Bool == true
                && object["version"] as? Int == 1)

        let learner = TestLibrary()
        let dry = try learner.run(["import", bundle, "--dry-run"])
        #expect(dry.output.hasPrefix("Would add 'Fixture'"))
        #expect(((try learner.json(["list"]) as? [Any]) ?? [1]).isEmpty)
        let imported = try learner.run(["import", bundle])
        #expect(
            imported.status == 0
                && imported.output.hasPrefix("Added 'Fixture' (")
                && imported.output.hasSuffix("), signed by key \(fingerprint)\n"), "\(imported.output)")
        #expect(try learner.run(["doctor"]).status == 0)
        #expect(
            try learner.run(["study", "fixture", "--once", "--output", "null"]).status == 0,
            "an imported loop can be studied")
    }

    @Test func aBundleSaysWhoSignedItByTheNameTheAuthorGave() throws {
        let author = try libraryWithFixtureLoop()
        #expect(try author.run(["identity", "--name", "Ana Test"]).status == 0)
        let fingerprint = try #require(
            try author.run(["identity"]).output.split(separator: " ").first.map(String.init))
        let bundle = Scratch.path("named", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let inspected = try LoopProcess.run(["inspect", bundle])
        #expect(inspected.output.contains("signed by Ana Test (key \(fingerprint))"), "\(inspected.output)")
        let object = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try LoopProcess.run(["inspect", bundle, "--json"]).output.utf8))
                as? [String: Any])
        #expect(object["signerName"] as? String == "Ana Test" && object["version"] as? Int == 4)
        let imported = try TestLibrary().run(["import", bundle])
        #expect(
            imported.status == 0 && imported.output.hasSuffix(", signed by Ana Test (key \(fingerprint))\n"),
            "\(imported.output) \(imported.error)")
    }

    @Test func aTamperedBundleIsRefusedWithOneLine() throws {
        let author = try libraryWithFixtureLoop()
        let bundle = Scratch.path("bundle", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        bytes[bytes.count - 100] ^= 0xFF // inside the zip's central directory
        try bytes.write(to: URL(fileURLWithPath: bundle))
        let learner = TestLibrary()
        let result = try learner.run(["import", bundle])
        #expect(result.status != 0)
        #expect(
            result.error.hasPrefix("error: \(bundle):") && result.error.split(separator: "\n").count == 1,
            "\(result.error)")
    }

    @Test func publishWritesTheNewestRevisionIntoAFolderThatImports() throws {
        let author = try libraryWithFixtureLoop()
        let shared = Scratch.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        #expect(try author.run(["publish", "fixture", "--to", shared]).status == 0)
        #expect(try author.run(["edit", "fixture", "--tag", "v2"]).status == 0)
        #expect(try author.run(["publish", "fixture", "--to", shared]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared).filter { $0.hasSuffix(".loop") }.count == 1)
        let learner = TestLibrary()
        #expect(try learner.run(["import", shared]).status == 0)
        let loops = try #require(try learner.json(["list"]) as? [[String: Any]])
        #expect(loops.first?["tags"] as? [String] == ["v2"])
        let republished = try learner.run(["publish", "fixture", "--to", shared])
        #expect(
            republished.status != 0 && republished.error.contains("only its author can publish")
                && republished.error.contains("; `loop export LOOP -o FILE` shares a copy"))
    }

    @Test func refusalsNameTheOptionThatGoesOnOnTheCommandLine() throws {
        // The libraries say what is wrong; the command line adds which of its options helps.
        let author = try libraryWithFixtureLoop()
        let bundle = Scratch.path("bundle", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let learner = TestLibrary()
        #expect(try learner.run(["import", bundle]).status == 0)
        #expect(try learner.run(["edit", "fixture", "--title", "My notes"]).status == 0)
        #expect(try author.run(["edit", "fixture", "--tag", "v2"]).status == 0)
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let edited = try learner.run(["import", bundle])
        #expect(
            edited.error.contains("edited here")
                && edited.error.contains("; `loop import SOURCE --as-copy` installs it as a new loop")
                && edited.error.contains("`loop import SOURCE --force`"), "\(edited.error)")
    }

    /// A server's address given without its scheme is not taken for a folder or a file: the
    /// command is refused with the address it most likely means, and nothing is written.
    @Test func anAddressWithoutItsSchemeIsRefusedWithTheOneMeant() throws {
        let library = try libraryWithFixtureLoop()
        let folder = LoopProcess.fixtures // where the command runs
        let published = try library.run(["publish", "fixture", "--to", "localhost:8080"])
        #expect(
            published.status != 0 && published.error.contains("did you mean http://localhost:8080?"),
            "\(published.error)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/localhost:8080"), "no folder made")
        let browsed = try library.run(["browse", "--from", "loops.example.org"])
        #expect(
            browsed.status != 0 && browsed.error.contains("did you mean https://loops.example.org?"), "\(browsed.error)"
        )
        let imported = try library.run(["import", "127.0.0.1:8040/9ddbb9"])
        #expect(
            imported.status != 0 && imported.error.contains("did you mean http://127.0.0.1:8040/9ddbb9?"),
            "\(imported.error)")
        // A folder whose name looks like a domain is still a folder.
        let named = Scratch.path("host", extension: "org")
        try FileManager.default.createDirectory(atPath: named, withIntermediateDirectories: true)
        #expect(try library.run(["publish", "fixture", "--to", named]).status == 0)
        #expect(
            ((try? FileManager.default.contentsOfDirectory(atPath: named)) ?? []).contains { $0.hasSuffix(".loop") })
    }

    @Test func theIdentityBacksUpAndRestores() throws {
        let first = TestLibrary()
        let second = TestLibrary()
        let fingerprint = try first.run(["identity"]).output
        let backup = Scratch.path("key")
        #expect(try first.run(["identity", "--export", backup]).status == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int) == 0o600)
        #expect(try second.run(["identity", "--import", backup]).status == 0)
        #expect(try second.run(["identity"]).output == fingerprint)
    }
}
