import ArgumentParser
import Foundation
import LoopModel
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

    /// The file at `path` as the library reads it. Decoding runs in a `loop decode-media`
    /// process (this program), so that FFmpeg's memory is not added to what follows.
    func file(_ path: String) -> MediaFile { .decodedByThisProgram(path, stream: stream) }
}

/// Options every command that reads a loop's text shares.
struct TextOptions: ParsableArguments {
    @Flag(name: .long, help: "Also split long lines into sentences (at . ! ? … and 。！？).") var sentences = false
}

/// `--device`, `--output`: where the sound goes.
struct SoundOutputOptions: ParsableArguments {
    @Option(help: "The ALSA device to play on (see `aplay -L`).") var device: String = "default"

    @Option(
        help:
            "Write the sound to this file instead (WAV, FLAC, Ogg, Opus, MP3 or AIFF, as its extension says), or `null` to discard it."
    )
    var output: String?

    var sound: SoundOutput { SoundOutput(device: device, output: output) }
}

/// `--repeats`, `--gap-factor`, `--speed`: how a study session is paced.
struct StudyPacingOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Plays of each phrase (or group) before moving on: 1 to 100.")
    var repeats: Int = 1

    @Option(
        name: .customLong("gap-factor"), parsing: .unconditional,
        help: "The gap after a phrase or group, as a multiple of its length.")
    var gapFactor: Double = 1.0

    @Option(parsing: .unconditional, help: "Playback speed, pitch kept: 0.5 to 1.5.") var speed: Double = 1.0

    func pacing(_ mode: StudyMode) -> StudyPacing {
        StudyPacing(mode: mode, repeats: repeats, gapFactor: gapFactor, speed: speed)
    }
}

extension StudyMode: ExpressibleByArgument {}
