import ArgumentParser
import Foundation
import LoopModel
import LoopReports
import LoopScreens
import LoopTerminal
import LoopWorkflows

struct StudyCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract: "Study a loop: its phrases on a loop, with gaps to speak along or repeat aloud.",
        discussion: CommandHelp.study
    )

    @Argument(help: .loop) var loop: String
    @Option(help: "Groups to study, e.g. 1,3-4 (default: all).") var groups: String?
    @Option(help: "repeat-with-me or listen-and-repeat.") var mode: StudyMode = .repeatWithMe
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

    var request: StudyRequest {
        var request = StudyRequest(loop: loop)
        (request.groups, request.pacing, request.rounds, request.once) = (groups, pacing.pacing(mode), rounds, once)
        (request.sound, request.shadow, request.captureDevice) = (outputOptions.sound, shadow, captureDevice)
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws {
        let progress = StepProgressBars()
        let fullScreen = !once && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        let summary = try await libraryOptions.open(.study).study(request, progress: progress.callback) { run in
            progress.finish()
            return try await StudySessionRunner.run(
                run, fullScreen: fullScreen, images: !noImages, printing: !once || !outputOptions.sound.isRendered,
                attemptWords: AttemptWords.line)
        }
        summary.printed()
    }
}

struct PlayCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a loop's audio once, without the study view: all of it, a phrase, or a group."
    )

    @Argument(help: .loop) var loop: String
    @Option(parsing: .unconditional, help: "Only this phrase (its number in `loop show`).") var phrase: Int?
    @Option(parsing: .unconditional, help: "Only this group (1-based).") var group: Int?
    @Option(parsing: .unconditional, help: "Playback speed, pitch kept: 0.5 to 1.5.") var speed: Double = 1.0
    @OptionGroup var outputOptions: SoundOutputOptions
    @OptionGroup var libraryOptions: LibraryOptions

    var request: PlayRequest {
        var request = PlayRequest(loop: loop)
        (request.phrase, request.group, request.speed, request.sound) = (phrase, group, speed, outputOptions.sound)
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws {
        let progress = StepProgressBars()
        defer { progress.finish() }
        try await libraryOptions.open(.readOnly).play(request, progress: progress.callback)
    }
}

struct CompareCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Score a recording of yourself saying a phrase against the model recording.",
        discussion: CommandHelp.compare
    )

    @Argument(help: "Your recording (WAV, FLAC, Ogg, MP3...).") var attempt: String
    @Option(parsing: .unconditional, help: "The model recording of the phrase.") var model: String
    @Option(parsing: .unconditional, help: "The phrase's text (its words are named in the score).") var text: String
    @Option(parsing: .unconditional, help: "The text's language (e.g. fr; default: guessed from the text).")
    var language: String?
    @Flag(help: "Print the score as JSON.") var json = false

    var request: CompareRequest { CompareRequest(attempt: attempt, model: model, text: text, language: language) }

    func validate() throws { try check(request.check) }

    func execute() async throws { try AttemptReport(try Shadowing.compare(request)).print(json: json) }
}
