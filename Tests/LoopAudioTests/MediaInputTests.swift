import Foundation
import LoopAudio
import LoopAudioFiles
import LoopFoundation
import LoopTestSupport
import Testing

/// Any media's audio through FFmpeg's libraries: what `ffmpeg` itself decodes, sample for sample.
struct MediaInputTests {
    /// `ffmpeg -i FILE -map 0:a:STREAM -f f32le -`: the reference decode (Debian's ffmpeg,
    /// which Scripts/setup --test installs).
    func ffmpegSamples(_ path: String, stream: Int = 0) throws -> [Float] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:\(stream)", "-f", "f32le", "-"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test(arguments: [("phone.m4a", nil), ("film.mp4", nil), ("two-tracks.mkv", 1)] as [(String, Int?)])
    func decodesEverySampleAsFFmpegDoes(_ name: String, stream: Int?) throws {
        let input = try MediaInput.open(Fixture.path(name), audioStream: stream)
        #expect(input.decodedFrom != nil && input.path.hasSuffix(".flac") && input.original == Fixture.path(name))
        var reader = try AudioFileReader(path: input.path)
        var ours: [Float] = []
        try reader.forEachBlock(blockFrames: 4096) { block, _ in ours.append(contentsOf: block) }
        let reference = try ffmpegSamples(Fixture.path(name), stream: stream ?? 0)
        // The same length (the encoder's priming and padding dropped as ffmpeg drops them), and
        // the same samples but for the 16-bit FLAC's rounding.
        #expect(ours.count == reference.count, "\(name): \(ours.count) samples, ffmpeg decodes \(reference.count)")
        let worst = zip(ours, reference).map { abs($0 - min(max($1, -1), 1)) }.max() ?? 1
        #expect(worst < 1.0 / 16_000, "\(name): a sample differs from ffmpeg's by \(worst)")
        let path = input.path
        _ = consume input
        #expect(!FileManager.default.fileExists(atPath: path), "the temporary FLAC goes with the input")
    }

    /// A `loop` killed while it held a decoded FLAC leaves it in the temporary folder; the next
    /// decode removes it, and never one a running process still reads.
    @Test func decodedFilesOfProcessesThatAreGoneAreRemoved() throws {
        let folder = try temporaryFolder()
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let gone = finished.processIdentifier
        let leftovers = ["loop-media-\(gone)-0a1b2c3d-phone.flac", ".loop-media-\(gone)-4e5f6a7b-film.flac.tmp-x1"]
        let kept = ["loop-media-\(getpid())-8c9d0e1f-film.flac", "loop-media-notes.txt", "other.flac"]
        for name in leftovers + kept {
            _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: Data("x".utf8))
        }
        let removed = MediaInput.removeLeftovers(in: folder)
        #expect(Set(removed) == Set(leftovers.map { folder + "/" + $0 }))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == Set(kept))
    }

    /// A decode helper that stops answering (stopped, or stuck in FFmpeg) is killed after its
    /// silence limit, and the decoding fails on one line, rather than being waited on for ever.
    @Test func aDecoderThatSaysNothingIsStoppedAfterItsSilenceLimit() throws {
        let helper = Scratch.path("silent-helper", extension: "sh")
        let pidFile = Scratch.path("silent-helper", extension: "pid")
        try "#!/bin/sh\necho $$ > '\(pidFile)'\nexec sleep 600\n".write(
            toFile: helper, atomically: true, encoding: .utf8)
        chmod(helper, 0o755)
        let start = Date()
        do {
            _ = try MediaInput.open(Fixture.path("film.mp4"), audioStream: 0, helper: helper, helperSilence: 2)
            Issue.record("a silent decoder was waited on until it ended")
        } catch let error as AudioError {
            #expect(
                error.message.hasPrefix("the decoder (\(helper) decode-media) said nothing for 2 s and was stopped"),
                "\(error.message)")
        }
        #expect(Date().timeIntervalSince(start) < 30)
        let pid =
            pid_t(
                (try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
        #expect(pid > 0 && kill(pid, 0) != 0, "the helper is gone")
    }

    @Test func aFileLibsndfileReadsIsReadAsItIs() throws {
        let input = try MediaInput.open(Fixture.path("clean.flac"))
        #expect(input.path == Fixture.path("clean.flac") && input.decodedFrom == nil)
    }

    @Test func whatCannotBeReadSaysWhy() throws {
        #expect(throws: AudioError.self) { try MediaInput.open(Fixture.path("video-only.mp4")) }
        do {
            _ = try MediaInput.open(Fixture.path("video-only.mp4"))
        } catch let error as AudioError {
            #expect(error.description == Fixture.path("video-only.mp4") + ": the file holds no audio stream")
        }
        do {
            _ = try MediaInput.open(Fixture.path("film.mp4"), audioStream: 3)
        } catch let error as AudioError {
            #expect(error.message == "the file has 1 audio stream (0 to 0), not 3")
        }
        do {
            _ = try MediaInput.open(Fixture.path("not-audio.flac"))
        } catch let error as AudioError {
            #expect(error.message.hasPrefix("not an audio or video file this tool reads"))
        }
    }
}
