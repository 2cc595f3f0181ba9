import ArgumentParser
import Foundation
import LoopScreens
import LoopTerminal
import LoopWorkflows

struct StudyCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Study a loop: its phrases on a loop, with gaps to speak along or repeat aloud.",
        discussion: """
            repeat-with-me plays each phrase, then a gap to say it along (the gap factor times the \
            phrase's length, plus 0.3 s); listen-and-repeat plays the whole group, then a silence \
            as long as the group times the factor, to repeat it aloud. The selection loops until \
            you quit, or for --rounds, or once with --once.

            On a terminal a full-screen view shows the groups, the current phrase and the keys \
            (? for help), and the picture of the phrase (else of its group, else of the loop): \
            kitty graphics in kitty, sixel where the terminal says it has them, character art \
            otherwise; --no-images shows none. Without a terminal, or with --once, it prints a \
            line per step.

            Sound goes to the sound card (--device, default `default`), or to a file (--output \
            track.mp3, with --once or --rounds: a study track to take along, in the format its name \
            says: WAV, FLAC, Ogg, Opus, MP3 or AIFF), or nowhere (--output null). Time and repetitions per phrase are saved (`loop stats`).

            --shadow (repeat-with-me) records you during each gap from the sound card \
            (--capture-device, default `default`) and scores each attempt against the phrase's \
            clip: how much was said and which words were missed, the pace against the model's and \
            the word furthest from it, and how closely the melody follows the model's (0 to 1; \
            `loop compare` says how). In the view, c plays the model, then your last attempt. \
            The last \(ShadowingWorkflow.attemptsKeptPerPhrase) attempts of each phrase are kept \
            in the library (at most \(ShadowingWorkflow.attemptMebibytes) MiB in all: the oldest \
            go first); `loop stats LOOP` shows them; bundles never carry them.
            """
    )

    @Argument(help: .loop) var loop: String
    @Option(help: "Groups to study, e.g. 1,3-4 (default: all).") var groups: String?
    @Option(help: "repeat-with-me or listen-and-repeat.") var mode: StudyWorkflow.Mode = StudyWorkflow.defaultMode

    @OptionGroup var pacing: StudyPacingOptions

    @Option(parsing: .unconditional, help: "Rounds through the selection, then stop (default: until you quit).")
    var rounds: Int?

    @Flag(help: "Play the selection once through, then exit (no keys needed).") var once = false

    @Flag(name: .customLong("no-images"), help: "Show no pictures (the loop's, its groups' and its phrases').")
    var noImages = false

    @Flag(help: "Record yourself during each gap and score each attempt against the phrase (repeat-with-me).")
    var shadow = false
    @Option(
        name: .customLong("capture-device"), help: "With --shadow: the ALSA device to record from (see `arecord -L`).")
    var captureDevice: String = "default"

    @OptionGroup var outputOptions: SoundOutputOptions
    @OptionGroup var libraryOptions: LibraryOptions

    func validate() throws {
        if shadow && mode != StudyWorkflow.shadowingMode {
            throw ValidationError("--shadow records the gap after each phrase: it goes with --mode repeat-with-me")
        }
        if let rounds, !(1...10_000).contains(rounds) {
            throw ValidationError("--rounds takes 1 to 10000, not \(rounds)")
        }
        if once && rounds != nil { throw ValidationError("give --once or --rounds, not both") }
        try outputOptions.validate(finite: once || rounds != nil)
        if let problem = groups.flatMap(StudyWorkflow.groupsProblem) { throw ValidationError(problem) }
    }

    func execute() async throws {
        try ReviewWorkflow.checkClock()
        let library = try libraryOptions.openForStudy()
        let studying = StudyWorkflow(library: library)
        let progress = ProgressBar("loading audio")
        let prepared = try await studying.prepare(loop: try library.resolve(loop), progress: progress.callback)
        progress.finish()
        let shadowing = shadow ? try studying.shadowing(prepared, device: captureDevice) : nil
        let player = try studying.player(
            for: prepared, mode: mode, repeats: pacing.repeats, gapFactor: pacing.gapFactor, speed: pacing.speed,
            rounds: once ? 1 : rounds, groups: groups, destination: outputOptions.destination, realTime: !once,
            shadowing: shadowing)
        let started = Date()
        let outcome = try await StudySessionRunner.run(
            player: player, prepared: prepared,
            fullScreen: !once && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1,
            images: !noImages, printing: !once || !outputOptions.isQuiet, shadowing: shadowing)
        if let shadowing, let failure = await shadowing.waitForAttempts().failure {
            StandardError.write("warning: shadowing stopped: \(describe(failure))\n")
        }
        try await studying.save(
            outcome.study, of: prepared, startedAt: started,
            reviews: ReviewWorkflow.ratings(studied: outcome.studiedGroups, rated: outcome.ratings, at: Date()))
    }
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

    func validate() throws {
        guard (1...100).contains(repeats) else { throw ValidationError("--repeats takes 1 to 100, not \(repeats)") }
        guard gapFactor >= 0, gapFactor <= 10 else { throw ValidationError("--gap-factor takes 0 to 10") }
        guard StudyWorkflow.speeds.contains(speed) else { throw ValidationError("--speed takes 0.5 to 1.5") }
    }
}

/// `--device`, `--output`: where the sound goes.
struct SoundOutputOptions: ParsableArguments {
    @Option(help: "The ALSA device to play on (see `aplay -L`).") var device: String = "default"

    @Option(
        help:
            "Write the sound to this file instead (WAV, FLAC, Ogg, Opus, MP3 or AIFF, as its extension says), or `null` to discard it."
    )
    var output: String?

    /// Rendering to a file or nowhere prints no step lines unless asked.
    var isQuiet: Bool { output != nil }

    func validate(finite: Bool) throws {
        if let output, output != "null", !finite {
            throw ValidationError(
                "--output \(output) needs --once or --rounds: a file cannot hold a session that never ends")
        }
        // (A path that is no file to write, a folder or a FIFO, is refused as such when opened.)
        if let output, output != "null", !StudyWorkflow.SoundDestination.isWritable(output) {
            throw ValidationError(
                "--output \(output): the name does not say which audio format to write; end it in .wav, .flac, .ogg, .opus, .mp3 or .aiff"
            )
        }
    }

    /// Where the sound goes.
    var destination: StudyWorkflow.SoundDestination {
        switch output {
        case "null": .nowhere
        case let path?: .file(path)
        case nil: .device(device)
        }
    }
}

extension StudyWorkflow.Mode: ExpressibleByArgument {}
