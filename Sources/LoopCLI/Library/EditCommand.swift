import ArgumentParser
import Foundation
import LoopFoundation
import LoopModel
import LoopReports
import LoopScreens
import LoopTerminal
import LoopText
import LoopWorkflows

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a loop's text in $EDITOR, its title, language and tags, or its phrases on screen (--phrases).",
        discussion: """
            Without options, opens the loop's text in $VISUAL or $EDITOR (else vi). When you save, \
            the text is split again: every phrase whose text did not change keeps its audio. A \
            phrase whose text you changed in place (a typo fixed) keeps its clip, marked as \
            recorded for its earlier text (`loop attach --changed` records it again); with \
            --drop-changed-audio it loses its clip instead. New, split and merged phrases need \
            audio (`loop attach` cuts a take onto them). With --title, --language, --tag or \
            --untag, changes just those.

            With --phrases, opens the phrase editor: the loop's text full screen, the phrase at \
            the cursor highlighted with its clip's times and a waveform strip. It plays the \
            phrase (as you move, unless auto-play is off), nudges its start or end by 10 or 50 \
            ms (within the kept take; the take is not changed), records it again from the \
            microphone (--capture-device), splits it at the split point in its text and at the \
            nearest pause in its audio, merges it with the next, undoes and redoes. Nothing is \
            written until you save (w, or on leaving, confirmed), then in one transaction. The \
            keys are listed on the screen (and in README).
            """
    )

    @Argument(help: "The loop: a start of its id, its title, or a start of its title or of a word of it.")
    var loop: String

    @Option(help: "A new title.")
    var title: String?

    @Option(help: "A new language code.")
    var language: String?

    @Option(name: .customLong("tag"), help: "Add a tag; repeat for more.")
    var addTags: [String] = []

    @Option(name: .customLong("untag"), help: "Remove a tag; repeat for more.")
    var removeTags: [String] = []

    @Flag(
        name: .customLong("drop-changed-audio"),
        help: "A phrase whose text changes loses its clip (else it keeps it, marked as recorded for its earlier text).")
    var dropChangedAudio = false

    @Flag(help: "Open the phrase editor screen: play, nudge, record again, split and merge phrases.")
    var phrases = false

    @Option(help: "With --phrases: the ALSA device to play on (see `aplay -L`).")
    var device: String = "default"

    @Option(
        name: .customLong("capture-device"), help: "With --phrases: the ALSA device to record from (see `arecord -L`).")
    var captureDevice: String = "default"

    @Option(parsing: .unconditional, help: "With --phrases: the sample rate to record at.")
    var rate: Int = 48_000

    @OptionGroup var libraryOptions: LibraryOptions

    func validate() throws {
        try LanguageOption.check(language)
        if phrases && (title != nil || language != nil || !addTags.isEmpty || !removeTags.isEmpty || dropChangedAudio) {
            throw ValidationError(
                "--phrases opens the phrase editor; give --title, --language, --tag, --untag or --drop-changed-audio without it"
            )
        }
        if !(8_000...192_000).contains(rate) { throw ValidationError("--rate takes 8000 to 192000 (Hz), not \(rate)") }
    }

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let id = try library.resolve(loop)
            if phrases {
                try await editPhrases(library: library, id: id)
                return
            }
            if title != nil || language != nil || !addTags.isEmpty || !removeTags.isEmpty {
                _ = try EditingWorkflow(library: library).updateMetadata(
                    ofLoop: id, title: title, language: language, addTags: addTags, removeTags: removeTags)
                return
            }
            let editing = EditingWorkflow(library: library)
            let draft = try editing.beginTextEdit(loop: id)
            do {
                try ExternalEditor.open(draft.path)
            } catch let error as TerminalError where !draft.isUnchanged {
                // What the person typed before the editor failed is theirs: kept, and named.
                throw TerminalError(error.kind, error.message + "; your text is kept in \(draft.keep())")
            }
            guard case .edited(let outcome) = try editing.finishTextEdit(draft, dropChangedAudio: dropChangedAudio)
            else { return }
            textEditLines(
                loopId: id, recordedForEarlierText: outcome.recordedForEarlierText, needingAudio: outcome.needingAudio
            ).forEach { print($0) }
        }
    }
}

