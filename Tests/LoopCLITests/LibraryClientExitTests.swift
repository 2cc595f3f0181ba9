import Foundation
import LoopTestSupport
import Testing

/// `loop` talks to a Loop Library through libcurl, which starts OpenSSL. OpenSSL 3 frees its
/// state from an exit handler while a request's thread may still be ending, and `loop browse`
/// crashed in libcrypto as it exited (once, under the suite's load). `loop` asks OpenSSL not to
/// register that handler (`Tests/Probes/openssl_exit_probe.c` says whether it did).
struct LibraryClientExitTests {
    @Test func openSSLStartsForARequestButLeavesNoCleanupToRaceTheExit() throws {
        let probe = Scratch.path("openssl_exit_probe", extension: "so")
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = [
            "clang", "-shared", "-fPIC", "-o", probe,
            LoopProcess.packageRoot.appendingPathComponent("Tests/Probes/openssl_exit_probe.c").path, "-ldl",
        ]
        try compiler.run()
        compiler.waitUntilExit()
        try #require(compiler.terminationStatus == 0, "clang could not build the probe")

        // Port 1 refuses at once: the request still starts libcurl, and libcurl OpenSSL.
        let result = try LoopProcess.run(
            ["browse", "--from", "http://127.0.0.1:1", "--json"], environment: ["LD_PRELOAD": probe])
        #expect(result.status == 1 && result.error.contains("no answer from http://127.0.0.1:1"), "\(result.error)")
        #expect(result.error.contains("probe: libcrypto started"), "the probe saw OpenSSL start: \(result.error)")
        #expect(!result.error.contains("probe: libcrypto cleans up at exit"), "\(result.error)")
    }
}
