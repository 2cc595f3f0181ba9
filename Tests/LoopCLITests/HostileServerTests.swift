import Foundation
import LoopTestSupport
import Testing

/// A Loop Library server that misbehaves (`Tests/Hostile/hostile_server.py`), run for one test.
final class HostileServer: Sendable {
    let process: Process
    let port: Int
    /// Requests that reached /admin (a redirect that should not have been followed).
    let adminLog = Scratch.path("admin", extension: "log")

    init() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", LoopProcess.packageRoot.appendingPathComponent("Tests/Hostile/hostile_server.py").path, adminLog,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        port = Int(String(decoding: line, as: UTF8.self)) ?? 0
    }

    // SIGKILL: a child of the test runner may inherit SIGTERM blocked.
    deinit { kill(process.processIdentifier, SIGKILL) }

    func address(_ misbehaviour: String) -> String { "http://127.0.0.1:\(port)/\(misbehaviour)" }

    var adminRequests: String { (try? String(contentsOfFile: adminLog, encoding: .utf8)) ?? "" }
}

/// What loop does with a server that is slow, lies about sizes, sends without end, redirects
/// to other hosts or sends terminal escapes: one clear line, within a stated bound, and nothing
/// left behind.
struct HostileServerTests {
    func run(_ library: TestLibrary, _ arguments: [String], limit: Double = 60) throws -> (
        result: LoopProcess, seconds: Double
    ) {
        let start = Date()
        let result = try LoopProcess.start(arguments, environment: ["LOOP_LIBRARY": library.path]).finish(limit: limit)
        return (result, Date().timeIntervalSince(start))
    }

    func expectFailure(_ result: LoopProcess, saying text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0 && result.killedBy == nil, sourceLocation: sourceLocation)
        #expect(result.error.contains(text), "\(result.error)", sourceLocation: sourceLocation)
        #expect(
            result.error.split(separator: "\n").count == 1, "one line: \(result.error)", sourceLocation: sourceLocation)
        #expect(
            !result.error.contains("\u{1B}") && !result.output.contains("\u{1B}"), "no raw escape reaches the terminal",
            sourceLocation: sourceLocation)
    }

    /// Nothing of a refused download stays in the library.
    func expectNothingLeft(_ library: TestLibrary, sourceLocation: SourceLocation = #_sourceLocation) {
        let incoming = library.path + "/audio/.incoming"
        let left = (FileManager.default.subpaths(atPath: incoming) ?? []).filter { !$0.hasPrefix(".") }
        #expect(left.isEmpty, "left in \(incoming): \(left)", sourceLocation: sourceLocation)
    }

    @Test func aServersWordsAreMadeInertBeforeTheyReachTheTerminal() throws {
        let server = try HostileServer()
        let library = TestLibrary()
        let refused = try run(library, ["import", server.address("escape") + "/abc123"]).result
        expectFailure(refused, saying: "\\u{1B}]0;PWNED\\u{7}\\u{1B}[2J no such loop")
        let listed = try run(library, ["browse", "--from", server.address("catalog")]).result
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.contains("Title \\u{202E}gnp.exe"), "\(listed.output)")
        for raw in ["\u{1B}", "\u{7}", "\u{202E}"] {
            #expect(!listed.output.contains(raw), "\(listed.output.debugDescription)")
        }
    }

    /// A page or nothing where a bundle should be is named by the link, not by the download's
    /// scratch file.
    @Test func aServerThatSendsSomethingElseIsNamedByItsLink() throws {
        let server = try HostileServer()
        let library = TestLibrary()
        for misbehaviour in ["html", "empty"] {
            let result = try run(library, ["import", server.address(misbehaviour) + "/abc123"]).result
            expectFailure(
                result, saying: "\(server.address(misbehaviour))/abc123: the server's answer is not a loop bundle")
            #expect(!result.error.contains(".incoming"), "\(result.error)")
        }
        expectNothingLeft(library)
    }

    @Test func aServerThatCrawlsIsGivenUp() throws {
        let server = try HostileServer()
        let library = TestLibrary()
        let (result, seconds) = try run(library, ["import", server.address("drip") + "/abc123"], limit: 90)
        expectFailure(result, saying: "crawled below 512 bytes a second for 30 s")
        #expect(seconds < 60, "given up after \(seconds) s")
        expectNothingLeft(library)
    }

    @Test func declaredAndExpandedSizesAreBounded() throws {
        let server = try HostileServer()
        let library = TestLibrary()
        let (declared, seconds) = try run(library, ["import", server.address("declared") + "/abc123"])
        expectFailure(declared, saying: "its answer is larger than 512 MiB")
        #expect(seconds < 10, "refused on the declared length, not after reading: \(seconds) s")
        expectFailure(
            try run(library, ["browse", "--from", server.address("gzipbomb")]).result,
            saying: "its answer is larger than 8 MiB")
        expectFailure(
            try run(library, ["browse", "--from", server.address("endless")]).result,
            saying: "its answer is larger than 8 MiB")
        expectNothingLeft(library)
    }

    @Test func aRedirectToAnotherHostIsNotFollowed() throws {
        let server = try HostileServer()
        let library = TestLibrary()
        let result = try run(library, ["import", server.address("redirect") + "/abc123"]).result
        expectFailure(result, saying: "it redirected to http://localhost:\(server.port)/admin")
        #expect(server.adminRequests.isEmpty, "the redirect's target was requested: \(server.adminRequests)")
    }
}