extension EditCommand {
    /// The phrase editor screen, then the save it was asked for.
    func editPhrases(library: Library, id: String) async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw CLIError(
                .refused,
                "the phrase editor needs a terminal (edit the text with `loop edit` and clip times with `loop adjust`)")
        }
        let workflow = try PhraseEditingWorkflow(library: library, loop: id)
        defer { workflow.close() }
        let title = try library.loop(id: id).summary.title
        let progress = ProgressBar("reading the takes")
        try await workflow.measureTakes(progress: progress.callback)
        progress.finish()
        let (editor, save) = try await PhraseEditorScreen.run(
            workflow: workflow, title: title, playbackDevice: device, captureDevice: captureDevice, captureRate: rate)
        guard save, editor.hasUnsavedChanges else { return }
        let saved = try await workflow.save(editor)
        print(
            "Saved '\(saved.summary.title)': \(saved.phrases.count) phrases in \(saved.groups.count) groups (revision \(saved.summary.revision))"
        )
    }
}

struct AdjustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adjust",
        abstract: "Move a phrase's clip boundaries within its take.",
        discussion:
            "Give --start and/or --end in seconds within the take (see `loop show`), or --shift to move both by milliseconds (negative moves earlier). The take is not re-encoded."
    )

    @Argument(help: "The loop: a start of its id, its title, or a start of its title or of a word of it.")
    var loop: String

    @Argument(help: "The phrase number (see `loop show`).")
    var phrase: Int

    @Option(parsing: .unconditional, help: "New start, in seconds within the take.")
    var start: Double?

    @Option(parsing: .unconditional, help: "New end, in seconds within the take.")
    var end: Double?

    @Option(parsing: .unconditional, help: "Move both boundaries by this many milliseconds (negative: earlier).")
    var shift: Double?

    @OptionGroup var libraryOptions: LibraryOptions

    /// The longest take a clip can lie in (a day), and the furthest a shift moves it (an hour).
    static let maxSeconds = 86_400.0, maxShiftMilliseconds = 3_600_000.0

    func validate() throws {
        if shift != nil && (start != nil || end != nil) {
            throw ValidationError("give --shift, or --start/--end, not both")
        }
        if shift == nil && start == nil && end == nil { throw ValidationError("give --start, --end or --shift") }
        guard phrase >= 1 else { throw ValidationError("the phrase number starts at 1, not \(phrase)") }
        for (name, value) in [("--start", start), ("--end", end)] {
            if let value, !(value.isFinite && (0...Self.maxSeconds).contains(value)) {
                throw ValidationError("\(name) takes seconds from 0 to \(Int(Self.maxSeconds)), not \(value)")
            }
        }
        if let shift, !(shift.isFinite && abs(shift) <= Self.maxShiftMilliseconds) {
            throw ValidationError(
                "--shift takes milliseconds from -\(Int(Self.maxShiftMilliseconds)) to \(Int(Self.maxShiftMilliseconds)), not \(shift)"
            )
        }
    }

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let id = try library.resolve(loop)
            let change: EditingWorkflow.ClipChange =
                shift.map { .shift(milliseconds: $0) } ?? .bounds(start: start, end: end)
            try await EditingWorkflow(library: library).adjust(loop: id, phrase: phrase, change)
        }
    }
}

struct AttachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Cut a new take onto the phrases that need audio.",
        discussion:
            "The take reads, with pauses or without, the phrases that have no audio yet (all of them, or those of --group), in order. With --changed, also the phrases whose clip was recorded for an earlier text (see `loop show`). With --group G where every phrase has audio, the take reads the whole group and replaces its audio (the old clips stay until the new take is cut)."
    )

    @Argument(help: "The loop: a start of its id, its title, or a start of its title or of a word of it.")
    var loop: String

    @Option(help: "The take: any audio file, or a video's audio.")
    var audio: String

    @OptionGroup var media: MediaOptions

    @Option(parsing: .unconditional, help: "Only the phrases of this group (1-based).")
    var group: Int?

    @Flag(help: "Also the phrases whose clip was recorded for an earlier text of theirs.")
    var changed = false

    @OptionGroup var libraryOptions: LibraryOptions

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let id = try library.resolve(loop)
            let progress = StepProgressBars([.importing: "attaching"])
            let authored = try await Authoring(library: library).attach(
                loop: id, media: media.file(audio), group: group, includingChanged: changed, progress: progress.callback
            )
            progress.finish()
            authored.doubtfulCutWarnings(adjusting: false).forEach(StandardError.write)
            authored.cuttingLines(loopId: id).forEach(StandardError.write)
        }
    }
}
