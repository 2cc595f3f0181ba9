import ArgumentParser
import Foundation
import LoopFoundation
import LoopModel
import LoopRecording
import LoopReports
import LoopTerminal
import LoopWorkflows

struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove a loop from the library.",
        discussion: "Asks first, unless --yes. Its audio stays in the library until `loop gc`."
    )

    @Argument(help: "The loop: a start of its id, its title, or a start of its title or of a word of it.")
    var loop: String

    @Flag(name: [.short, .long], help: "Do not ask.")
    var yes = false

    @OptionGroup var libraryOptions: LibraryOptions

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let id = try library.resolve(loop)
            let summary = try library.loop(id: id).summary
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CLIError(
                        .refused,
                        "not removing '\(summary.title)' without asking: there is no terminal to ask on; add --yes")
                }
                StandardError.write("Remove '\(summary.title)' (\(summary.phraseCount) phrases)? [y/N] ")
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                guard answer == "y" || answer == "yes" else { throw ExitCode.failure }
            }
            try library.remove(loop: id)
        }
    }
}

struct GarbageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove audio no loop refers to, and what interrupted imports left behind."
    )

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Print one JSON object: the files removed and the bytes freed.")
    var json = false

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.open()
            let report = try await BlockingWork.run { try library.collectGarbage() }
            if json {
                try JSONOutput.print(GarbageReportOutput(removed: report.removedFiles, freedBytes: report.freedBytes))
            } else if let summary = report.summary {
                print(summary)
            }
        }
    }
}

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the library: database integrity, every audio file present and intact.",
        discussion:
            "Exits non-zero when something is wrong, saying what to do about it. Unreferenced audio and pieces of interrupted imports are listed; `loop gc` removes them. Phrases whose clip was recorded for an earlier text (a typo fixed after recording) are listed too; they are not a fault."
    )

    @OptionGroup var libraryOptions: LibraryOptions

    @Flag(help: "Print one JSON object: healthy, problems, orphans, leftovers, clipsForEarlierText, counts.")
    var json = false

    func run() async throws {
        try await runReportingErrors {
            let library = try libraryOptions.openForReading()
            let progress = ProgressBar("checking")
            let report = try await BlockingWork.run { try library.check(progress: progress.callback) }
            progress.finish()
            if json {
                try JSONOutput.print(HealthReportOutput(report, remedy: NextStep.fix(for:)))
            } else {
                for line in report.lines(on: .standardOutput(), remedy: NextStep.fix(for:)) { print(line) }
                for found in RecordingWorkflow(library: library).interrupted() {
                    print(
                        String(
                            format: "an interrupted recording (%.1f s) is kept: `loop record %@ --recover` saves it",
                            found.seconds, String(found.draft.loopId.prefix(8))))
                }
            }
            if !report.isHealthy { throw ExitCode.failure }
        }
    }
}
