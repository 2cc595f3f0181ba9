import Foundation
import LoopAudioFiles
import LoopTestSupport
import Testing

/// Takes from a phone (m4a) or a video (mp4, mkv) in every command that reads a take.
struct MediaCommandTests {
    /// The cut times `loop segment --count 5 --json` prints for a file.
    func cuts(_ arguments: [String]) throws -> [Double] {
        let result = try LoopProcess.run(["segment"] + arguments + ["--count", "5", "--json"])
        #expect(result.status == 0, "\(result.error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        return ((report["cuts"] as? [[String: Any]]) ?? []).compactMap { $0["at"] as? Double }
    }

    @Test func aPhoneTakeAndAFilmsAudioAreCutWhereTheOriginalIs() throws {
        let original = try cuts(["clean.flac"])
        for media in [["phone.m4a"], ["film.mp4"], ["two-tracks.mkv", "--stream", "1"], ["podcast.mp3"]] {
            let found = try cuts(media)
            #expect(found.count == original.count, "\(media)")
            for (a, b) in zip(found, original) {
                #expect(abs(a - b) < 0.03, "\(media): a cut at \(a) s, the original's at \(b) s")
            }
        }
        let silentTrack = try LoopProcess.run(["segment", "two-tracks.mkv", "--count", "5"])
        #expect(silentTrack.status != 0 && silentTrack.error.contains("no speech found"), "stream 0 is the silent one")
    }

    @Test func newAttachRecordAndCutReadMedia() throws {
        let library = TestLibrary()
        let created = try library.run(["new", "--text", "phrases.txt", "--audio", "phone.m4a", "--title", "Phone"])
        #expect(created.status == 0 && created.output.contains("5 phrases, each cut from the take"), "\(created.error)")
        let stored = try FileManager.default.subpathsOfDirectory(atPath: library.path + "/audio").filter {
            $0.count > 60
        }
        #expect(stored.count == 1)
        #expect(
            try stored.allSatisfy { try AudioFileReader(path: library.path + "/audio/" + $0).info.format == .flac },
            "the take is kept as FLAC")

        #expect(try library.run(["new", "--text", "phrases.txt", "--title", "Film"]).status == 0)
        let attached = try library.run(["attach", "Film", "--audio", "film.mp4"])
        #expect(attached.status == 0, "\(attached.error)")
        #expect(try library.run(["new", "--text", "phrases.txt", "--title", "Replayed"]).status == 0)
        let recorded = try library.run(["record", "Replayed", "--input", "two-tracks.mkv", "--stream", "1", "--fast"])
        #expect(recorded.status == 0, "\(recorded.error)")
        let loops = try #require(try library.json(["list"]) as? [[String: Any]])
        #expect(
            loops.count == 3 && loops.allSatisfy { $0["phrases"] as? Int == 5 && $0["needingAudio"] as? Int == 0 },
            "\(loops)")
        #expect(try library.run(["doctor"]).status == 0)

        let out = Scratch.path("clips")
        let cut = try LoopProcess.run(["cut", "phone.m4a", "--text", "phrases.txt", "--out", out])
        #expect(cut.status == 0, "\(cut.error)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: out)).filter { $0.hasSuffix(".flac") }.count == 5)
        // An error after the decode names the file the user gave, not the decoded FLAC.
        let twelve = Scratch.path("twelve", extension: "txt")
        try (1...12).map { "Phrase \($0)." }.joined(separator: "\n").write(
            toFile: twelve, atomically: true, encoding: .utf8)
        // In a temporary folder of its own, where the decoded FLAC goes (and nothing else).
        let temporary = Scratch.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let refused = try LoopProcess.run(
            ["cut", "phone.m4a", "--text", twelve, "--out", Scratch.path("none")], environment: ["TMPDIR": temporary])
        #expect(
            refused.status != 0 && refused.error.hasPrefix("error: phone.m4a: the take does not read its text"),
            "\(refused.error)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "no decoded FLAC is left behind")
    }
}

struct StartUpTests {
    /// FFmpeg's libraries (and the hundred-odd they need) are opened when media is first decoded,
    /// libcurl (and the thirty-odd it needs) on a Loop Library's first request, SoundTouch when a
    /// clip is first played at another speed, libsndfile (with its codecs) when audio is first
    /// read or written, ALSA's library when a sound device is first opened, libsamplerate when a
    /// rate is first converted, and chafa (with GLib and PCRE2) when a picture is first drawn;
    /// never when `loop` starts: a command that needs none of them (`list`, `show`, `search`)
    /// does not pay for them.
    @Test func loopLoadsItsCLibrariesOnlyWhenUsed() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [LoopProcess.executable.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(listed.contains("libsqlite3"), "ldd lists the libraries: \(listed)")
        for library in [
            "libavformat", "libavcodec", "libavutil", "libswresample", "libswscale", "libcurl",
            "libFoundationNetworking", "libSoundTouch", "libsndfile", "libFLAC", "libvorbis",
            "libasound", "libsamplerate", "libchafa", "libglib", "libpcre2",
        ] {
            #expect(!listed.contains(library), "\(library) is loaded at start-up")
        }
    }
}
