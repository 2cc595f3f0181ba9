import Crypto
import Foundation
import LoopLibraryAPI
import LoopLibraryClient
import LoopShare
import LoopStore
import LoopTestSupport
import Testing

@testable import LoopReports
@testable import LoopTerminal

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import LoopFoundation
    import LoopModel
#endif

/// Where a test server keeps its catalog: SQLite in its data folder, or a database of its own on
/// the PostgreSQL server `LOOP_TEST_POSTGRES_URL` names (`Scripts/test` starts one).
enum CatalogBackend: Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres(admin: String)

    /// SQLite, and PostgreSQL when `LOOP_TEST_POSTGRES_URL` names a server. Without one, the
    /// suite says so once, and under CI (`CI=true`) ``postgresURL`` makes a test fail.
    static let all: [CatalogBackend] = {
        guard let url = postgresURL else {
            FileHandle.standardError.write(
                Data(
                    """
                    note: the Loop Library tests run on SQLite only: LOOP_TEST_POSTGRES_URL is not set. \
                    To test PostgreSQL as well, run `bash Scripts/test`, or start a server with \
                    `bash Scripts/postgres start DIR` and export the URL it prints as LOOP_TEST_POSTGRES_URL.

                    """.utf8))
            return [.sqlite]
        }
        return [.sqlite, .postgres(admin: url)]
    }()

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["LOOP_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var testDescription: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }

    /// A new, empty database for one test: its URL (nil for SQLite).
    func newDatabase() throws -> String? {
        guard case .postgres(let admin) = self else { return nil }
        let name = "loop_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        _ = try psql(admin, "CREATE DATABASE \(name)")
        var components = URLComponents(string: admin)!
        components.path = "/" + name
        return components.string!
    }
}

/// Runs `sql` with `psql` on `database`: its output, trimmed.
func psql(_ database: String, _ sql: String) throws -> String {
    try toolOutput("/usr/bin/psql", [database, "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql])
}

/// Runs `sql` with `sqlite3` on the SQLite file `database`: its output, trimmed.
func sqlite3(_ database: String, _ sql: String) throws -> String {
    try toolOutput("/usr/bin/sqlite3", [database, sql])
}

/// What `tool` run with `arguments` prints, trimmed; it must exit with 0.
private func toolOutput(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CLIFailure("\(tool) failed: \(arguments.joined(separator: " "))")
    }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

struct CLIFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A `loop-server` process on a free port of 127.0.0.1, with its data folder (and database).
final class TestServer: @unchecked Sendable {
    let data: String
    let database: String?
    let extraArguments: [String]
    /// The soft limit on open files the server is started with (as `ulimit -Sn`), if any.
    var softFileLimit: Int?
    private(set) var process: Process?
    private(set) var port = 0
    private var log = Pipe()

    var address: String { "http://127.0.0.1:\(port)" }
    var blobsFolder: String { data + "/blobs" }

    static let executable = LoopProcess.executable.deletingLastPathComponent().appendingPathComponent("loop-server")

    /// `preparing` is given the data folder and the database (nil: SQLite) before the server
    /// first starts: a catalog made by an earlier version, say.
    init(
        _ backend: CatalogBackend, arguments: [String] = [], environment: [String: String] = [:],
        softFileLimit: Int? = nil, preparing: (String, String?) throws -> Void = { _, _ in }
    ) throws {
        data = Scratch.path("server-data")
        database = try backend.newDatabase()
        extraArguments = arguments
        self.softFileLimit = softFileLimit
        try preparing(data, database)
        try start(environment: environment)
    }

    /// A second server of the same Loop Library: `other`'s data folder and database.
    init(sharingWith other: TestServer, arguments: [String] = [], environment: [String: String] = [:]) throws {
        data = other.data
        database = other.database
        extraArguments = arguments
        try start(environment: environment)
    }

    /// Starts the server (again, on the same data), and waits for it to listen.
    func start(environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments =
            ["serve", "--data", data, "--listen", "127.0.0.1:0", "--quiet"]
            + (database.map { ["--database", $0] } ?? []) + extraArguments
        if let softFileLimit {
            process.arguments = ["--nofile=\(softFileLimit):", "--", Self.executable.path] + (process.arguments ?? [])
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        }
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe()
        log = Pipe()
        process.standardOutput = output
        process.standardError = log
        try process.run()
        self.process = process
        // "Loop Library at http://127.0.0.1:PORT/ (...)": the first line, once it listens.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw CLIFailure(
                    "loop-server ended before listening: \(String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))"
                )
            }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression),
            let found = Int(text[range].dropFirst("127.0.0.1:".count).dropLast())
        else { throw CLIFailure("no address in: \(text)") }
        port = found
    }

    /// SIGTERM, as an operator stops it: returns its exit status.
    @discardableResult
    func stop() -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL: a crash.
    func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func waitForExit() -> Process.TerminationReason? {
        process?.waitUntilExit()
        return process?.terminationReason
    }

    deinit { kill() }

    /// Uploads in progress (the files of a publish not yet done).
    var uploadsInProgress: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: data + "/incoming")) ?? []).filter {
            $0.hasPrefix("upload-")
        }
    }

    /// Every blob file stored.
    var storedBlobs: Set<String> {
        let files = FileManager.default.enumerator(atPath: blobsFolder)?.compactMap { $0 as? String } ?? []
        return Set(files.filter { !$0.hasPrefix("incoming") && ($0.hasSuffix(".loop") || $0.hasSuffix(".flac")) })
    }
}

/// A plain HTTP exchange with the server.
struct HTTPAnswer {
    var status: Int
    var headers: [String: String]
    var body: Data
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
}

func http(
    _ method: String = "GET", _ url: String, headers: [String: String] = [:], body: Data? = nil,
    timeout: TimeInterval = 60
) async throws -> HTTPAnswer {
    var request = URLRequest(url: URL(string: url)!, timeoutInterval: timeout)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let (data, response) = try await URLSession.shared.data(for: request)
    let answer = response as! HTTPURLResponse
    var fields: [String: String] = [:]
    for (name, value) in answer.allHeaderFields {
        fields[String(describing: name).lowercased()] = String(describing: value)
    }
    return HTTPAnswer(status: answer.statusCode, headers: fields, body: data)
}

/// Whether `check` holds, asked again every 20 ms for up to `seconds`: for what another process
/// is told (a change PostgreSQL announces to a server) rather than what is true at once.
func eventually(within seconds: Double = 30, _ check: () async throws -> Bool) async throws -> Bool {
    let end = Date().addingTimeInterval(seconds)
    repeat {
        if try await check() { return true }
        try await Task.sleep(for: .milliseconds(20))
    } while Date() < end
    return try await check()
}

