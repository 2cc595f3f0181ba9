import ArgumentParser
import Foundation
import LoopAudio
import LoopAuthoring
import LoopStore
import LoopWorkflows

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a loop's text in $EDITOR, or its title, language and tags.",
        discussion: """
            Without options, opens the loop's text in $VISUAL or $EDITOR (else vi). When you save, \
            the text is split again: every phrase whose text did not change keeps its audio. A \
            phrase whose text you changed in place (a typo fixed) keeps its clip, marked as \
            recorded for its earlier text (`loop attach --changed` records it again); with \
            --drop-changed-audio it loses its clip instead. New, split and merged phrases need \
            audio (`loop attach` cuts a take onto them). With --title, --language, --tag or \
            --untag, changes just those.
            """
    )

    @Argument(help: "The loop: a start of its id, its title, or a start of its title.")
    var loop: String

    @Option(help: "A new title.")
    var title: String?

    @Option(help: "A new language code.")
    var language: String?

    @Option(name: .customLong("tag"), help: "Add a tag; repeat for more.")
    var addTags: [String] = []

    @Option(name: .customLong("untag"), help: "Remove a tag; repeat for more.")
    var removeTags: [String] = []

    @Flag(name: .customLong("drop-changed-audio"), help: "A phrase whose text changes loses its clip (else it keeps it, marked as recorded for its earlier text).")
    var dropChangedAudio = false

    @OptionGroup var libraryOptions: LibraryOptions

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let id = try library.resolve(loop)
            if title != nil || language != nil || !addTags.isEmpty || !removeTags.isEmpty {
                _ = try library.updateMetadata(ofLoop: id, title: title, language: language, addTags: addTags, removeTags: removeTags)
                return
            }
            let editing = EditingWorkflow(library: library)
            let draft = try editing.beginTextEdit(loop: id)
            try Editor.open(draft.path)
            guard case .edited(let outcome) = try editing.finishTextEdit(draft, dropChangedAudio: dropChangedAudio) else { return }
            let changed = outcome.recordedForEarlierText
            if !changed.isEmpty {
                print("\(changed.count) changed phrase\(changed.count == 1 ? " keeps its clip" : "s keep their clips"), recorded for the earlier text (`loop attach \(id.prefix(8)) --changed --audio TAKE` records \(changed.count == 1 ? "it" : "them") again):")
                for phrase in changed { print("  \(phrase.number)  \(phrase.text)  (recorded as “\(phrase.recordedText ?? "")”)") }
            }
            if !outcome.needingAudio.isEmpty {
                print("\(outcome.needingAudio.count) phrase\(outcome.needingAudio.count == 1 ? "" : "s") need audio (`loop attach \(id.prefix(8)) --audio TAKE`):")
                for phrase in outcome.needingAudio { print("  \(phrase.number)  \(phrase.text)") }
            }
        }
    }
}

/// The user's editor, run on a file in the foreground.
enum Editor {
    static func open(_ path: String) throws {
        let environment = ProcessInfo.processInfo.environment
        let command = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The editor command may carry arguments ("code --wait"): let the shell split it.
        process.arguments = ["-c", command + " \"$1\"", "editor", path]
        do {
            try process.run()
        } catch {
            throw CLIError("cannot start the editor '\(command)': \(error.localizedDescription); set $EDITOR")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError("the editor '\(command)' exited with status \(process.terminationStatus); the loop is unchanged")
        }
    }
}

struct AdjustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adjust",
        abstract: "Move a phrase's clip boundaries within its take.",
        discussion: "Give --start and/or --end in seconds within the take (see `loop show`), or --shift to move both by milliseconds (negative moves earlier). The take is not re-encoded."
    )

    @Argument(help: "The loop: a start of its id, its title, or a start of its title.")
    var loop: String

    @Argument(help: "The phrase number (see `loop show`).")
    var phrase: Int

    @Option(help: "New start, in seconds within the take.")
    var start: Double?

    @Option(help: "New end, in seconds within the take.")
    var end: Double?

    @Option(parsing: .unconditional, help: "Move both boundaries by this many milliseconds (negative: earlier).")
    var shift: Double?

    @OptionGroup var libraryOptions: LibraryOptions

    /// The longest take a clip can lie in (a day), and the furthest a shift moves it (an hour).
    static let maxSeconds = 86_400.0, maxShiftMilliseconds = 3_600_000.0

    func validate() throws {
        if shift != nil && (start != nil || end != nil) { throw ValidationError("give --shift, or --start/--end, not both") }
        if shift == nil && start == nil && end == nil { throw ValidationError("give --start, --end or --shift") }
        guard phrase >= 1 else { throw ValidationError("the phrase number starts at 1, not \(phrase)") }
        for (name, value) in [("--start", start), ("--end", end)] {
            if let value, !(value.isFinite && (0...Self.maxSeconds).contains(value)) {
                throw ValidationError("\(name) takes seconds from 0 to \(Int(Self.maxSeconds)), not \(value)")
            }
        }
        if let shift, !(shift.isFinite && abs(shift) <= Self.maxShiftMilliseconds) {
            throw ValidationError("--shift takes milliseconds from -\(Int(Self.maxShiftMilliseconds)) to \(Int(Self.maxShiftMilliseconds)), not \(shift)")
        }
    }

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let id = try library.resolve(loop)
            let change: EditingWorkflow.ClipChange = shift.map { .shift(milliseconds: $0) } ?? .bounds(start: start, end: end)
            try await EditingWorkflow(library: library).adjust(loop: id, phrase: phrase, change)
        }
    }
}

struct AttachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Cut a new take onto the phrases that need audio.",
        discussion: "The take reads, with pauses, the phrases that have no audio yet (all of them, or those of --group), in order. With --changed, also the phrases whose clip was recorded for an earlier text (see `loop show`)."
    )

    @Argument(help: "The loop: a start of its id, its title, or a start of its title.")
    var loop: String

    @Option(help: "The take: any audio file, or a video's audio.")
    var audio: String

    @OptionGroup var media: MediaOptions

    @Option(help: "Only the phrases of this group (1-based).")
    var group: Int?

    @Flag(help: "Also the phrases whose clip was recorded for an earlier text of theirs.")
    var changed = false

    @OptionGroup var libraryOptions: LibraryOptions

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let id = try library.resolve(loop)
            let progress = ProgressBar("attaching")
            let input = try await media.open(audio)
            defer { withExtendedLifetime(input) {} }
            let authored = try await Authoring(library: library).attach(loop: id, takePath: input.path, group: group, includingChanged: changed, progress: progress.callback)
            progress.finish()
            for cut in authored.doubtfulCuts {
                StandardError.write(String(format: "warning: the cut between phrases %d and %d has low confidence %.2f; listen to it\n", cut.before, cut.after, cut.confidence))
            }
        }
    }
}
