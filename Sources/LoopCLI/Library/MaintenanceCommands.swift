import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct RemoveCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove a loop from the library.",
        discussion: "Asks first, unless --yes. Its audio stays in the library until `loop gc`."
    )

    @Argument(help: .loop) var loop: String
    @Flag(name: [.short, .long], help: "Do not ask.") var yes = false
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let library = try libraryOptions.openFreeingSpace()
        let id = try library.resolve(loop)
        if !yes {
            let loop = try library.loop(id: id)
            guard isatty(STDIN_FILENO) == 1 else { throw RemovalPrompt.refusal(loop) }
            StandardError.write(RemovalPrompt.question(loop))
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard answer == "y" || answer == "yes" else { throw ExitCode.failure }
        }
        try library.remove(loop: id)
    }
}

struct GarbageCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove audio no loop refers to, and what interrupted imports left behind."
    )

    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Print one JSON object: the files removed and the bytes freed.") var json = false

    func execute() async throws {
        let library = try libraryOptions.openFreeingSpace()
        let report = try await library.collectGarbage()
        if json {
            try JSONOutput.print(GarbageReportOutput(report))
        } else if let summary = report.summary {
            print(summary)
        }
    }
}

struct DoctorCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the library: database integrity, every audio file present and intact.",
        discussion:
            "Exits non-zero when something is wrong, saying what to do about it. `--repair` mends what can be mended without a choice of yours: reviews dated after today, from a clock that was wrong. Unreferenced audio and pieces of interrupted imports are listed; `loop gc` removes them. Phrases whose clip was recorded for an earlier text (a typo fixed after recording) are listed too; they are not a fault."
    )

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Print one JSON object: healthy, problems, orphans, leftovers, clipsForEarlierText, counts.")
    var json = false

    @Flag(
        help:
            "First remove the reviews dated after today (made while the clock was wrong) and schedule their groups again."
    )
    var repair = false

    func execute() async throws {
        if repair {
            let removed = try libraryOptions.open().removeReviewsOutOfTime()
            if !json, removed.reviews > 0 {
                print(
                    "Removed \(removed.reviews) review\(removed.reviews == 1 ? "" : "s") dated after today; \(removed.groups) group\(removed.groups == 1 ? "" : "s") scheduled again"
                )
            }
        }
        let library = try libraryOptions.openForReading()
        let progress = ProgressBar("checking")
        let report = try await library.check(progress: progress.callback)
        progress.finish()
        let output = HealthReportOutput(report, remedy: NextStep.fix(for:))
        if json {
            try JSONOutput.print(output)
        } else {
            for line in report.lines(on: .standardOutput(), remedy: NextStep.fix(for:)) { print(line) }
            for found in RecordingWorkflow(library: library).interrupted() { print(found.line) }
        }
        if !output.healthy { throw ExitCode.failure }
    }
}
