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
        abstract: "Show study time and repetitions: of every loop studied, or of one loop's phrases.",
        discussion: """
            --import FILE merges the progress a loop's page kept in a browser (its "Export my \
            progress" button) into the library: each session of a loop that is here, its phrases \
            matched by number and text (a phrase edited since is left out, and counted). A \
            session merged once is not merged again.
            """
    )

    @Argument(help: "A loop, for its phrases.") var loop: String?
    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Print JSON: per loop, sessions, seconds, repetitions, last studied (and phrases).") var json = false

    @Option(
        name: .customLong("import"),
        help: ArgumentHelp("Merge a progress file exported from a loop's page.", valueName: "file"))
    var importFile: String?

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
        let stats = try library.studyStats(loop: try loop.map { try library.resolve($0) })
        if json {
            try JSONOutput.print(stats.map(StudyStatsReport.init))
        } else if stats.isEmpty {
            print(loop == nil ? "nothing studied yet: `loop study LOOP` starts" : "this loop has not been studied yet")
        } else {
            for entry in stats { entry.lines(on: .standardOutput()).forEach { print($0) } }
        }
    }
}
