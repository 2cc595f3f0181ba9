import ArgumentParser
import Foundation
import LoopWorkflows

/// How a command reads its take: any audio or video file (FFmpeg's libraries decode what
/// libsndfile does not), and which of its audio streams.
struct MediaOptions: ParsableArguments {
    @Option(
        name: .customLong("stream"), parsing: .unconditional,
        help: ArgumentHelp(
            "Of a video or a file with several audio streams, the audio stream to read, counted from 0 (default: the main one).",
            valueName: "n"))
    var stream: Int?

    func validate() throws {
        if let stream, !(0...99).contains(stream) {
            throw ValidationError("--stream takes an audio stream number from 0, not \(stream)")
        }
    }

    /// The file at `path` as the workflows read it. Decoding runs in a `loop decode-media`
    /// process (this program), so that FFmpeg's memory is not added to what follows.
    func file(_ path: String) -> MediaFile { .decodedByThisProgram(path, stream: stream) }
}

/// The check every `--language` option makes: a language code (``LanguageCode``), never a path
/// or anything else that would reach the synthesizer's data folder.
enum LanguageOption {
    static func check(_ value: String?, option: String = "--language") throws {
        guard let value, let problem = Library.languageProblem(value) else { return }
        throw ValidationError("\(option) \(problem)")
    }
}
