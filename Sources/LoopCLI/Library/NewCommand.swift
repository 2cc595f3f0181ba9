import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct NewCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Add a loop to the library from its text and, optionally, a take.",
        discussion: CommandHelp.`new`
    )

    @Option(help: "The loop's text file (UTF-8); - reads it from standard input, as pasted.") var text: String?

    @Option(
        name: [.customLong("audio"), .customLong("media")],
        help:
            "A take reading the text with a pause after each phrase, or the film or podcast the subtitles go with: any audio or video file."
    )
    var audio: String?

    @Option(help: "Subtitles (.srt or .vtt) of the media: each cue becomes a phrase (instead of --text).")
    var subtitles: String?
    @Option(help: "Subtitles in the second language (.srt or .vtt): the phrases' translations, by time.")
    var translation: String?
    @Option(parsing: .unconditional, help: "Move every cue by this many milliseconds (negative: earlier).")
    var shift: Int = 0
    @Option(
        parsing: .unconditional,
        help: "With --subtitles: start a group where the dialogue pauses longer than this (seconds).")
    var groupPause: Double = 2
    @Option(parsing: .unconditional, help: "With --subtitles: a group every this many cues instead.")
    var groupSize: Int?
    @Option(help: "With --translation: the translation's language code, e.g. en.") var translationLanguage: String?
    @Option(help: "The title (default: the text's `# title:`, else its first phrase).") var title: String?
    @Option(help: "The language code, e.g. fr (default: the text's `# language:`).") var language: String?
    @Option(name: .customLong("tag"), help: "A tag; repeat for more.") var tags: [String] = []
    @OptionGroup var textOptions: TextOptions
    @OptionGroup var media: MediaOptions
    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Print the new loop as JSON (the shape of `loop show --json`).") var json = false

    var request: NewLoopRequest {
        var request = NewLoopRequest()
        (request.text, request.splitSentences, request.media) = (text, textOptions.sentences, audio.map(media.file))
        (request.subtitles, request.translation, request.shift) = (subtitles, translation, shift)
        (request.groupPause, request.groupSize) = (groupPause, groupSize)
        (request.title, request.language, request.translationLanguage) = (title, language, translationLanguage)
        request.tags = tags
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws {
        if text == "-" && isatty(STDIN_FILENO) == 1 {
            StandardError.write("Paste or type the text, then press Ctrl-D on a line of its own.\n")
        }
        let progress = StepProgressBars()
        let authored = try await libraryOptions.open().newLoop(request, progress: progress.callback)
        progress.finish()
        try authored.printAdded(json: json)
    }
}

struct AttachCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Cut a new take onto the phrases that need audio.",
        discussion: CommandHelp.attach
    )

    @Argument(help: .loop) var loop: String
    @Option(help: "The take: any audio file, or a video's audio.") var audio: String
    @OptionGroup var media: MediaOptions
    @Option(parsing: .unconditional, help: "Only the phrases of this group (1-based).") var group: Int?
    @Flag(help: "Also the phrases whose clip was recorded for an earlier text of theirs.") var changed = false
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let progress = StepProgressBars([.importing: "attaching"])
        let authored = try await libraryOptions.open().attach(
            AttachRequest(loop: loop, media: media.file(audio), group: group, includingChanged: changed),
            progress: progress.callback)
        progress.finish()
        authored.printAttached()
    }
}
