import ArgumentParser
import Foundation
import LoopFoundation
import LoopReports
import LoopStudy
import LoopTerminal
import LoopWorkflows

struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a loop's audio once, without the study view: all of it, a phrase, or a group."
    )

    @Argument(help: "The loop: a start of its id, its title, or a start of its title or of a word of it.")
    var loop: String

    @Option(parsing: .unconditional, help: "Only this phrase (its number in `loop show`).")
    var phrase: Int?

    @Option(parsing: .unconditional, help: "Only this group (1-based).")
    var group: Int?

    @Option(parsing: .unconditional, help: "Playback speed, pitch kept: 0.5 to 1.5.")
    var speed: Double = 1.0

    @OptionGroup var outputOptions: SoundOutputOptions
    @OptionGroup var libraryOptions: LibraryOptions

    func validate() throws {
        if phrase != nil && group != nil { throw ValidationError("give --phrase or --group, not both") }
        guard StudySettings.speeds.contains(speed) else { throw ValidationError("--speed takes 0.5 to 1.5") }
    }

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.openForReading()
            let progress = ProgressBar("loading audio")
            let prepared = try await StudyWorkflow(library: library).prepare(
                loop: try library.resolve(loop), progress: progress.callback)
            progress.finish()
            var groups = prepared.groups
            if let phrase {
                guard let found = groups.flatMap({ $0 }).first(where: { $0.number == phrase }) else {
                    throw CLIError(.refused, "the loop has \(groups.flatMap { $0 }.count) phrases, not \(phrase)")
                }
                groups = [[found]]
            } else if let group {
                guard groups.indices.contains(group - 1) else {
                    throw CLIError(.refused, "the loop has \(groups.count) groups, not \(group)")
                }
                groups = [groups[group - 1]]
            }
            try await StudyWorkflow(library: library).playOnce(
                prepared, groups: groups, speed: speed, destination: outputOptions.destination)
        }
    }
}

struct StatsCommand: AsyncParsableCommand {
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

    @Argument(help: "A loop, for its phrases.")
    var loop: String?

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Print JSON: per loop, sessions, seconds, repetitions, last studied (and phrases).")
    var json = false

    @Option(
        name: .customLong("import"),
        help: ArgumentHelp("Merge a progress file exported from a loop's page.", valueName: "file"))
    var importFile: String?

    func validate() throws {
        if importFile != nil && loop != nil {
            throw ValidationError("--import reads the loops from the file: give no LOOP with it")
        }
    }

    func run() async throws {
        if let importFile {
            try await runReportingErrors {
                let outcome = try libraryOptions.open().importProgress(from: importFile)
                if json {
                    try JSONOutput.print(ProgressImportReport(outcome))
                    return
                }
                print(outcome.line)
                if !outcome.loopsNotHere.isEmpty {
                    StandardError.write(
                        "note: \(outcome.loopsNotHere.count) loop\(outcome.loopsNotHere.count == 1 ? " is" : "s are") not in this library (install with `loop import LINK`): \(outcome.loopsNotHere.map { String($0.prefix(8)) }.joined(separator: ", "))\n"
                    )
                }
            }
            return
        }
        try await runReportingErrors {
            let library = try libraryOptions.openForReading()
            let stats = try library.studyStats(loop: try loop.map { try library.resolve($0) })
            if json {
                try JSONOutput.print(stats.map(StudyStatsReport.init))
                return
            }
            if stats.isEmpty {
                print(
                    loop == nil ? "nothing studied yet: `loop study LOOP` starts" : "this loop has not been studied yet"
                )
                return
            }
            for entry in stats { entry.lines(on: .standardOutput()).forEach { print($0) } }
        }
    }
}
