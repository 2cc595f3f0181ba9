import ArgumentParser
import Foundation
import LoopFoundation
import LoopModel
import LoopRecording
import LoopReports
import LoopScreens
import LoopTerminal
import LoopWorkflows

struct RecordCommand: AsyncParsableCommand {
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

    @Argument(help: "The loop: a start of its id, its title, or a start of its title or of a word of it.")
    var loop: String

    @Option(parsing: .unconditional, help: "Record only this group (1-based).")
    var group: Int?

    @Option(help: "The ALSA capture device (see `arecord -L`).")
    var device: String = "default"

    @Option(help: "Replay this recording (any audio file, or a video's audio) instead of capturing.")
    var input: String?

    @OptionGroup var media: MediaOptions

    @Flag(help: "With --input: as fast as it decodes, not at real speed.")
    var fast = false

    @Option(parsing: .unconditional, help: "Capture sample rate.")
    var rate: Int = 48_000

    @Flag(
        name: .customLong("per-phrase"),
        help: "One short take per phrase: recording pauses after each phrase until you press space.")
    var perPhrase = false

    @Flag(help: "Save an interrupted recording of this loop instead of recording.")
    var recover = false

    @Flag(name: .customLong("no-images"), help: "Show no pictures while recording.")
    var noImages = false

    @OptionGroup var libraryOptions: LibraryOptions

    func validate() throws {
        if fast && input == nil { throw ValidationError("--fast goes with --input") }
        if !(8_000...192_000).contains(rate) { throw ValidationError("--rate takes 8000 to 192000 (Hz), not \(rate)") }
    }

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let id = try library.resolve(loop)
            let recording = RecordingWorkflow(library: library)
            if recover {
                let progress = ProgressBar("saving")
                guard let saved = try await recording.recover(loop: id, progress: progress.callback) else {
                    progress.finish()
                    throw CLIError(
                        .refused, "no interrupted recording of '\(try library.loop(id: id).summary.title)' to recover")
                }
                progress.finish()
                report(saved)
                return
            }
            for found in recording.interrupted(loop: id) {
                StandardError.write(
                    String(
                        format:
                            "note: an interrupted recording of this loop (%.1f s) is kept; `loop record %@ --recover` saves it\n",
                        found.seconds, String(id.prefix(8))))
            }
            let plan = try recording.plan(loop: id, group: group)
            let interactive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
            let choice = PictureChoice(plan.loop)
            let pictures = interactive && !noImages ? (choice, await PictureShelf.decode(choice.files)) : nil
            // Without a terminal no key can resume a per-phrase pause: read straight through.
            let decoding = StepProgressBars()
            let recorder = try await recording.recorder(
                for: plan,
                input: input.map { .file(media.file($0), realTime: !fast) }
                    ?? .microphone(device: device, sampleRate: rate),
                perPhrase: perPhrase && interactive, progress: decoding.callback)
            decoding.finish()
            let stop =
                interactive
                ? try await RecordingView.run(
                    recorder: recorder, title: plan.loop.summary.title, phrases: plan.phrases, pictures: pictures)
                : try await Self.runPlain(recorder)
            switch stop {
            case .finish: break
            case .quit:
                recorder.delete()
                return
            case .interrupt:
                StandardError.write(
                    String(
                        format: "interrupted: the take (%.1f s) is kept; `loop record %@ --recover` saves it\n",
                        recorder.status.seconds, String(id.prefix(8))))
                return
            }
            let status = recorder.status
            if status.overruns > 0 {
                StandardError.write(
                    "warning: the input overran \(status.overruns) time\(status.overruns == 1 ? "" : "s"): this machine fell behind and some audio was lost; listen to the cuts\n"
                )
            }
            let progress = ProgressBar("saving")
            let saved = try await recording.save(recorder, progress: progress.callback)
            progress.finish()
            report(saved)
        }
    }

    /// What was saved, as `loop new --audio` says it: a line on standard output, and the
    /// phrases still waiting for audio and the cuts worth a listen on standard error.
    private func report(_ saved: RecordingWorkflow.Saved) {
        switch saved {
        case .nothingRecorded:
            StandardError.write("nothing was recorded; the loop is unchanged\n")
        case .saved(let take):
            take.lines().warnings.forEach(StandardError.write)
            print(take.lines().summary)
        }
    }

    /// No terminal: run to the end of the input (or Ctrl-C), no keys.
    static func runPlain(_ recorder: TakeRecorder) async throws -> TakeRecording.Stop {
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        interrupt.setEventHandler { recorder.interrupt() }
        interrupt.resume()
        defer { interrupt.cancel(); signal(SIGINT, SIG_DFL) }
        for await _ in recorder.start() {}
        return try await recorder.stopped()
    }
}
