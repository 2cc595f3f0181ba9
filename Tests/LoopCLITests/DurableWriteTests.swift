import Foundation
import LoopTestSupport
import Testing

/// The promise of every file `loop` writes: a reader (or a crash) sees the old file or the new
/// one, never half of one, and once `loop` has said it is done the new one survives a power cut.
/// Shown on the system calls themselves, traced by strace: the data goes to a temporary file
/// beside the destination, which is synced, renamed over it, and the folder synced after.
struct DurableWriteTests {
    /// One traced system call: its name, its quoted path arguments, its flags and its result.
    struct Call {
        var name: String
        var paths: [String]
        var text: String
        var result: Int
    }

    /// `loop` with `arguments`, under `strace -f`: the calls that open, sync and rename files.
    func trace(_ library: TestLibrary, _ arguments: [String]) throws -> [Call] {
        let log = Scratch.path("strace", extension: "log")
        let run = try LoopProcess.run(
            arguments, environment: ["LOOP_LIBRARY": library.path],
            launcher: [
                "/usr/bin/strace", "-f", "-qq", "-o", log, "-e",
                "trace=openat,fsync,fdatasync,rename,renameat,renameat2",
            ])
        #expect(run.status == 0, "\(run.error)")
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            // "1234 openat(AT_FDCWD, "/a/b", O_WRONLY|O_CREAT, 0644) = 3"
            let body = line.drop { $0.isNumber || $0 == " " }
            guard let open = body.firstIndex(of: "("), let equals = body.range(of: " = ", options: .backwards),
                let close = body[..<equals.lowerBound].lastIndex(of: ")"), open < close,
                let result = Int(body[equals.upperBound...].prefix { $0.isNumber || $0 == "-" })
            else { return nil }
            let arguments = String(body[body.index(after: open)..<close])
            let paths = arguments.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map { String($0.element) }
            return Call(name: String(body[..<open]), paths: paths, text: arguments, result: result)
        }
    }

    @Test func aFileIsWrittenBesideItsDestinationSyncedRenamedAndItsFolderSynced() throws {
        let library = try libraryWithFixtureLoop()
        let folder = Scratch.path("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let destination = folder + "/fixture.srt"
        try "the previous file\n".write(toFile: destination, atomically: false, encoding: .utf8)
        let calls = try trace(library, ["export", "fixture", "--format", "srt", "-o", destination])
        #expect(try String(contentsOfFile: destination, encoding: .utf8).contains("-->"), "the subtitles were written")

        #expect(
            !calls.contains { $0.name == "openat" && $0.paths.first == destination && !$0.text.contains("O_RDONLY") },
            "the destination itself is never opened for writing")
        let renames = calls.enumerated().filter {
            $0.element.name.hasPrefix("rename") && $0.element.paths.last == destination && $0.element.result == 0
        }
        try #require(
            renames.count == 1,
            "one rename onto the destination: \(calls.filter { $0.name.hasPrefix("rename") }.map(\.text))")
        let (renamed, rename) = (renames[0].offset, renames[0].element)
        let temporary = try #require(rename.paths.first)
        #expect(
            (temporary as NSString).deletingLastPathComponent == folder && temporary != destination,
            "the temporary file lies beside the destination")
        #expect(
            calls[..<renamed].contains {
                $0.name == "openat" && $0.paths.first == temporary && $0.text.contains("O_CREAT")
                    && $0.text.contains("O_EXCL")
            },
            "written to a new temporary file")

        /// Whether a sync of a descriptor opened on `path` comes in `range` of the calls.
        func synced(_ path: String, in range: Range<Int>) -> Bool {
            var descriptors: Set<Int> = []
            for call in calls[range] {
                if call.name == "openat", call.paths.first == path, call.result >= 0 { descriptors.insert(call.result) }
                if call.name == "fsync" || call.name == "fdatasync", let descriptor = Int(call.text),
                    descriptors.contains(descriptor)
                {
                    return true
                }
            }
            return false
        }
        #expect(synced(temporary, in: 0..<renamed), "the new file is synced before the rename")
        #expect(synced(folder, in: renamed..<calls.count), "the folder is synced after the rename")
    }
}