/// The Loop Library, end to end: `loop-server` on each catalog backend, driven by the `loop`
/// commands authors and learners type.
@Suite(.serialized)
struct LibraryServerTests {
    /// CI runs every Loop Library test on PostgreSQL too: a CI without it fails rather than
    /// passing on SQLite alone.
    @Test func postgreSQLIsTestedUnderCI() {
        _ = CatalogBackend.all
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(
                CatalogBackend.postgresURL != nil,
                "CI=true, but LOOP_TEST_POSTGRES_URL is not set: the Loop Library tests would skip PostgreSQL")
        }
    }

    /// A publish killed once its bundle is written leaves nothing in the system's temporary
    /// folder: its work is in the library, where `gc` removes it (and never while it is sent).
    @Test func aPublishKilledMidwayLeavesItsWorkWhereGCRemovesIt() throws {
        let server = try TestServer(.sqlite)
        let author = try libraryWithFixtureLoop()
        let temporary = Scratch.path("publish-temporary")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        // Killed while its work folder is in use, and once the bundle is written.
        for stop in ["bundle.takes-written", "publish.written"] {
            let killed = try LoopProcess.run(
                ["publish", "fixture", "--to", server.address],
                environment: ["LOOP_LIBRARY": author.path, "LOOP_TEST_STOP_AT": stop, "TMPDIR": temporary])
            #expect(killed.killedBy == SIGKILL, "\(stop): \(killed.status): \(killed.error)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [], "\(stop)")
            let incoming = author.path + "/audio/.incoming"
            #expect(try FileManager.default.contentsOfDirectory(atPath: incoming).count >= 1, "\(stop): in the library")
            #expect(try author.run(["gc"]).status == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: incoming) == [], "\(stop)")
            #expect(try author.run(["doctor"]).status == 0)
        }
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
    }

    /// The fixture loop in an author's library, published to `server`: the author, its link.
    func publishedFixture(_ server: TestServer) throws -> (TestLibrary, String) {
        let author = try libraryWithFixtureLoop()
        #expect(try author.run(["identity", "--name", "Élodie B"]).status == 0)
        let published = try author.run(["publish", "fixture", "--to", server.address])
        #expect(published.status == 0, "\(published.error)")
        let link = published.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            link.hasPrefix(server.address + "/") && link.count == server.address.count + 7,
            "a short preview link: \(link)")
        return (author, link)
    }

    @Test(arguments: CatalogBackend.all)
    func publishInstallStudyUpdateKeepsProgress(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let (author, link) = try publishedFixture(server)

        let learner = TestLibrary()
        let installed = try learner.run(["import", link])
        #expect(installed.status == 0 && installed.output.contains("Added 'Fixture'"), "\(installed.error)")
        #expect(try learner.run(["study", "fixture", "--once", "--output", "null"]).status == 0)
        let progress = try learner.run(["stats", "fixture", "--json"]).output
        #expect(progress.contains(#""repetitions":1"#))

        // Nothing new: the server answers 304 to the ETag the learner has, and nothing changes.
        let unchanged = try learner.run(["update", "--json"])
        #expect(
            unchanged.status == 0 && unchanged.output.contains(#""status":"unchanged""#),
            "\(unchanged.output) \(unchanged.error)")
        let nothingNew = try learner.run(["update"])
        #expect(nothingNew.output == "Nothing new: 'Fixture' is up to date\n", "said, not silent")
        #expect(
            try TestLibrary().run(["update"]).output
                == "Nothing to update: no loop here came from a Loop Library (`loop import LINK` installs one)\n")

        // The author fixes a phrase and tags the loop, and publishes again: revision 2.
        #expect(try author.run(["edit", "fixture", "--tag", "gare"]).status == 0)
        let again = try author.run(["publish", "fixture", "--to", server.address, "--json"])
        let result = try #require(
            try JSONSerialization.jsonObject(with: Data(again.output.utf8)) as? [String: Any], "\(again.error)")
        #expect(
            result["revision"] as? Int == 2 && result["previousRevision"] as? Int == 1
                && result["link"] as? String == link)

        let updated = try learner.run(["update"])
        #expect(
            updated.status == 0 && updated.output == "Updated 'Fixture' from revision 1 to 2\n",
            "\(updated.output) \(updated.error)")
        let loops = try #require(try learner.json(["list"]) as? [[String: Any]])
        #expect(loops.first?["tags"] as? [String] == ["gare"] && loops.first?["revision"] as? Int == 2)
        #expect(
            try learner.run(["stats", "fixture", "--json"]).output == progress, "study progress survives the update")
        #expect(try learner.run(["doctor"]).status == 0)

        // A learner's own edit is not overwritten by the next revision, unless forced.
        #expect(try learner.run(["edit", "fixture", "--tag", "mine"]).status == 0)
        #expect(try author.run(["edit", "fixture", "--tag", "v3"]).status == 0)
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
        let refused = try learner.run(["update"])
        #expect(
            refused.status != 0 && refused.error.contains("was edited here since it was imported"), "\(refused.error)")
        #expect(try learner.run(["update", "fixture", "--force"]).output == "Updated 'Fixture' from revision 2 to 3\n")
        #expect(server.stop() == 0, "SIGTERM ends the server cleanly")
    }

    @Test(arguments: CatalogBackend.all)
    func onlyTheAuthorPublishesAndAStaleRevisionIsRefused(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let (author, link) = try publishedFixture(server)

        // The same revision again: 409, one line.
        let stale = try author.run(["publish", "fixture", "--to", server.address])
        #expect(
            stale.status != 0
                && stale.error
                    == "error: the Loop Library has revision 1 of 'Fixture' already; this is revision 1: edit the loop to make a newer one\n",
            "\(stale.error)")

        // Another key signs the same loop id: 403 with the server's one line, and the author's
        // revision still serves.
        let id = try resolveID(author)
        let detail = try LibraryStore(at: author.path, access: .readOnly).loop(id: id)
        let intruder = try AuthorIdentity.loadOrCreate(at: Scratch.path("intruder") + "/ed25519.key")
        let forged = Scratch.path("forged", extension: "loop")
        try BundleWriter(identity: intruder).write([detail], to: forged)
        let client = try LibraryClient(server: server.address)
        let signer = RequestSigner(publicKey: intruder.publicKey, authorName: nil) { try intruder.sign($0) }
        await #expect(
            throws: ClientError(
                .forbidden,
                "loop \(id) belongs to another author: only its author can publish an update (publish it as a copy to share your own version)",
                status: 403)
        ) {
            _ = try await client.publish(bundle: forged, loopID: id, revision: detail.summary.revision, signer: signer)
        }
        let served = try await http("GET", server.address + "/api/loops/" + id)
        #expect(served.status == 200 && (served.json?["loop"] as? [String: Any])?["revision"] as? Int == 1)

        // A learner cannot publish the author's loop (refused here, before any upload);
        // --as-copy publishes the learner's own copy, under a new id and link.
        let learner = TestLibrary()
        #expect(try learner.run(["import", link]).status == 0)
        let notTheirs = try learner.run(["publish", "fixture", "--to", server.address])
        #expect(notTheirs.status != 0 && notTheirs.error.contains("only its author can publish this loop"))
        let copy = try learner.run(["publish", "fixture", "--to", server.address, "--as-copy"])
        let copyLink = copy.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(copy.status == 0 && copyLink.hasPrefix(server.address + "/") && copyLink != link, "\(copy.error)")
        #expect((try learner.json(["list"]) as? [Any])?.count == 2, "the copy is a loop of the learner's own")

        // The author's name, from another key: 409.
        #expect(try learner.run(["identity", "--name", "Élodie B"]).status == 0)
        let copyID = try #require(
            (try learner.json(["list"]) as? [[String: Any]])?.compactMap { $0["id"] as? String }.first { $0 != id })
        #expect(try learner.run(["edit", copyID, "--tag", "x"]).status == 0)
        let taken = try learner.run(["publish", copyID, "--to", server.address])
        #expect(
            taken.status != 0 && taken.error == "error: the name 'Élodie B' belongs to another author\n",
            "\(taken.error)")
    }

    @Test(arguments: CatalogBackend.all)
    func browseAndSearchIgnoreCaseAndAccents(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let author = TestLibrary()
        #expect(
            try author.run([
                "new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", "Übung macht", "--tag", "Gare",
            ]).status == 0)
        #expect(
            try author.run([
                "new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", "Second", "--tag", "café",
            ]).status == 0)
        #expect(try author.run(["identity", "--name", "Ana"]).status == 0)
        for title in ["Übung", "Second"] {
            #expect(try author.run(["publish", title, "--to", server.address]).status == 0)
        }

        func titles(_ arguments: [String]) throws -> [String] {
            let result = try LoopProcess.run(["browse", "--from", server.address, "--json"] + arguments)
            #expect(result.status == 0, "\(result.error)")
            let page = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            return ((page["loops"] as? [[String: Any]]) ?? []).compactMap {
                ($0["loop"] as? [String: Any])?["title"] as? String
            }
        }
        #expect(try titles([]) == ["Second", "Übung macht"], "newest first")
        #expect(try titles(["ubung"]) == ["Übung macht"])
        #expect(try titles(["UBUNG", "MACHT"]) == ["Übung macht"])
        #expect(try titles(["cafe"]).count == 2, "phrase text matches too: both hold 'Un café'")
        #expect(try titles(["--tag", "CAFE"]) == ["Second"])
        #expect(try titles(["--language", "fr", "--author", "ana"]).count == 2)
        let fingerprint = try author.run(["identity"]).output.split(separator: " ").first.map(String.init) ?? ""
        #expect(try titles(["--author", fingerprint]).count == 2 && titles(["--author", "Bob"]).isEmpty)
        #expect(try titles(["--language", "de"]).isEmpty)
        #expect(try titles(["--limit", "1", "--page", "2"]) == ["Übung macht"])
        // A control character in a search (a NUL, which ended the term in SQLite's query parser
        // and answered 500) parts words as a space does, on the API and on the front page.
        let controlled = try await http("GET", server.address + "/api/loops?q=ubung%00macht%01")
        #expect(controlled.status == 200, "\(String(decoding: controlled.body, as: UTF8.self))")
        #expect(
            (controlled.json?["loops"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Übung macht"])
        #expect(try await http("GET", server.address + "/?q=caf%00%1B").status == 200)

        // Featured: chosen by the operator (`loop serve feature`, through `loop serve`'s hand-over
        // to loop-server). Hot: the most downloads in the last 7 days.
        let second = try #require(
            (try author.json(["list"]) as? [[String: Any]])?.first { $0["title"] as? String == "Second" }?["id"]
                as? String)
        let operatorCommand = ["--data", server.data] + (server.database.map { ["--database", $0] } ?? [])
        let featured = try LoopProcess.run(["serve", "feature", second] + operatorCommand)
        #expect(featured.status == 0, "\(featured.error)")
        #expect(try titles(["--featured"]) == ["Second"])
        let front = try await http("GET", server.address + "/api/front")
        #expect((front.json?["featured"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Second"])
        #expect(try LoopProcess.run(["serve", "unfeature", second] + operatorCommand).status == 0)
        #expect(try titles(["--featured"]).isEmpty)
        #expect(try titles(["--sort", "hot"]) == ["Second", "Übung macht"])
        let ubung = try #require(try author.json(["list"]) as? [[String: Any]]).compactMap { $0["id"] as? String }.first
        { $0 != second }!
        #expect(try TestLibrary().run(["import", server.address + "/" + ubung]).status == 0)
        #expect(try titles(["--sort", "hot"]) == ["Übung macht", "Second"], "one download puts it first")

        // The human list: one line a loop, ending with the line's link, and paging on stderr.
        let listed = try LoopProcess.run(["browse", "übung", "--from", server.address])
        #expect(
            listed.status == 0
                && listed.output.hasPrefix("Übung macht  fr, 5 phrases, by Ana  [Gare]  \(server.address)/"),
            "\(listed.output)")
        let none = try LoopProcess.run(["browse", "nothing-like-this", "--from", server.address])
        #expect(none.status == 0 && none.output.isEmpty && none.error == "no loops found\n")
        // The last page says where it is and offers no more; a page past the end says so.
        let last = try LoopProcess.run(["browse", "--from", server.address, "--limit", "1", "--page", "2"])
        #expect(last.status == 0 && last.error == "2-2 of 2\n", "\(last.error)")
        let past = try LoopProcess.run(["browse", "--from", server.address, "--limit", "1", "--page", "5"])
        #expect(
            past.status == 0 && past.output.isEmpty && past.error == "no loops on page 5: 2 found\n", "\(past.error)")
        // The server from the environment, or from the config file.
        #expect(
            try LoopProcess.run(["browse", "ubung", "--json"], environment: ["LOOP_SERVER": server.address]).output
                .contains("Übung macht"))
        let config = Scratch.path("config")
        try FileManager.default.createDirectory(atPath: config + "/loop", withIntermediateDirectories: true)
        try "# the Loop Library\nserver = \(server.address)\n".write(
            toFile: config + "/loop/config", atomically: true, encoding: .utf8)
        #expect(
            try LoopProcess.run(
                ["browse", "ubung", "--json"], environment: ["XDG_CONFIG_HOME": config, "LOOP_SERVER": ""]
            ).output.contains("Übung macht"))
        let nowhere = try LoopProcess.run(
            ["browse"], environment: ["XDG_CONFIG_HOME": Scratch.path("no-config"), "LOOP_SERVER": ""])
        #expect(nowhere.status != 0 && nowhere.error.hasPrefix("error: no Loop Library server named: give its address"))
    }

    @Test(arguments: CatalogBackend.all)
    func unpublishIsSignedAndCannotBeReplayed(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let (author, link) = try publishedFixture(server)
        let learner = TestLibrary()
        #expect(try learner.run(["import", link]).status == 0)
        let id = try resolveID(author)
        // Its files, at the addresses its page and detail gave everyone.
        let detail = try await http("GET", server.address + LoopLibraryPaths.loop(id))
        let bundleHash = try #require((detail.json?["bundle"] as? [String: Any])?["sha256"] as? String)
        let takeHashes = ((detail.json?["takes"] as? [[String: Any]]) ?? []).compactMap { $0["sha256"] as? String }
        let blobs =
            [server.address + LoopLibraryPaths.blob(bundleHash) + ".loop"]
            + takeHashes.map { server.address + LoopLibraryPaths.blob($0) + ".flac" }
        #expect(takeHashes.count == 1)
        for blob in blobs {
            #expect(try await http("GET", blob).status == 200, "\(blob) is served while the loop is published")
        }

        // Signed by hand, as the client signs it, so that the same request can be sent twice.
        let identity = try #require(try AuthorIdentity.load(from: author.path + "/identity/ed25519.key"))
        let signer = RequestSigner(publicKey: identity.publicKey, authorName: nil) { try identity.sign($0) }
        let path = LoopLibraryPaths.loop(id)
        let content = SignedRequest.Content(
            method: "DELETE", authority: "127.0.0.1:\(server.port)", path: path,
            timestamp: Int(Date().timeIntervalSince1970),
            nonce: "0123456789abcdef0123456789abcdef", bodyLength: 0, bodySHA256: SignedRequest.emptyBodySHA256)
        let headers = Dictionary(try LibraryClient.signatureHeaders(content, signer: signer), uniquingKeysWith: { $1 })
        // The same request sent to another Loop Library is refused there: it names this one.
        let other = try TestServer(backend)
        let sentElsewhere = try await http("DELETE", other.address + path, headers: headers)
        #expect(
            sentElsewhere.status == 401
                && (sentElsewhere.json?["error"] as? String)?.contains(
                    "for another Loop Library than 127.0.0.1:\(other.port)") == true,
            "\(String(decoding: sentElsewhere.body, as: UTF8.self))")
        // Signed an hour ago (or by a clock an hour off): refused, whatever its nonce.
        var old = content
        old.timestamp -= 3_600
        old.nonce = "fedcba9876543210fedcba9876543210"
        let stale = try await http(
            "DELETE", server.address + path,
            headers: Dictionary(try LibraryClient.signatureHeaders(old, signer: signer), uniquingKeysWith: { $1 }))
        #expect(
            stale.status == 401
                && (stale.json?["error"] as? String)?.contains("s away from the server's clock (at most 300 s)")
                    == true,
            "\(String(decoding: stale.body, as: UTF8.self))")
        // Another loop's path under the same signature is refused: the path is signed.
        let elsewhere = try await http(
            "DELETE", server.address + LoopLibraryPaths.loop("00000000-0000-0000-0000-000000000000"), headers: headers)
        #expect(elsewhere.status == 401 && (elsewhere.json?["error"] as? String)?.isEmpty == false)
        #expect(try await http("DELETE", server.address + path, headers: headers).status == 204)
        let replayed = try await http("DELETE", server.address + path, headers: headers)
        #expect(
            replayed.status == 401 && replayed.json?["error"] as? String == "this request was sent before (a replay)")

        #expect(try await http("GET", server.address + path).status == 404)
        #expect(try titlesOnServer(server).isEmpty)
        for blob in blobs { #expect(try await http("GET", blob).status == 404, "\(blob) is gone with the loop") }
        let update = try learner.run(["update"])
        #expect(
            update.status != 0 && update.error.contains("'Fixture'") && update.error.split(separator: "\n").count == 1,
            "\(update.error)")
        #expect(try learner.run(["show", "fixture"]).status == 0, "the learner keeps the loop")

        // The author publishes it again (the CLI's own signed request), at the same revision.
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
        #expect(try titlesOnServer(server) == ["Fixture"])
        for blob in blobs.dropFirst() {
            #expect(try await http("GET", blob).status == 200, "\(blob), the same take, is served again")
        }
        #expect(try author.run(["unpublish", "fixture", "--from", server.address]).status == 0)
        #expect(try titlesOnServer(server).isEmpty)
    }

    /// The operator takes a loop down (off its page, search, feed and downloads at once; its
    /// author cannot bring it back) and blocks a key (its loops go, its publishes are refused).
    @Test(arguments: CatalogBackend.all)
    func anOperatorTakesALoopDownAndBlocksAKey(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let (author, link) = try publishedFixture(server)
        let id = try resolveID(author)
        let detail = try await http("GET", server.address + LoopLibraryPaths.loop(id))
        let bundleHash = try #require((detail.json?["bundle"] as? [String: Any])?["sha256"] as? String)
        let spammer = try libraryWithFixtureLoop()
        #expect(try spammer.run(["publish", "fixture", "--to", server.address]).status == 0)
        #expect(try titlesOnServer(server).count == 2)
        let operatorCommand = ["--data", server.data] + (server.database.map { ["--database", $0] } ?? [])

        let shortID = String(link.split(separator: "/").last ?? "")
        let takenDown = try LoopProcess.run(
            ["serve", "takedown", shortID, "--reason", "copyright notice 42"] + operatorCommand)
        #expect(
            takenDown.status == 0 && takenDown.output.isEmpty
                && takenDown.error.contains("took down loop \(id): copyright notice 42"), "\(takenDown.error)")
        #expect(try titlesOnServer(server).count == 1)
        for path in [
            LoopLibraryPaths.page(shortID), LoopLibraryPaths.loop(id), LoopLibraryPaths.bundle(id),
            LoopLibraryPaths.blob(bundleHash) + ".loop",
        ] {
            #expect(try await http("GET", server.address + path).status == 404, "\(path) is gone")
        }
        let feed = try await http("GET", server.address + LoopLibraryPaths.feed)
        #expect(!String(decoding: feed.body, as: UTF8.self).contains(id), "and off the feed")
        // Its author cannot bring it back, even as a new revision.
        #expect(try author.run(["edit", "fixture", "--tag", "again"]).status == 0)
        let again = try author.run(["publish", "fixture", "--to", server.address])
        #expect(
            again.status != 0
                && again.error.contains(
                    "loop \(id) was taken down by this Loop Library's operator: copyright notice 42"),
            "\(again.error)")

        // A blocked key: its loops go, and its publishes are refused.
        let fingerprint = try #require(
            try spammer.run(["identity"]).output.split(whereSeparator: \.isWhitespace).first.map(String.init))
        let blocked = try LoopProcess.run(["serve", "block-key", fingerprint, "--reason", "spam"] + operatorCommand)
        #expect(blocked.status == 0 && blocked.error.contains("1 loop(s) taken down"), "\(blocked.error)")
        #expect(try titlesOnServer(server).isEmpty)
        #expect(
            try spammer.run(["new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", "More spam"]).status
                == 0)
        let refused = try spammer.run(["publish", "more spam", "--to", server.address])
        #expect(
            refused.status != 0 && refused.error.contains("this key is blocked on this Loop Library: spam"),
            "\(refused.error)")
        #expect(try titlesOnServer(server).isEmpty)

        let unknown = try LoopProcess.run(["serve", "takedown", "nope", "--reason", "x"] + operatorCommand)
        #expect(
            unknown.status != 0 && unknown.error == "error: no loop 'nope' is in this library\n", "\(unknown.error)")
    }

    /// An operator's command opens a Loop Library that is there: a mistyped `--data` (no such
    /// folder, a file, a folder with no catalog) is said to be none, in one line, and nothing is
    /// made there; a negative `--grace` is a number out of range, not a missing value.
    @Test func operatorCommandsOpenAnExistingLoopLibraryOrSayThereIsNone() throws {
        let missing = Scratch.path("mistyped-data")
        let file = Scratch.path("a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let empty = Scratch.path("empty-data")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let commands: [[String]] = [
            ["takedown", "abcd1234", "--reason", "x"], ["feature", "abcd1234"], ["unfeature", "abcd1234"],
            ["block-key", String(repeating: "A", count: 43) + "=", "--reason", "x"], ["gc"],
        ]
        for command in commands {
            for (data, said) in [
                (missing, "no Loop Library here (no such folder)"),
                (file, "is a file, not a Loop Library's data folder"),
                (empty, "no Loop Library here (it holds no catalog.sqlite)"),
            ] {
                let result = try LoopProcess.run(["serve"] + command + ["--data", data])
                #expect(
                    result.status == 1 && result.error.hasPrefix("error: \(data): \(said)")
                        && result.error.split(separator: "\n").count == 1,
                    "\(command) --data \(data): \(result.status) \(result.error)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: missing), "no folder was made")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty, "no catalog was made")
        let negative = try LoopProcess.run(["serve", "gc", "--grace", "-1", "--data", empty])
        #expect(
            negative.status != 0 && negative.error.contains("--grace takes 0.25 to 8760 hours, not -1.0"),
            "\(negative.error)")
    }

    /// A connection that sends its request a byte at a time (slowloris), or nothing at all, is
    /// closed after the idle timeout: a request's head must arrive whole within it. Meanwhile an
    /// honest request is answered.
    @Test func aRequestTrickledAByteAtATimeIsClosedAtTheIdleTimeout() async throws {
        let server = try TestServer(.sqlite, arguments: ["--idle-timeout", "1"])
        let silent = try RawConnection(port: server.port)
        let trickling = try RawConnection(port: server.port)
        let head = Array(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(String(repeating: "a", count: 40))\r\n\r\n".utf8)
        let start = Date()
        var closed = false
        for byte in head {
            guard (try? trickling.send(Data([byte]))) != nil, !trickling.isClosedByServer(timeout: 0.25) else {
                closed = true
                break
            }
        }
        // Closed before its head was whole (it would take 20 s), however late under load the
        // timer fires: the promise is the closing, not the second it comes at.
        let seconds = Date().timeIntervalSince(start)
        #expect(closed, "not closed in \(seconds) s, though a byte came only every 0.25 s")
        #expect(silent.isClosedByServer(timeout: 30), "a connection that sends nothing is closed too")
        #expect(try await http("GET", server.address + "/healthz").status == 200)
    }

    /// The author's loop as a new revision's bundle, signed by the author: for requests the
    /// CLI would not send (two at once, a kill half-way).
    func authorBundle(_ author: TestLibrary, tag: String) throws -> (
        bundle: String, signer: RequestSigner, id: String, revision: Int
    ) {
        #expect(try author.run(["edit", "fixture", "--tag", tag]).status == 0)
        let id = try resolveID(author)
        let bundle = Scratch.path("revision", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let identity = try #require(try AuthorIdentity.load(from: author.path + "/identity/ed25519.key"))
        let revision = try LibraryStore(at: author.path, access: .readOnly).loop(id: id).summary.revision
        return (
            bundle, RequestSigner(publicKey: identity.publicKey, authorName: nil) { try identity.sign($0) }, id,
            revision
        )
    }

    @Test(arguments: CatalogBackend.all)
    func aServerKilledMidPublishShowsNothingPartialAndStillServesThePreviousRevision(_ backend: CatalogBackend)
        async throws
    {
        // Killed after the upload is verified and its blobs stored, before the catalog commits.
        let server = try TestServer(backend, environment: ["LOOP_TEST_STOP_AT": "publish.stored"])
        let author = try libraryWithFixtureLoop()
        let killed = try author.run(["publish", "fixture", "--to", server.address])
        #expect(
            killed.status != 0 && killed.error.hasPrefix("error: no answer from \(server.address)"), "\(killed.error)")
        #expect(server.waitForExit() == .uncaughtSignal, "the server was killed at publish.stored")
        try server.start()
        #expect(try titlesOnServer(server).isEmpty, "nothing of the killed publish is visible")
        #expect(server.uploadsInProgress.isEmpty, "the killed upload's files are gone at restart")
        let orphans = server.storedBlobs
        #expect(
            !orphans.isEmpty, "its blobs were stored (content-addressed, harmless, taken again by the next publish)")

        let published = try author.run(["publish", "fixture", "--to", server.address])
        #expect(published.status == 0, "\(published.error)")
        let link = published.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try await http(
            "GET", link.replacingOccurrences(of: server.address + "/", with: server.address + "/api/loops/") + "/bundle"
        )
        #expect(before.status == 200)

        // Killed while receiving a properly signed revision 2: its partial file is dropped at
        // restart, and revision 1 still serves, byte for byte.
        let (bundle, signer, id, revision) = try authorBundle(author, tag: "v2")
        server.kill()
        try server.start(environment: ["LOOP_TEST_STOP_AT": "publish.receiving"])
        let client = try LibraryClient(server: server.address)
        do {
            _ = try await client.publish(bundle: bundle, loopID: id, revision: revision, signer: signer)
            Issue.record("the publish went through a server killed while receiving it")
        } catch {}
        #expect(server.waitForExit() == .uncaughtSignal, "the server was killed at publish.receiving")
        let partial = server.uploadsInProgress
        #expect(partial.count == 1, "the killed server left its partial upload: \(partial)")
        try server.start()
        #expect(server.uploadsInProgress.isEmpty, "the partial upload is gone at restart")
        let detail = try await http("GET", server.address + "/api/loops/" + id)
        #expect((detail.json?["loop"] as? [String: Any])?["revision"] as? Int == 1)
        let after = try await http("GET", server.address + "/api/loops/" + id + "/bundle")
        #expect(after.status == 200 && after.body == before.body)
        let learner = TestLibrary() // (the restarted server listens on another port)
        #expect(
            try learner.run(["import", server.address + "/" + id]).status == 0 && learner.run(["doctor"]).status == 0)
    }

    @Test(arguments: CatalogBackend.all)
    func twoPublishesOfTheSameRevisionAtOnceOneWinsTheOtherGets409(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let (author, _) = try publishedFixture(server)
        let (bundle, signer, id, revision) = try authorBundle(author, tag: "v2")
        // The first publish is held inside the catalog's transaction until the second has arrived
        // and been verified: from there it waits for the catalog (SQLite's one writer, or
        // PostgreSQL's lock on the loop) while the first is inside.
        let marker = Scratch.path("held")
        let trace = Scratch.path("trace")
        server.kill()
        try server.start(environment: [
            "LOOP_TEST_STOP_AT": "publish.transaction:pause", "LOOP_TEST_STOP_FILE": marker, "LOOP_TEST_TRACE": trace,
        ])
        let client = try LibraryClient(server: server.address)
        func attempt() async -> Result<PublishResult, ClientError> {
            do {
                return .success(
                    try await client.publish(bundle: bundle, loopID: id, revision: revision, signer: signer))
            } catch { return .failure(error) }
        }
        func steps() -> [Substring] {
            ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n").filter {
                $0 == "publish.verified" || $0 == "publish.transaction"
            }
        }
        let first = Task { await attempt() }
        for _ in 0..<12_000 where !FileManager.default.fileExists(atPath: marker) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(FileManager.default.fileExists(atPath: marker), "the first publish is held in the transaction")
        let second = Task { await attempt() }
        for _ in 0..<3_000 where steps().filter({ $0 == "publish.verified" }).count < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(
            steps() == ["publish.verified", "publish.transaction", "publish.verified"],
            "the second arrived, verified, while the first was inside")
        try await Task.sleep(for: .milliseconds(200)) // on to the catalog, where it waits its turn
        try FileManager.default.removeItem(atPath: marker)
        let results = [await first.value, await second.value]
        let won = results.compactMap { try? $0.get() }
        let lost = results.compactMap { result -> ClientError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(won.count == 1 && won.first?.revision == 2 && won.first?.previousRevision == 1)
        #expect(
            lost.count == 1 && lost.first?.status == 409
                && lost.first?.message.contains("has revision 2 of 'Fixture' already") == true, "\(lost)")
        let detail = try await http("GET", server.address + "/api/loops/" + id)
        #expect((detail.json?["loop"] as? [String: Any])?["revision"] as? Int == 2)
    }

    /// A publish the server will not take is refused on its headers, before its body is sent:
    /// a self-made key, another author's loop, a stale revision, a bad signature, a body
    /// larger than the server takes. The test sends the headers only (with a body of 50 MB
    /// declared) and gets its answer; nothing reaches the disk.
    @Test(arguments: CatalogBackend.all)
    func aPublishIsJudgedOnItsHeadersBeforeItsBodyIsRead(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let (author, _) = try publishedFixture(server)
        let (_, signer, id, revision) = try authorBundle(author, tag: "v2")
        let intruder = try AuthorIdentity.loadOrCreate(at: Scratch.path("intruder") + "/ed25519.key")
        let intruding = RequestSigner(publicKey: intruder.publicKey, authorName: nil) { try intruder.sign($0) }
        let declared = 50 << 20
        let stored = server.storedBlobs

        func headersOnly(
            _ signer: RequestSigner, revision: Int, authority: String? = nil, length: Int = declared,
            damage: Bool = false
        ) throws -> String {
            let content = SignedRequest.Content(
                method: "POST", authority: authority ?? "127.0.0.1:\(server.port)", path: LoopLibraryPaths.loops,
                timestamp: Int(Date().timeIntervalSince1970),
                nonce: Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) }),
                bodyLength: length, bodySHA256: String(repeating: "ab", count: 32), loopID: id, revision: revision)
            var headers = try LibraryClient.signatureHeaders(content, signer: signer)
            if damage {
                headers = headers.map { $0.0 == SignedRequest.signatureHeader ? ($0.0, String($0.1.reversed())) : $0 }
            }
            let connection = try RawConnection(port: server.port)
            try connection.send(
                "POST \(LoopLibraryPaths.loops) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Type: application/vnd.looplearn.loop+zip\r\n"
                    + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "Content-Length: \(length)\r\n\r\n")
            return try connection.receive(timeout: 10)
        }
        let cases: [(String, String, String)] = [
            ("another author's loop", try headersOnly(intruding, revision: revision), "HTTP/1.1 403"),
            ("a stale revision", try headersOnly(signer, revision: revision - 1), "HTTP/1.1 409"),
            ("a damaged signature", try headersOnly(signer, revision: revision, damage: true), "HTTP/1.1 401"),
            (
                "signed for another Loop Library",
                try headersOnly(signer, revision: revision, authority: "loops.example.org"), "HTTP/1.1 401"
            ),
            (
                "larger than the server takes", try headersOnly(signer, revision: revision, length: 300 << 20),
                "HTTP/1.1 413"
            ),
        ]
        for (what, answer, status) in cases {
            #expect(
                answer.hasPrefix(status), "\(what): answered before its body with \(status), not: \(answer.prefix(200))"
            )
        }
        #expect(server.storedBlobs == stored && server.uploadsInProgress.isEmpty, "nothing of them reached the disk")
    }

    @Test(arguments: CatalogBackend.all)
    func hostileUploadsAreRefusedWith4xxAndNothingIsStored(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend, arguments: ["--max-upload", "1"])
        let (author, _) = try publishedFixture(server)
        let stored = server.storedBlobs
        let (bundle, signer, id, revision) = try authorBundle(author, tag: "v2")
        let client = try LibraryClient(server: server.address)
        let good = try Data(contentsOf: URL(fileURLWithPath: bundle))

        func refused(_ body: Data, name: String, status: Int, containing text: String? = nil) async throws {
            let file = Scratch.path(name, extension: "loop")
            try body.write(to: URL(fileURLWithPath: file))
            do {
                _ = try await client.publish(bundle: file, loopID: id, revision: revision, signer: signer)
                Issue.record("\(name) was accepted")
            } catch {
                #expect(
                    error.status == status && (text.map { error.message.contains($0) } ?? true), "\(name): \(error)")
            }
        }
        try await refused(Data("not a zip".utf8), name: "garbage", status: 422)
        try await refused(good.prefix(good.count / 2), name: "truncated", status: 422)
        var flipped = good
        flipped[good.count / 3] ^= 0xFF
        try await refused(flipped, name: "flipped", status: 422)
        try await refused(Data(count: 2 << 20), name: "too-large", status: 413, containing: "at most 1 MiB")
        // A bundle signed by one key, sent under another (naming a loop id the server has not
        // seen, so that it is not refused before the upload as another author's loop).
        let other = try AuthorIdentity.loadOrCreate(at: Scratch.path("other") + "/ed25519.key")
        do {
            _ = try await client.publish(
                bundle: bundle, loopID: UUID().uuidString.lowercased(), revision: 1,
                signer: RequestSigner(publicKey: other.publicKey, authorName: nil) { try other.sign($0) })
            Issue.record("a bundle signed by another key was accepted")
        } catch {
            #expect(
                error.status == 400 && error.message.hasPrefix("the bundle is signed by another key than the request"),
                "\(error)")
        }
        // A bundle of another revision or loop than the request names.
        do {
            _ = try await client.publish(bundle: bundle, loopID: id, revision: revision + 1, signer: signer)
            Issue.record("a bundle of another revision than signed was accepted")
        } catch {
            #expect(
                error.status == 400
                    && error.message.hasPrefix(
                        "the bundle holds revision \(revision) of loop \(id), not the revision \(revision + 1)"),
                "\(error)")
        }
        // A body other than the one signed (changed on the way): the hash signed is checked.
        let content = SignedRequest.Content(
            method: "POST", authority: "127.0.0.1:\(server.port)", path: LoopLibraryPaths.loops,
            timestamp: Int(Date().timeIntervalSince1970),
            nonce: Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) }),
            bodyLength: good.count, bodySHA256: Hex.string(SHA256.hash(data: good)), loopID: id, revision: revision)
        var headers = Dictionary(try LibraryClient.signatureHeaders(content, signer: signer), uniquingKeysWith: { $1 })
        headers["Content-Type"] = "application/vnd.looplearn.loop+zip"
        let changed = try await http("POST", server.address + LoopLibraryPaths.loops, headers: headers, body: flipped)
        #expect(
            changed.status == 400
                && changed.json?["error"] as? String
                    == "the body is not the one signed (its SHA-256 differs): changed on the way",
            "\(String(decoding: changed.body, as: UTF8.self))")
        // Unsigned, and signed badly.
        let unsigned = try await http("POST", server.address + "/api/loops", body: good)
        #expect(unsigned.status == 401 && unsigned.json?["error"] != nil)
        #expect(server.storedBlobs == stored, "no refused upload left a blob")
        #expect(server.uploadsInProgress.isEmpty, "nor an upload file")

        // Bad paths and ids: 404 (or 400), with a JSON error, never 500.
        for path in [
            "/api/loops/nope", "/api/loops/%00", "/api/loops/..%2F..%2Fetc%2Fpasswd/bundle", "/blobs/xyz",
            "/blobs/../catalog.sqlite",
            "/blobs/" + String(repeating: "0", count: 64) + ".flac",
            "/api/loops/" + String(repeating: "a", count: 5000), "/nowhere",
        ] {
            let answer = try await http("GET", server.address + path)
            #expect((400..<500).contains(answer.status), "\(path): \(answer.status)")
        }
        #expect(try await http("GET", server.address + "/healthz").status == 200)
    }

    /// A request signed by any key (made on the spot) with a timestamp no clock gives, the
    /// largest and smallest numbers there are among them, is refused with 401, and the server
    /// goes on answering: no number a request carries reaches arithmetic unchecked.
    @Test func aSignedRequestWithAnAbsurdTimestampIsRefusedAndTheServerLivesOn() async throws {
        let server = try TestServer(.sqlite)
        let stranger = try AuthorIdentity.loadOrCreate(at: Scratch.path("stranger") + "/ed25519.key")
        let signer = RequestSigner(publicKey: stranger.publicKey, authorName: nil) { try stranger.sign($0) }
        let body = Data("x".utf8)
        for timestamp in [Int.min, Int.min + 1, -1, Int.max, SignedRequest.latestTimestamp + 1] {
            for (method, path) in [("POST", LoopLibraryPaths.loops), ("DELETE", LoopLibraryPaths.loop("0123abcd"))] {
                let sent = method == "POST" ? body : Data()
                let content = SignedRequest.Content(
                    method: method, authority: "127.0.0.1:\(server.port)", path: path, timestamp: timestamp,
                    nonce: Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) }), bodyLength: sent.count,
                    bodySHA256: Hex.string(SHA256.hash(data: sent)), loopID: method == "POST" ? "0123abcd" : nil,
                    revision: method == "POST" ? 1 : nil)
                let headers = Dictionary(
                    try LibraryClient.signatureHeaders(content, signer: signer), uniquingKeysWith: { $1 })
                let answer = try await http(method, server.address + path, headers: headers, body: sent)
                #expect(answer.status == 401, "\(method) at \(timestamp): \(answer.status)")
                // Refused as it is read, as no time at all: never taken into arithmetic with a clock.
                let said = String(decoding: answer.body, as: UTF8.self)
                #expect(said.contains("has no \(SignedRequest.timestampHeader)"), "\(method) at \(timestamp): \(said)")
                #expect(try await http("GET", server.address + "/healthz").status == 200, "alive after \(timestamp)")
            }
        }
        // Not a number of seconds at all.
        for text in ["1e30", "-0", "+5", " 1", "12345678901234567890", "99999999999999"] {
            let answer = try await http(
                "POST", server.address + LoopLibraryPaths.loops,
                headers: [
                    SignedRequest.keyHeader: stranger.publicKey.base64EncodedString(),
                    SignedRequest.timestampHeader: text,
                    SignedRequest.nonceHeader: Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) }),
                    SignedRequest.contentSHA256Header: Hex.string(SHA256.hash(data: body)),
                    SignedRequest.signatureHeader: "AAAA",
                ], body: body)
            #expect((400..<500).contains(answer.status), "'\(text)': \(answer.status)")
        }
        #expect(try await http("GET", server.address + "/healthz").status == 200)
    }

    /// Bundles whose zip fields lie (round 5: a Zip64 end record whose directory lies 100 bytes
    /// before 2^64 killed the server), each published signed by a key made on the spot: each is
    /// refused with one line, nothing is stored, and the server answers on.
    @Test func aSignedBundleWhoseZipFieldsLieIsRefusedAndTheServerLivesOn() async throws {
        let server = try TestServer(.sqlite)
        let author = try libraryWithFixtureLoop()
        let id = try resolveID(author)
        let bundle = Scratch.path("lying", extension: "loop")
        #expect(try author.run(["export", "fixture", "-o", bundle]).status == 0)
        let variants = Scratch.path("lying-variants")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [LoopProcess.packageRoot.path + "/Scripts/zip-variants", bundle, variants]
        try process.run()
        process.waitUntilExit()
        let refused = try FileManager.default.contentsOfDirectory(atPath: variants).filter { $0.hasPrefix("refused-") }
        #expect(refused.count >= 15)
        let stranger = try AuthorIdentity.loadOrCreate(at: Scratch.path("stranger") + "/ed25519.key")
        let signer = RequestSigner(publicKey: stranger.publicKey, authorName: nil) { try stranger.sign($0) }
        let client = try LibraryClient(server: server.address)
        for name in refused.sorted() {
            do {
                _ = try await client.publish(bundle: variants + "/" + name, loopID: id, revision: 1, signer: signer)
                Issue.record("\(name) was published")
            } catch {
                #expect(error.status.map { (400..<500).contains($0) } == true, "\(name): \(error)")
                #expect(!error.message.contains("\n") && !error.message.isEmpty, "\(name): \(error.message)")
            }
            #expect(try await http("GET", server.address + "/healthz").status == 200, "alive after \(name)")
        }
        #expect(try titlesOnServer(server).isEmpty)
        #expect(server.storedBlobs.isEmpty, "nothing of a refused bundle is kept")
    }

    @Test func changesArePerKeyRateLimited() async throws {
        let server = try TestServer(.sqlite, arguments: ["--changes-per-minute", "1"])
        let author = try libraryWithFixtureLoop()
        #expect(try author.run(["identity"]).status == 0)
        let identity = try #require(try AuthorIdentity.load(from: author.path + "/identity/ed25519.key"))
        // Requests that only name the author's key, unsigned, are refused and do not use up its
        // allowance.
        for _ in 0..<3 {
            let forged = try await http(
                "POST", server.address + "/api/loops",
                headers: [
                    SignedRequest.keyHeader: identity.publicKey.base64EncodedString(),
                    SignedRequest.timestampHeader: String(Int(Date().timeIntervalSince1970)),
                    SignedRequest.nonceHeader: Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) }),
                    SignedRequest.signatureHeader: "AAAA",
                ], body: Data("x".utf8))
            #expect(forged.status == 401, "\(forged.status)")
        }
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
        #expect(try author.run(["edit", "fixture", "--tag", "v2"]).status == 0)
        let limited = try author.run(["publish", "fixture", "--to", server.address])
        #expect(
            limited.status != 0 && limited.error == "error: too many changes from this key: at most 1 a minute\n",
            "\(limited.error)")
        // Another author is not held up by the first one's limit.
        let other = TestLibrary()
        #expect(
            try other.run(["new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", "Other"]).status == 0)
        #expect(try other.run(["publish", "other", "--to", server.address]).status == 0)
    }

    /// Hot ranks by downloads that completed, one per client address per loop a day: a loop
    /// of requests from one machine, HEADs, ranges, revalidations or downloads cancelled
    /// before their end do not make a loop hot.
    @Test(arguments: CatalogBackend.all)
    func hotCountsCompletedDownloadsOncePerAddressADay(_ backend: CatalogBackend) async throws {
        let marker = Scratch.path("held")
        let server = try TestServer(
            backend, environment: ["LOOP_TEST_STOP_AT": "download.starting:pause", "LOOP_TEST_STOP_FILE": marker])
        let (author, _) = try publishedFixture(server)
        let id = try resolveID(author)
        let bundle = server.address + LoopLibraryPaths.bundle(id)
        func downloads() async throws -> Int? {
            ((try await http("GET", server.address + LoopLibraryPaths.loop(id))).json?["loop"] as? [String: Any])?[
                "recentDownloads"] as? Int
        }
        // A download whose client goes away before the body is sent (held at its start).
        let cancelled = try RawConnection(port: server.port)
        try cancelled.send("GET \(LoopLibraryPaths.bundle(id)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        for _ in 0..<1_000 where !FileManager.default.fileExists(atPath: marker) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(FileManager.default.fileExists(atPath: marker), "the download is held before its body")
        cancelled.close()
        try await Task.sleep(for: .milliseconds(300))
        try FileManager.default.removeItem(atPath: marker)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await downloads() == 0, "a cancelled download does not count")

        let head = try await http("HEAD", bundle)
        #expect(head.status == 200)
        #expect(try await http("GET", bundle, headers: ["Range": "bytes=0-99"]).status == 206)
        #expect(try await http("GET", bundle, headers: ["If-None-Match": head.headers["etag"] ?? ""]).status == 304)
        #expect(try await downloads() == 0, "a HEAD, a range and a revalidation are no download")
        for _ in 0..<4 { #expect(try await http("GET", bundle).status == 200) }
        #expect(try await downloads() == 1, "four whole downloads from one address: one download")
    }

    @Test func blobsAndBundlesHaveETagsRangesAndLongCaching() async throws {
        let server = try TestServer(.sqlite)
        let (_, link) = try publishedFixture(server)
        let ref = String(try #require(link.split(separator: "/").last))
        let detail = try await http("GET", server.address + "/api/loops/" + ref)
        let etag = try #require(detail.headers["etag"])
        #expect(
            try await http("GET", server.address + "/api/loops/" + ref, headers: ["If-None-Match": etag]).status == 304)

        let take = try #require((detail.json?["takes"] as? [[String: Any]])?.first)
        let sha = try #require(take["sha256"] as? String)
        let bytes = try #require(take["bytes"] as? Int)
        let whole = try await http("GET", server.address + "/blobs/\(sha).flac")
        #expect(whole.status == 200 && whole.body.count == bytes && whole.headers["etag"] == "\"\(sha)\"")
        #expect(
            whole.headers["cache-control"]?.contains("immutable") == true && whole.headers["accept-ranges"] == "bytes")
        #expect(SHA256.hash(data: whole.body).map { String(format: "%02x", $0) }.joined() == sha)
        let part = try await http("GET", server.address + "/blobs/\(sha).flac", headers: ["Range": "bytes=100-199"])
        #expect(
            part.status == 206 && part.body == whole.body[100..<200]
                && part.headers["content-range"] == "bytes 100-199/\(bytes)")
        let tail = try await http("GET", server.address + "/blobs/\(sha).flac", headers: ["Range": "bytes=-10"])
        #expect(tail.status == 206 && tail.body == whole.body.suffix(10))
        #expect(
            try await http("GET", server.address + "/blobs/\(sha).flac", headers: ["Range": "bytes=\(bytes)-"]).status
                == 416)
        #expect(
            try await http("GET", server.address + "/blobs/\(sha).flac", headers: ["If-None-Match": "\"\(sha)\""])
                .status == 304)
    }

    @Test func aDownloadThatCannotBeSavedHereIsNotBlamedOnTheServer() async throws {
        let server = try TestServer(.sqlite)
        let (_, link) = try publishedFixture(server)
        let ref = String(try #require(link.split(separator: "/").last))
        let client = try LibraryClient(server: server.address)
        let folder = NSTemporaryDirectory() + "loop-no-such-folder-" + UUID().uuidString
        do {
            _ = try await client.downloadBundle(ref, to: folder + "/bundle.loop")
            Issue.record("a download into a missing folder succeeded")
        } catch {
            #expect(
                error.kind == .local && error.message.hasPrefix("cannot write \(folder)/bundle.loop.part-"),
                "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder))
        // The same download, once the server is gone, is the network's failure.
        #expect(server.stop() == 0)
        do {
            _ = try await client.downloadBundle(ref, to: NSTemporaryDirectory() + "loop-\(UUID().uuidString).loop")
            Issue.record("a download from a stopped server succeeded")
        } catch {
            #expect(error.kind == .unreachable && error.message.hasPrefix("no answer from "), "\(error.message)")
        }
    }

    func titlesOnServer(_ server: TestServer) throws -> [String] {
        let result = try LoopProcess.run(["browse", "--from", server.address, "--json"])
        let page = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        return ((page["loops"] as? [[String: Any]]) ?? []).compactMap {
            ($0["loop"] as? [String: Any])?["title"] as? String
        }
    }

    func resolveID(_ library: TestLibrary) throws -> String {
        let loops = try #require(try library.json(["list"]) as? [[String: Any]])
        return try #require(loops.first?["id"] as? String)
    }
}

/// A TCP connection to 127.0.0.1, for requests no client library would send (half a body).
final class RawConnection {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw CLIFailure("cannot connect to port \(port)") }
    }

    func send(_ text: String) throws { try send(Data(text.utf8)) }

    /// Whether the server closed the connection (within a read's wait of `timeout` seconds).
    func isClosedByServer(timeout: Double) -> Bool {
        var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptors, 1, Int32(timeout * 1000)) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK)) <= 0
    }

    /// What arrives within `timeout` seconds (up to 64 KB), or "" when nothing does.
    func receive(timeout: Double) throws -> String {
        var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptors, 1, Int32(timeout * 1000)) == 1 else { return "" }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = Glibc.send(
                    descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { throw CLIFailure("send failed") }
                offset += sent
            }
        }
    }

    private var isOpen = true

    /// Closes the connection, as a client that goes away.
    func close() {
        guard isOpen else { return }
        isOpen = false
        Glibc.close(descriptor)
    }

    deinit { close() }
}
