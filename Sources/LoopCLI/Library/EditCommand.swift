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
        discussion: CommandHelp.edit
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

    var request: EditRequest {
        var request = EditRequest(loop: loop)
        (request.title, request.language, request.addTags, request.removeTags) = (title, language, addTags, removeTags)
        (request.dropChangedAudio, request.phrases) = (dropChangedAudio, phrases)
        (request.device, request.captureDevice, request.rate) = (device, captureDevice, rate)
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws {
        let drivers = EditDrivers(text: ExternalEditor.open) { session in
            guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                throw CommandRefusal(
                    "the phrase editor needs a terminal (edit the text with `loop edit` and clip times with `loop adjust`)"
                )
            }
            return try await PhraseEditorScreen.run(session)
        }
        let progress = StepProgressBars([.loading: "reading the takes"])
        let edited = try await libraryOptions.open().edit(request, drivers: drivers, progress: progress.callback)
        progress.finish()
        for line in edited.lines { print(line) }
    }
}

struct AdjustCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "adjust",
        abstract: "Move a phrase's clip boundaries within its take.",
        discussion: CommandHelp.adjust
    )

    @Argument(help: .loop) var loop: String
    @Argument(help: "The phrase number (see `loop show`).") var phrase: Int
    @Option(parsing: .unconditional, help: "New start, in seconds within the take.") var start: Double?
    @Option(parsing: .unconditional, help: "New end, in seconds within the take.") var end: Double?
    @Option(parsing: .unconditional, help: "Move both boundaries by this many milliseconds (negative: earlier).")
    var shift: Double?
    @OptionGroup var libraryOptions: LibraryOptions

    var request: AdjustRequest { AdjustRequest(loop: loop, phrase: phrase, start: start, end: end, shift: shift) }

    func validate() throws { try check(request.check) }

    func execute() async throws { try await libraryOptions.open().adjust(request) }
}

/// `loop image`: a picture for a loop, a group or a phrase.
struct ImageCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Give a loop, a group or a phrase a picture (PNG, JPEG, WebP or GIF), or take it off.",
        discussion: CommandHelp.image
    )

    @Argument(help: .loop) var loop: String
    @Argument(help: "The picture file (PNG, JPEG, WebP or GIF).") var file: String?
    @Option(parsing: .unconditional, help: "The group (1-based) to give it to, rather than the loop.") var group: Int?
    @Option(parsing: .unconditional, help: "The phrase (1-based, across the loop; see `loop show`) to give it to.")
    var phrase: Int?
    @Flag(help: "Take the picture off (the file stays in the library until `loop gc`).") var remove = false
    @OptionGroup var libraryOptions: LibraryOptions

    var request: PictureRequest { PictureRequest(loop: loop, file: file, group: group, phrase: phrase, remove: remove) }

    func validate() throws { try check(request.check) }

    func execute() async throws { try await libraryOptions.open().setPicture(request) }
}
