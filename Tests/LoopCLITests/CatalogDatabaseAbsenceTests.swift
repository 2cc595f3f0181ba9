import Foundation
import LoopLibraryAPI
import LoopTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Loop Library whose PostgreSQL cannot be reached, on a PostgreSQL server of the test's own
/// (`Scripts/postgres`), stopped and started again: said at once in one line when the server
/// starts; while it serves, answered 503 with the reason (never a minute's wait, never 500);
/// served again once the database is back.
struct CatalogDatabaseAbsenceTests {
    static let script = URL(fileURLWithPath: Fixture.folder).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/postgres").path
    static let isInstalled =
        ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).isEmpty == false

    /// Runs `Scripts/postgres` with `arguments`: what it prints, trimmed. Spawned and waited
    /// for directly: Foundation's `Process.waitUntilExit()` does not return here once the
    /// script has started PostgreSQL in the background.
    @discardableResult
    func postgres(_ arguments: [String]) throws -> String {
        let printed = Scratch.path("postgres-script", extension: "out")
        let command = ([Self.script] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > '\(printed)'"
        let argv: [UnsafeMutablePointer<CChar>?] = [String](["/bin/bash", "-c", command]).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/bash", nil, nil, argv, environ) == 0 else {
            throw CLIFailure("cannot run Scripts/postgres")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        guard status == 0 else { throw CLIFailure("Scripts/postgres \(arguments) failed (\(status))") }
        return try String(contentsOfFile: printed, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: isInstalled, "PostgreSQL is not installed (Scripts/setup --test installs it)"))
    func aDatabaseThatCannotBeReachedIsSaidAtOnceAndTheLibraryServesAgainWhenItIsBack() async throws {
        let cluster = Scratch.path("postgres-cluster")
        let url = try postgres(["start", cluster])
        defer { _ = try? postgres(["stop", cluster]) }

        // Nothing listening, a database or a user that does not exist: one line, at once.
        var components = URLComponents(string: url)!
        components.path = "/nosuch"
        let missingDatabase = components.string!
        components.path = "/postgres"
        components.user = "nosuch"
        let missingUser = components.string!
        for (database, reason) in [
            ("postgres://loop@127.0.0.1:1/postgres", "cannot connect to PostgreSQL (Connection refused)"),
            (missingDatabase, "cannot connect to PostgreSQL (database \"nosuch\" does not exist)"),
            (missingUser, "cannot connect to PostgreSQL (role \"nosuch\" does not exist)"),
        ] {
            let started = Date()
            let refused = try LoopProcess.start([
                "serve", "--data", Scratch.path("absent-catalog"), "--database", database, "--listen", "127.0.0.1:0",
            ]).finish(limit: 60)
            #expect(refused.status == 1, "\(database): \(refused.status) \(refused.output)")
            #expect(refused.error.contains(reason), "\(database): \(refused.error)")
            #expect(refused.error.split(separator: "\n").count == 1, "one line: \(refused.error)")
            #expect(Date().timeIntervalSince(started) < 30, "not the pool's minute of retries")
        }

        let server = try TestServer(.postgres(admin: url))
        let author = try libraryWithFixtureLoop()
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
        #expect(try await http("GET", server.address + LoopLibraryPaths.loops).status == 200)

        try postgres(["stop", cluster])
        // Once the server has seen the database go (its listening connection closes at once),
        // every request that needs it is refused at once with the reason.
        var answer = try await http("GET", server.address + LoopLibraryPaths.loops)
        for _ in 0..<100 where answer.status != 503 {
            try await Task.sleep(for: .milliseconds(100))
            answer = try await http("GET", server.address + LoopLibraryPaths.loops)
        }
        #expect(answer.status == 503, "\(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        #expect(answer.headers["retry-after"] == "5")
        #expect(
            (answer.json?["error"] as? String)?.hasPrefix("the catalog's database cannot be reached (") == true,
            "\(answer.json ?? [:])")
        let started = Date()
        let front = try await http("GET", server.address + "/")
        #expect(front.status == 503 && Date().timeIntervalSince(started) < 30, "\(front.status)")
        #expect(try author.run(["edit", "fixture", "--title", "Fixture again"]).status == 0)
        let publish = try author.run(["publish", "fixture", "--to", server.address])
        #expect(
            publish.status != 0 && publish.error.contains("the catalog's database cannot be reached"),
            "\(publish.error)")
        #expect(server.process?.isRunning == true, "the server keeps running")

        // Back: served and published again, without a restart.
        try postgres(["resume", cluster])
        var back = try await http("GET", server.address + LoopLibraryPaths.loops)
        for _ in 0..<600 where back.status != 200 {
            try await Task.sleep(for: .milliseconds(100))
            back = try await http("GET", server.address + LoopLibraryPaths.loops)
        }
        #expect(back.status == 200)
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
    }
}
