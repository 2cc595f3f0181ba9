import ArgumentParser
import Foundation
import LoopAudio
import LoopFoundation
import LoopTerminal

/// How a command reads its take: any audio or video file (FFmpeg's libraries decode what
/// libsndfile does not), and which of its audio streams.
struct MediaOptions: ParsableArguments {
    @Option(name: .customLong("stream"), parsing: .unconditional, help: ArgumentHelp(
        "Of a video or a file with several audio streams, the audio stream to read, counted from 0 (default: the main one).", valueName: "n"))
    var stream: Int?

    func validate() throws {
        if let stream, !(0...99).contains(stream) { throw ValidationError("--stream takes an audio stream number from 0, not \(stream)") }
    }

    /// The take at `path` ready to read: as it is, or its audio decoded into a temporary FLAC
    /// file (with a progress bar), which goes when the result does. The decoding runs in a
    /// `loop decode-media` process, so that FFmpeg's memory is not added to what follows.
    func open(_ path: String) async throws -> MediaInput {
        let stream = self.stream
        let progress = ProgressBar("decoding")
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let helper = FileManager.default.isExecutableFile(atPath: own) && (own as NSString).lastPathComponent == "loop" ? own : nil
        let input = try await BlockingWork.run { try MediaInput.open(path, audioStream: stream, helper: helper, progress: progress.callback) }
        progress.finish()
        return input
    }
}
