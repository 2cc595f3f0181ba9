import ArgumentParser
import Foundation
import LoopReports
import LoopTerminal
import LoopWorkflows

struct RemoveCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove a loop from the library.",
        discussion: CommandHelp.rm
    )

    @Argument(help: .loop) var loop: String
    @Flag(name: [.short, .long], help: "Do not ask.") var yes = false
    @OptionGroup var libraryOptions: LibraryOptions

    func execute() async throws {
        let removed = try libraryOptions.open(.freeingSpace).remove(loop) { loop in
            if yes { return true }
            guard isatty(STDIN_FILENO) == 1 else { throw RemovalPrompt.refusal(loop) }
            StandardError.write(RemovalPrompt.question(loop))
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            return answer == "y" || answer == "yes"
        }
        if !removed { throw ExitCode.failure }
    }
}

struct GarbageCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove audio no loop refers to, and what interrupted imports left behind."
    )

    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Print one JSON object: the files removed and the bytes freed.") var json = false

    func execute() async throws { try await libraryOptions.open(.freeingSpace).collectGarbage().print(json: json) }
}

struct DoctorCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the library: database integrity, every audio file present and intact.",
        discussion: CommandHelp.doctor
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
        let progress = ProgressBar("checking")
        let checked = try await libraryOptions.open(repair ? .readWrite : .readOnly).check(
            repair: repair, progress: progress.callback)
        progress.finish()
        if !(try checked.print(json: json)) { throw ExitCode.failure }
    }
}
