import ArgumentParser
import Foundation
import LoopWorkflows

/// `loop decode-media IN OUT [--stream N]`: not for people; the process the commands that read
/// a take run to decode media through FFmpeg's libraries (``MediaInput``), so that the
/// libraries' memory goes when it ends. Prints `progress SHARE` and `alive` lines (every 10 s
/// of audio), then `decoded DESCRIPTION`; failing, `error CODE MESSAGE` on standard error and
/// status 1.
struct DecodeMediaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-media",
        abstract: "Decode a media file's audio into FLAC (used by the commands that read a take).",
        shouldDisplay: false)

    @Argument(help: "The media file.") var input: String
    @Argument(help: "The FLAC file to write.") var output: String
    @Option(name: .customLong("stream"), parsing: .unconditional, help: "The audio stream, from 0.") var stream: Int?

    func run() throws {
        guard MediaDecoding.serve(input, stream: stream, to: output) else { throw ExitCode.failure }
    }
}
