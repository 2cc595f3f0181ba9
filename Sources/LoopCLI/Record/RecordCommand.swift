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
        discussion: """
            Shows the group's text with the phrase to read next highlighted, an input level meter \
            and how many phrases are done. Read with a pause after each phrase: the highlight \
            moves on. Keys: r read the current phrase again, b back one phrase, space pause or \
            resume, enter finish and save, q quit without saving (asks). When you finish, the take \
            is cut with the text (as `loop segment --text` does) and saved in one step; phrases \
            that already have audio are replaced only if you recorded them now.

            The take is written to disk as it is captured: after Ctrl-C or a crash, \
            `loop record LOOP --recover` saves what was recorded. --input FILE replays a \
            recording through the same pipeline (at real speed, or --fast); without a terminal \
            it runs to the end of the file and saves, with no keys needed.
            """
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

    func validate() throws {
        if fast && input == nil { throw ValidationError("--fast goes with --input") }
        if !(8_000...192_000).contains(rate) { throw ValidationError("--rate takes 8000 to 192000 (Hz), not \(rate)") }
    }

    func execute() async throws {
        let (library, id) = try libraryOptions.open(resolving: loop)
        let recording = RecordingWorkflow(library: library)
        if recover {
            return try await save { try await recording.recover(loop: id, progress: $0) }
        }
        recording.interrupted(loop: id).forEach { StandardError.write($0.note) }
        let plan = try recording.plan(loop: id, group: group)
        let interactive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        // Without a terminal no key can resume a per-phrase pause: read straight through.
        let decoding = StepProgressBars()
        let recorder = try await recording.recorder(
            for: plan,
            input: input.map { .file(media.file($0), realTime: !fast) }
                ?? .microphone(device: device, sampleRate: rate),
            perPhrase: perPhrase && interactive, progress: decoding.callback)
        decoding.finish()
        guard try await RecordingSession.run(recorder, plan: plan, fullScreen: interactive, images: !noImages)
        else { return }
        try await save { try await recording.save(recorder, progress: $0) }
    }

    /// Saves with `saving` under a progress bar, then says what was saved as `loop new --audio`
    /// says it.
    private func save(_ saving: (@escaping @Sendable (Double) -> Void) async throws -> RecordingWorkflow.Saved)
        async throws
    {
        let progress = ProgressBar("saving")
        let saved = try await saving(progress.callback)
        progress.finish()
        saved.lines.errors.forEach(StandardError.write)
        saved.lines.output.map { print($0) }
    }
}
