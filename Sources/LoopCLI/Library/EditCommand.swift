import ArgumentParser
import Foundation
import LoopReports
import LoopScreens
import LoopTerminal
import LoopWorkflows

struct EditCommand: ReportingCommand {
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

    @Argument(help: .loop) var loop: String
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new language code.") var language: String?
    @Option(name: .customLong("tag"), help: "Add a tag; repeat for more.") var addTags: [String] = []
    @Option(name: .customLong("untag"), help: "Remove a tag; repeat for more.") var removeTags: [String] = []

    @Flag(
        name: .customLong("drop-changed-audio"),
        help: "A phrase whose text changes loses its clip (else it keeps it, marked as recorded for its earlier text).")
    var dropChangedAudio = false

    @Flag(help: "Open the phrase editor screen: play, nudge, record again, split and merge phrases.")
    var phrases = false

    @Option(help: "With --phrases: the ALSA device to play on (see `aplay -L`).") var device: String = "default"

    @Option(
        name: .customLong("capture-device"), help: "With --phrases: the ALSA device to record from (see `arecord -L`).")
    var captureDevice: String = "default"

    @Option(parsing: .unconditional, help: "With --phrases: the sample rate to record at.") var rate: Int = 48_000
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

    func execute() async throws {
        let (library, id) = try libraryOptions.open(resolving: loop)
        if phrases {
            let saved = try await PhraseEditorScreen.edit(
                loop: id, of: library, playbackDevice: device, captureDevice: captureDevice, captureRate: rate)
            if let saved {
                print(phraseEditorSavedLine(saved.loop))
                if saved.reviewsRestarted > 0 { print(ReviewWords.restartedLine(saved.reviewsRestarted)) }
            }
            return
        }
        if title != nil || language != nil || !addTags.isEmpty || !removeTags.isEmpty {
            _ = try EditingWorkflow(library: library).updateMetadata(
                ofLoop: id, title: title, language: language, addTags: addTags, removeTags: removeTags)
            return
        }
        let edited = try EditingWorkflow(library: library).editText(ofLoop: id, dropChangedAudio: dropChangedAudio)
        guard let outcome = edited else { return }
        textEditLines(loopId: id, outcome).forEach { print($0) }
    }
}

struct AdjustCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "adjust",
        abstract: "Move a phrase's clip boundaries within its take.",
        discussion:
            "Give --start and/or --end in seconds within the take (see `loop show`), or --shift to move both by milliseconds (negative moves earlier). The take is not re-encoded."
    )

    @Argument(help: .loop) var loop: String
    @Argument(help: "The phrase number (see `loop show`).") var phrase: Int
    @Option(parsing: .unconditional, help: "New start, in seconds within the take.") var start: Double?
    @Option(parsing: .unconditional, help: "New end, in seconds within the take.") var end: Double?

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

    func execute() async throws {
        let (library, id) = try libraryOptions.open(resolving: loop)
        let change: EditingWorkflow.ClipChange =
            shift.map { .shift(milliseconds: $0) } ?? .bounds(start: start, end: end)
        try await EditingWorkflow(library: library).adjust(loop: id, phrase: phrase, change)
    }
}

struct AttachCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Cut a new take onto the phrases that need audio.",
        discussion:
            "The take reads, with pauses or without, the phrases that have no audio yet (all of them, or those of --group), in order. With --changed, also the phrases whose clip was recorded for an earlier text (see `loop show`). With --group G where every phrase has audio, the take reads the whole group and replaces its audio (the old clips stay until the new take is cut)."
    )

    @Argument(help: .loop) var loop: String
    @Option(help: "The take: any audio file, or a video's audio.") var audio: String
    @OptionGroup var media: MediaOptions
    @Option(parsing: .unconditional, help: "Only the phrases of this group (1-based).") var group: Int?
    @Flag(help: "Also the phrases whose clip was recorded for an earlier text of theirs.") var changed = false
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let (library, id) = try libraryOptions.open(resolving: loop)
        let progress = StepProgressBars([.importing: "attaching"])
        let authored = try await Authoring(library: library).attach(
            loop: id, media: media.file(audio), group: group, includingChanged: changed, progress: progress.callback
        )
        progress.finish()
        authored.doubtfulCutWarnings(adjusting: false).forEach(StandardError.write)
        authored.cuttingLines(loopId: id).forEach(StandardError.write)
        print(authored.attachedLine)
    }
}
