import Foundation
import LoopLibraryAPI
import LoopLibraryClient
import LoopShare
import LoopTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Loop Library's limits on the open internet (quotas, uploads and connections at once),
/// what its operator sees of it (`/metrics`, the access log) and keeps tidy (`gc`), and
/// several servers as one Loop Library.
extension LibraryServerTests {
    /// Opens a connection and sends a publish's signed headers, declaring a body of `length`
    /// bytes, and no body yet.
    func signedPublishHead(_ server: TestServer, signer: RequestSigner, id: String, revision: Int, length: Int) throws
        -> RawConnection
    {
        let content = SignedRequest.Content(
            method: "POST", authority: "127.0.0.1:\(server.port)", path: LoopLibraryPaths.loops,
            timestamp: Int(Date().timeIntervalSince1970),
            nonce: Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) }),
            bodyLength: length, bodySHA256: String(repeating: "ab", count: 32), loopID: id, revision: revision)
        let headers = try LibraryClient.signatureHeaders(content, signer: signer)
        let connection = try RawConnection(port: server.port)
        try connection.send(
            "POST \(LoopLibraryPaths.loops) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/vnd.looplearn.loop+zip\r\n"
                + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "Content-Length: \(length)\r\n\r\n")
        return connection
    }

    /// Sends a publish's signed headers (declaring a body of `length` bytes) and no body, and
    /// returns what the server answers before it.
    func headersOnly(_ server: TestServer, signer: RequestSigner, id: String, revision: Int, length: Int) throws
        -> String
    {
        let connection = try signedPublishHead(server, signer: signer, id: id, revision: revision, length: length)
        // The head, then the body (which may come in a second packet).
        var answer = try connection.receive(timeout: 10)
        while !answer.isEmpty, !answer.hasSuffix("}") {
            let more = try connection.receive(timeout: 1)
            if more.isEmpty { break }
            answer += more
        }
        return answer
    }

    /// A key may list so many loops and publish so many bytes a day, and a new key gets a
    /// tenth of the bytes: a publish past them is refused (429) on its headers, and nothing
    /// is stored. An update of a loop the key lists takes no new loop.
    @Test(arguments: CatalogBackend.all)
    func aKeysQuotaRefusesAPublishOnItsHeadersAndANewKeyStartsSmall(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend, arguments: ["--loops-per-key", "1", "--daily-upload-per-key", "30"])
        let (author, _) = try publishedFixture(server)
        let stored = server.storedBlobs

        // A second loop from the same key: past its one loop.
        #expect(
            try author.run(["new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", "Second"]).status == 0)
        let second = try author.run(["publish", "second", "--to", server.address])
        #expect(
            second.status != 0
                && second.error.contains("may list at most 1 loops here, and this one lists 1: unpublish one first"),
            "\(second.error)")
        // An update of the loop it lists is no new loop.
        let (_, signer, id, revision) = try authorBundle(author, tag: "v2")
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)

        // A new key gets a tenth of the 30 MiB a day: 3 MiB, of which it has used some.
        let answer = try headersOnly(server, signer: signer, id: id, revision: revision + 1, length: 3 << 20)
        #expect(
            answer.hasPrefix("HTTP/1.1 429")
                && answer.contains("a key in its first 7 days may publish at most 3 MiB a day here"),
            "\(answer.prefix(400))")
        #expect(answer.lowercased().contains("retry-after: "), "and says when to try again")
        #expect(
            server.uploadsInProgress.isEmpty && server.storedBlobs.count == stored.count + 1,
            "nothing stored of the refused (the update's bundle only)")
        let metrics = String(decoding: try await http("GET", server.address + "/metrics").body, as: UTF8.self)
        #expect(
            metrics.contains(#"loop_library_quota_hits_total{quota="keyLoops"} 1"#)
                && metrics.contains(#"loop_library_quota_hits_total{quota="keyBytes"} 1"#), "\(metrics)")
    }

    /// Uploads received at once are capped: one more is answered 503 with Retry-After before
    /// its body, and the one under way completes.
    @Test func uploadsPastTheConcurrentCapAreAnswered503() async throws {
        let marker = Scratch.path("held")
        let server = try TestServer(
            .sqlite, arguments: ["--concurrent-uploads", "1"],
            environment: ["LOOP_TEST_STOP_AT": "publish.receiving:pause", "LOOP_TEST_STOP_FILE": marker])
        let author = try libraryWithFixtureLoop()
        #expect(try author.run(["identity"]).status == 0)
        // Everything the second upload needs is made before the first is held: while it is held
        // its client is waiting on the server, and a hold that lasted as long as making a library
        // under the whole suite's load once passed the client's 30 s limit for a crawling upload.
        let other = try libraryWithFixtureLoop()
        #expect(try other.run(["identity"]).status == 0)
        let (_, signer, id, revision) = try authorBundle(other, tag: "other")
        let publishing = Task { try author.run(["publish", "fixture", "--to", server.address]) }
        for _ in 0..<12_000 where !FileManager.default.fileExists(atPath: marker) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(FileManager.default.fileExists(atPath: marker), "the first upload is held half-way")

        let answer = try headersOnly(server, signer: signer, id: id, revision: revision, length: 100_000)
        #expect(
            answer.hasPrefix("HTTP/1.1 503") && answer.contains("as many uploads as it takes at once (1)")
                && answer.lowercased().contains("retry-after: 5"),
            "\(answer.prefix(400))")
        try FileManager.default.removeItem(atPath: marker)
        let published = try await publishing.value
        #expect(published.status == 0, "\(published.error)")
        #expect(try other.run(["publish", "fixture", "--to", server.address]).status == 0, "the slot is free again")
    }

    /// A body, like a head, has a minimum rate: an upload that trickles (a byte every 250 ms,
    /// below 512 bytes a second over the idle timeout spent waiting for it) has its connection
    /// closed, and its upload slot serves an honest publish. Eight such uploads used to hold
    /// every slot for as long as they liked.
    @Test func anUploadThatTricklesIsCutOffAndItsSlotFreed() async throws {
        let server = try TestServer(.sqlite, arguments: ["--concurrent-uploads", "1", "--idle-timeout", "2"])
        let trickler = try libraryWithFixtureLoop()
        let (_, signer, id, revision) = try authorBundle(trickler, tag: "trickle")
        let honest = try libraryWithFixtureLoop()
        #expect(try honest.run(["identity"]).status == 0)

        let connection = try signedPublishHead(server, signer: signer, id: id, revision: revision, length: 100_000)
        // A byte every 250 ms until the server closes the connection (with the rule, after about
        // 2 s of waiting; without it, never: the loop gives up after 2 minutes).
        var closed = false
        for _ in 0..<480 where !closed {
            do {
                try connection.send("x")
                closed = connection.isClosedByServer(timeout: 0.25)
            } catch {
                closed = true
            }
        }
        #expect(closed, "the trickling upload's connection is closed by the server")
        // Its handler gives the slot back as it unwinds: a publish meanwhile is told to come back.
        var published = try honest.run(["publish", "fixture", "--to", server.address])
        for _ in 0..<100 where published.error.contains("as many uploads as it takes at once") {
            try await Task.sleep(for: .milliseconds(100))
            published = try honest.run(["publish", "fixture", "--to", server.address])
        }
        #expect(published.status == 0, "its slot serves an honest publish: \(published.error)")
        let metrics = String(decoding: try await http("GET", server.address + "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"loop_library_refusals_total{cause="slowBody"} 1"#), "\(metrics)")
    }

    /// Connections past the cap are closed as they are accepted; honest clients are served
    /// again once some close. Started under a soft open-file limit of 64 (the limit is raised
    /// to the hard one), a server holds 100 idle connections and still answers.
    @Test func connectionsPastTheCapAreClosedAndALowFileLimitIsRaised() async throws {
        let capped = try TestServer(.sqlite, arguments: ["--max-connections", "8"])
        var held = try (0..<8).map { _ in try RawConnection(port: capped.port) }
        try await Task.sleep(for: .milliseconds(200))
        let extra = try RawConnection(port: capped.port)
        #expect(extra.isClosedByServer(timeout: 2), "the ninth connection is closed")
        #expect(held.allSatisfy { !$0.isClosedByServer(timeout: 0.05) }, "the eight stay open")
        held.removeLast().close()
        // The slot is free once the server has seen the close: asked until then (under the whole
        // suite's load that may take longer than any fixed wait).
        var served = false
        for _ in 0..<300 where !served {
            served = (try? await http("GET", capped.address + "/healthz").status) == 200
            if !served { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(served, "a slot freed serves an honest client")

        let lowLimit = try TestServer(.sqlite, softFileLimit: 64)
        let idle = try (0..<100).map { _ in try RawConnection(port: lowLimit.port) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(
            try await http("GET", lowLimit.address + "/healthz").status == 200,
            "served past the soft limit of 64 open files")
        #expect(idle.filter { $0.isClosedByServer(timeout: 0.01) }.isEmpty, "and the idle connections were accepted")
    }

    /// `/metrics` counts requests by route and status, refusals by cause, bytes sent; the
    /// access log is a line of JSON a request.
    @Test func metricsAndTheAccessLogShowWhatTheServerDid() async throws {
        let log = Scratch.path("access", extension: "log")
        let server = try TestServer(.sqlite, arguments: ["--access-log", log])
        let (author, _) = try publishedFixture(server)
        let id = try resolveID(author)
        #expect(try await http("GET", server.address + LoopLibraryPaths.bundle(id)).status == 200)
        #expect(try await http("GET", server.address + "/api/loops/nope").status == 404)
        let unsigned = try await http("POST", server.address + LoopLibraryPaths.loops, body: Data("x".utf8))
        #expect(unsigned.status == 401)
        let metrics = String(decoding: try await http("GET", server.address + "/metrics").body, as: UTF8.self)
        for line in [
            #"loop_library_refusals_total{cause="unauthorized"} 1"#,
            #"loop_library_refusals_total{cause="notFound"} 1"#,
            #"loop_library_publishes_total 1"#,
        ] {
            #expect(metrics.contains(line), "\(line) in \(metrics)")
        }
        #expect(
            metrics.contains(
                #"loop_library_requests_total{route="/api/loops/{ref}/bundle",method="GET",status="200"} 1"#),
            "\(metrics)")
        let sent = metrics.split(separator: "\n").first {
            $0.hasPrefix(#"loop_library_sent_bytes_total{route="/api/loops/{ref}/bundle"}"#)
        }
        #expect(
            sent.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 > 10_000 } == true,
            "the bundle's bytes: \(sent ?? "none")")
        #expect(metrics.contains("loop_library_request_duration_seconds_bucket"), "latencies as a histogram")

        try await Task.sleep(for: .milliseconds(100))
        let entries = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let refused = try #require(
            entries.first { $0["path"] as? String == LoopLibraryPaths.loops && $0["status"] as? Int == 401 })
        #expect(
            refused["cause"] as? String == "unauthorized" && refused["client"] as? String == "127.0.0.1"
                && refused["method"] as? String == "POST")
        let download = try #require(entries.first { $0["path"] as? String == LoopLibraryPaths.bundle(id) })
        #expect(
            download["completed"] as? Bool == true && (download["bytes"] as? Int ?? 0) > 10_000
                && download["time"] is String)
    }

    /// A page is kept once, whatever parameters no page reads come with it, and a kept page's
    /// key (what the request named) counts toward the cache's budget: 6,000 requests of
    /// `/?x<i>=<60 KB>` grew a server from 43 to 416 MB.
    @Test func parametersNoPageReadsMakeNoPageOfTheirOwnAndKeysCountTowardTheBudget() async throws {
        let server = try TestServer(.sqlite)
        _ = try publishedFixture(server)
        let filler = String(repeating: "0", count: 30_000)
        func cache() async throws -> (pages: Int, bytes: Int) {
            let metrics = String(decoding: try await http("GET", server.address + "/metrics").body, as: UTF8.self)
            func value(_ name: String) -> Int {
                let line = metrics.split(separator: "\n").first { $0.hasPrefix(name + #"{cache="pages"} "#) }
                return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? -1
            }
            return (value("loop_library_page_cache_pages"), value("loop_library_page_cache_bytes"))
        }
        for index in 0..<40 {
            #expect(try await http("GET", server.address + "/?x\(index)=\(filler)").status == 200)
        }
        #expect(try await cache().pages == 1, "the front page, once")
        // A parameter a page reads (an order it does not know is the newest first) names a page
        // of its own, its key counted.
        for index in 0..<20 {
            #expect(try await http("GET", server.address + "/?sort=\(index)\(filler)").status == 200)
        }
        let kept = try await cache()
        #expect(kept.pages == 21 && kept.bytes >= 20 * filler.utf8.count, "\(kept)")
    }

    /// `loop serve gc` removes the blobs no listed loop refers to (an unpublished loop's),
    /// once older than the grace period, and keeps the listed loops' and the young ones.
    @Test(arguments: CatalogBackend.all)
    func gcRemovesTheBlobsOfUnpublishedLoopsOnceOlderThanTheGracePeriod(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let (kept, _) = try publishedFixture(server)
        let keptBlobs = server.storedBlobs
        let gone = TestLibrary()
        #expect(
            try gone.run(["new", "--text", "phrases.txt", "--audio", "noisy-snr10.flac", "--title", "Gone"]).status == 0
        )
        #expect(try gone.run(["publish", "gone", "--to", server.address]).status == 0)
        let goneBlobs = server.storedBlobs.subtracting(keptBlobs)
        #expect(goneBlobs.count >= 2, "its bundle and its take")
        #expect(try gone.run(["unpublish", "gone", "--from", server.address]).status == 0)
        let operatorCommand = ["--data", server.data] + (server.database.map { ["--database", $0] } ?? [])
        func gc(_ arguments: [String]) throws -> [String: Int] {
            let run = try LoopProcess.run(["serve", "gc", "--json"] + arguments + operatorCommand)
            #expect(run.status == 0, "\(run.error)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Int])
        }
        #expect(try gc([])["removed"] == 0 && server.storedBlobs == keptBlobs.union(goneBlobs), "young blobs are kept")

        // Two days on: every blob is older than the grace period.
        let old = Date().addingTimeInterval(-2 * 86_400)
        for blob in server.storedBlobs {
            try FileManager.default.setAttributes(
                [.modificationDate: old], ofItemAtPath: server.blobsFolder + "/" + blob)
        }
        #expect(
            try gc(["--dry-run"])["removed"] == goneBlobs.count && server.storedBlobs == keptBlobs.union(goneBlobs),
            "a dry run removes nothing")
        let collected = try gc([])
        #expect(collected["removed"] == goneBlobs.count && (collected["removedBytes"] ?? 0) > 10_000, "\(collected)")
        #expect(server.storedBlobs == keptBlobs, "the unpublished loop's blobs are gone, the listed loop's kept")
        let learner = TestLibrary()
        #expect(
            try learner.run(["import", server.address + "/" + resolveID(kept)]).status == 0,
            "the listed loop still installs")
    }

    /// A server on PostgreSQL opens no more connections to it than `--database-connections`
    /// says, however many requests come at once (each held connection costs the server memory
    /// and PostgreSQL a backend), and answers every request; fewer than two (one listens for
    /// changes), or the option without a PostgreSQL catalog, is refused, saying what to give.
    @Test(arguments: CatalogBackend.all.filter { if case .postgres = $0 { true } else { false } })
    func aServerOpensNoMoreDatabaseConnectionsThanItIsAllowed(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend, arguments: ["--database-connections", "3"])
        _ = try publishedFixture(server)
        // Searches no one asked before, 48 at once: none is answered from what the server keeps.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<48 {
                group.addTask {
                    try await http("GET", server.address + LoopLibraryPaths.loops + "?q=fixture+w\(index)").status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 48 && statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        let open = try psql(
            try #require(server.database),
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        #expect(Int(open).map { (1...3).contains($0) } == true, "connections to the catalog's database: \(open)")

        for (arguments, said) in [
            (["--database", try #require(server.database), "--database-connections", "1"], "at least 2"),
            (["--database-connections", "4"], "give --database as well"),
        ] {
            let refused = try LoopProcess.run(["serve", "--data", Scratch.path("unused-data")] + arguments)
            #expect(
                refused.status != 0 && refused.error.contains("--database-connections")
                    && refused.error.contains(said),
                "\(arguments): \(refused.status) \(refused.error)")
        }
    }

    /// Two servers on one PostgreSQL database and one data folder are one Loop Library: a
    /// publish through one is on the other's pages as soon as PostgreSQL tells it, and two
    /// publishes of the same revision sent to both at once leave exactly one new revision.
    @Test(arguments: CatalogBackend.all.filter { if case .postgres = $0 { true } else { false } })
    func twoServersOnOneDatabaseAndFolderAreOneLoopLibrary(_ backend: CatalogBackend) async throws {
        // The first server holds its first update inside the catalog's transaction (see below).
        let marker = Scratch.path("held")
        let trace = Scratch.path("trace")
        let first = try TestServer(
            backend, environment: ["LOOP_TEST_STOP_AT": "publish.transaction:pause", "LOOP_TEST_STOP_FILE": marker])
        let second = try TestServer(sharingWith: first, environment: ["LOOP_TEST_TRACE": trace])
        let (author, link) = try publishedFixture(first)
        let id = try resolveID(author)
        let shortID = String(link.split(separator: "/").last ?? "")
        #expect(
            try await http("GET", second.address + "/" + shortID).status == 200,
            "published through the first, on the second's page")

        // An update through the second is on its own page at once, and on the first's (which
        // it had kept) as soon as PostgreSQL announces the change.
        #expect(try await http("GET", first.address + "/" + shortID).status == 200)
        #expect(try author.run(["edit", "fixture", "--title", "Fixture renamed"]).status == 0)
        #expect(try author.run(["publish", "fixture", "--to", second.address]).status == 0)
        func renamed(_ server: TestServer) async throws -> Bool {
            let page = try await http("GET", server.address + "/" + shortID)
            return page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("Fixture renamed")
        }
        #expect(try await renamed(second), "the publishing server's own page is new at once")
        #expect(try await eventually { try await renamed(first) }, "the other server's page is new")
        #expect(
            try await eventually {
                let detail = try await http("GET", first.address + LoopLibraryPaths.loop(id))
                return (detail.json?["loop"] as? [String: Any])?["revision"] as? Int == 2
            })
        #expect(
            try await http("GET", first.address + LoopLibraryPaths.bundle(id)).status == 200,
            "its bundle, stored by the second, served by the first")

        // The same revision through both: the first is held inside its transaction until the
        // second has arrived and been verified, then let go. One wins; the other gets 409.
        let (bundle, signer, _, revision) = try authorBundle(author, tag: "v3")
        func publish(through server: TestServer) async -> Int {
            do {
                _ = try await LibraryClient(server: server.address).publish(
                    bundle: bundle, loopID: id, revision: revision, signer: signer)
                return 200
            } catch {
                return error.status ?? -1
            }
        }
        let held = Task { await publish(through: first) }
        for _ in 0..<12_000 where !FileManager.default.fileExists(atPath: marker) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(FileManager.default.fileExists(atPath: marker), "the first server's publish is held in its transaction")
        let other = Task { await publish(through: second) }
        func verified() -> Bool {
            ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n").filter {
                $0 == "publish.verified"
            }.count >= 2
        }
        for _ in 0..<3_000 where !verified() { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(300)) // on to the catalog, where it waits its turn
        try FileManager.default.removeItem(atPath: marker)
        let results = [await held.value, await other.value]
        #expect(results.sorted() == [200, 409], "one wins, the other is told the revision is there: \(results)")
        for server in [first, second] {
            #expect(
                try await eventually {
                    let detail = try await http("GET", server.address + LoopLibraryPaths.loop(id))
                    return (detail.json?["loop"] as? [String: Any])?["revision"] as? Int == 3
                })
        }
    }

    /// A server on PostgreSQL is told of each change to the catalog (`LISTEN`), so it serves
    /// the pages it keeps without asking the database at each request, even while the database
    /// is held up; its own changes are on its pages at once, before they are announced; and a
    /// change made by hand (by another server, an operator) is on its pages once announced.
    @Test(arguments: CatalogBackend.all.filter { if case .postgres = $0 { true } else { false } })
    func aServerOnPostgreSQLIsToldOfChangesAndServesKeptPagesWithoutAsking(_ backend: CatalogBackend)
        async throws
    {
        // The server holds the first announcement it hears until the test lets it go.
        let held = Scratch.path("held")
        let server = try TestServer(
            backend, environment: ["LOOP_TEST_STOP_AT": "catalog.announced:pause", "LOOP_TEST_STOP_FILE": held])
        let (author, link) = try publishedFixture(server)
        let shortID = String(link.split(separator: "/").last ?? "")
        let database = try #require(server.database)
        func page() async throws -> String {
            let answer = try await http("GET", server.address + "/" + shortID, timeout: 20)
            #expect(answer.status == 200)
            return String(decoding: answer.body, as: UTF8.self)
        }
        #expect(try await page().contains("Fixture"))
        #expect(
            try await eventually { FileManager.default.fileExists(atPath: held) },
            "the publish was announced, and held")

        // Its own publish is on its page at once, though the announcement is held.
        #expect(try author.run(["edit", "fixture", "--title", "Fixture renamed"]).status == 0)
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
        #expect(try await page().contains("Fixture renamed"), "this server's own change, at once")

        // A session holds the stamp's table locked: reading it would wait until the end.
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        locker.arguments = [
            database, "-q", "-c", "BEGIN", "-c", "LOCK TABLE catalog_change IN ACCESS EXCLUSIVE MODE",
            "-c", "SELECT pg_sleep(300)",
        ]
        locker.environment = ProcessInfo.processInfo.environment.merging(["PGAPPNAME": "loop_test_lock"]) { $1 }
        locker.standardOutput = FileHandle.nullDevice
        locker.standardError = FileHandle.nullDevice
        try locker.run()
        // Its session ends when told to (a killed psql would leave it sleeping, the lock held).
        func unlock() throws {
            _ = try psql(
                database,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'loop_test_lock'")
            locker.waitUntilExit()
        }
        defer { try? unlock() }
        #expect(
            try await eventually {
                try psql(
                    database,
                    """
                    SELECT count(*) FROM pg_locks
                    WHERE relation = 'catalog_change'::regclass AND granted AND mode = 'AccessExclusiveLock'
                    """) == "1"
            }, "the lock is held")
        #expect(try await page().contains("Fixture renamed"), "the kept page, served while the stamp cannot be read")
        try unlock()

        // A change made by hand, not through this server: on the page once announced.
        _ = try psql(database, "UPDATE loop SET title = 'Changed by hand'")
        try FileManager.default.removeItem(atPath: held)
        #expect(try await eventually { try await page().contains("Changed by hand") }, "the change is on the page")
        #expect(server.stop() == 0)
    }
}
