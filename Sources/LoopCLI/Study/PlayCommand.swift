import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

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

    func validate() throws {
        if phrase != nil && group != nil { throw ValidationError("give --phrase or --group, not both") }
        guard StudyWorkflow.speeds.contains(speed) else { throw ValidationError("--speed takes 0.5 to 1.5") }
    }

    func execute() async throws {
        let library = try libraryOptions.openForReading()
        let studying = StudyWorkflow(library: library)
        let progress = ProgressBar("loading audio")
        let prepared = try await studying.prepare(loop: try library.resolve(loop), progress: progress.callback)
        progress.finish()
        try await studying.playOnce(
            prepared, phrase: phrase, group: group, speed: speed, destination: outputOptions.destination)
    }
}

struct StatsCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show study time, repetitions and reviews: of every loop studied, or of one loop's phrases.",
        discussion: """
            Beside each loop's time and repetitions: the reviews due today and this week, \
            retention (the share of reviews over the last 30 days not rated again), the streak \
            (days in a row with study) and the days studied over the last six months, drawn as a \
            calendar (`loop review` says what is due). With a LOOP, each group begun and its next \
            review, and your last attempts at each phrase with their scores (`loop study --shadow`).


            --import FILE merges the progress a loop's page kept in a browser (its "Export my \
            progress" button) into the library: each session of a loop that is here, its phrases \
            matched by number and text (a phrase edited since is left out, and counted). A \
            session merged once is not merged again.
            """
    )

    @Argument(help: "A loop, for its phrases.") var loop: String?
    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Every loop studied (default: the \(Self.shown) studied last).") var all = false
    @Flag(
        help:
            "Print JSON: loops (sessions, seconds, repetitions, last studied, phrases), reviews, days, groups, attempts."
    )
    var json = false

    @Option(
        name: .customLong("import"),
        help: ArgumentHelp("Merge a progress file exported from a loop's page.", valueName: "file"))
    var importFile: String?

    /// Loops shown without --all.
    static let shown = 20

    func validate() throws {
        if importFile != nil && loop != nil {
            throw ValidationError("--import reads the loops from the file: give no LOOP with it")
        }
    }

    func execute() async throws {
        if let importFile {
            let outcome = try libraryOptions.open().importProgress(from: importFile)
            if json {
                try JSONOutput.print(ProgressImportReport(outcome))
                return
            }
            print(outcome.line)
            outcome.loopsNotHereNote.map(StandardError.write)
            return
        }
        let library = try libraryOptions.openForReading()
        let id = try loop.map { try library.resolve($0) }
        let stats = try library.studyStats(loop: id, limit: json || all ? nil : Self.shown)
        let reviewing = ReviewWorkflow(library: library)
        let reviews = try reviewing.stats()
        let cards = try id.map { try reviewing.cards(ofLoop: $0) }
        let attempts = try id.map { PhraseAttemptsReport.of(try library.attempts(loop: $0)) }
        if json {
            try JSONOutput.print(
                StatsReport(
                    loops: stats.map(StudyStatsReport.init), reviews: ReviewStatsReport(reviews),
                    groups: cards.map(GroupReviewReport.of), attempts: attempts))
            return
        }
        if stats.isEmpty {
            print(loop == nil ? "nothing studied yet: `loop study LOOP` starts" : "this loop has not been studied yet")
            return
        }
        let terminal = Terminal.standardOutput()
        for entry in stats { entry.lines(on: terminal).forEach { print($0) } }
        if id == nil && !all, stats.count == Self.shown, case let more = try library.studiedLoopCount() - stats.count,
            more > 0
        {
            print(terminal.paint("… \(more) more loops studied (`loop stats --all` shows every one)", .dim))
        }
        if let cards, !cards.isEmpty { GroupReviewReport.lines(cards).forEach { print($0) } }
        if let attempts { PhraseAttemptsReport.lines(attempts, on: terminal).forEach { print($0) } }
        print("")
        reviews.lines(on: terminal).forEach { print($0) }
    }
}
