import ArgumentParser
import Foundation
import LoopReports
import LoopScreens
import LoopTerminal
import LoopWorkflows

struct RecordCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a loop's text in one take; phrases are cut as you read.",
        discussion: CommandHelp.record
    )

    @Argument(help: .loop) var loop: String
    @Option(parsing: .unconditional, help: "Record only this group (1-based).") var group: Int?
    @Option(help: "The ALSA capture device (see `arecord -L`).") var device: String = "default"
    @Option(help: "Replay this recording (any audio file, or a video's audio) instead of capturing.") var input: String?
    @OptionGroup var media: MediaOptions
    @Flag(help: "With --input: as fast as it decodes, not at real speed.") var fast = false
    @Option(parsing: .unconditional, help: "Capture sample rate.") var rate: Int = 48_000
    @Flag(
        name: .customLong("per-phrase"),
        help: "One short take per phrase: recording pauses after each phrase until you press space.")
    var perPhrase = false
    @Flag(help: "Save an interrupted recording of this loop instead of recording.") var recover = false
    @Flag(name: .customLong("no-images"), help: "Show no pictures while recording.") var noImages = false
    @OptionGroup var libraryOptions: LibraryOptions

    var interactive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    var request: RecordRequest {
        var request = RecordRequest(loop: loop)
        (request.group, request.device, request.rate) = (group, device, rate)
        (request.input, request.fast, request.recover) = (input.map(media.file), fast, recover)
        // Without a terminal no key can resume a per-phrase pause: read straight through.
        request.perPhrase = perPhrase && interactive
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws {
        let progress = StepProgressBars()
        let outcome = try await libraryOptions.open().record(request, progress: progress.callback) { session in
            progress.finish()
            for unsaved in session.unsaved { StandardError.write(unsaved.note) }
            return try await RecordingScreen.run(session, fullScreen: interactive, images: !noImages)
        }
        progress.finish()
        outcome.printed()
    }
}
