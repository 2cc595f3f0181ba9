import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct NewCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Add a loop to the library from its text and, optionally, a take.",
        discussion: """
            The text is split into groups and phrases (see `loop split`). With --audio, the take \
            is cut at its pauses so that every phrase gets its clip; the take itself is kept in \
            the library, so boundaries can be moved later (`loop adjust`). Cuts worth a listen \
            are named on standard error.

            From a film or a podcast with subtitles: --media FILE --subtitles FILE.srt|.vtt \
            makes a phrase of each cue (its text cleaned of tags, speaker labels and sound \
            descriptions), starts a group where the dialogue pauses (--group-pause) or every \
            --group-size cues, takes the translations from --translation FILE.srt|.vtt by time \
            overlap, and moves each clip's edges to the speech's edges around the cue, so that no \
            clip starts or ends inside a word. --shift MS moves every cue first (for subtitles \
            made for another cut of the film).
            """
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

    func validate() throws {
        try LanguageOption.check(language)
        try LanguageOption.check(translationLanguage, option: "--translation-language")
        if text == nil && subtitles == nil {
            throw ValidationError("give the loop's text with --text, or --media and --subtitles")
        }
        if text != nil && subtitles != nil { throw ValidationError("give --text or --subtitles, not both") }
        if subtitles != nil && audio == nil {
            throw ValidationError("--subtitles goes with --media FILE, the film or recording they belong to")
        }
        if subtitles == nil && (translation != nil || shift != 0 || groupSize != nil) {
            throw ValidationError("--translation, --shift and --group-size go with --subtitles")
        }
        if !(0.2...60).contains(groupPause) { throw ValidationError("--group-pause takes 0.2 to 60 seconds") }
        if let groupSize, !(1...500).contains(groupSize) { throw ValidationError("--group-size takes 1 to 500 cues") }
        if abs(shift) > 3_600_000 { throw ValidationError("--shift takes at most an hour (3600000 ms)") }
    }

    func execute() async throws {
        let authoring = Authoring(library: try libraryOptions.open())
        let progress = StepProgressBars()
        defer { progress.finish() }
        if text == "-" && isatty(STDIN_FILENO) == 1 {
            StandardError.write("Paste or type the text, then press Ctrl-D on a line of its own.\n")
        }
        let authored =
            if let subtitles, let audio {
                try await authoring.author(
                    subtitleFile: subtitles, translationFile: translation, shift: Double(shift) / 1000,
                    media: media.file(audio), groupPause: groupPause, groupSize: groupSize, title: title,
                    language: language, translationLanguage: translationLanguage, tags: tags,
                    progress: progress.callback)
            } else {
                try await authoring.author(
                    textFile: text ?? "-", splitSentences: textOptions.sentences, media: audio.map(media.file),
                    title: title, language: language, tags: tags, progress: progress.callback)
            }
        progress.finish()
        if subtitles == nil { authored.doubtfulCutWarnings(adjusting: true).forEach(StandardError.write) }
        authored.cuttingLines.forEach(StandardError.write)
        authored.namesakeWarning.map(StandardError.write)
        if json {
            try JSONOutput.print(LoopDetailReport(authored.loop))
        } else {
            print(authored.addedLine(withTake: audio != nil))
        }
    }
}
