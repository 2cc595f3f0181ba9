import ArgumentParser
import Foundation
import LoopModel
import LoopReports
import LoopScreens
import LoopTerminal
import LoopWorkflows

struct ReviewCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Study what is due today across every loop, and rate each group.",
        discussion: CommandHelp.review
    )

    @Argument(help: "Review this loop only (default: every loop).") var loop: String?
    @Flag(help: "List what is due today, without studying.") var list = false
    @Flag(help: "Print the queue as JSON (with --list or alone), without studying.") var json = false
    @Option(help: "New groups to take today, this time (default: what the day's allowance leaves).")
    var new: Int?
    @Option(help: "Schedule with fsrs or ladder (kept for the next reviews).") var scheduler: ReviewSettings.Kind?
    @Option(help: "FSRS's desired retention, 0.7 to 0.99 (kept).") var retention: Double?
    @Option(name: .customLong("new-per-day"), help: "New groups a day, 0 to 1000 (kept).") var newPerDay: Int?
    @Option(help: "Without a terminal, the rating each group studied gets: again, hard, good or easy.")
    var rate: String = "good"
    @Option(help: "repeat-with-me or listen-and-repeat.") var mode: StudyMode = .listenAndRepeat
    @OptionGroup var pacing: StudyPacingOptions
    @Flag(name: .customLong("no-images"), help: "Show no pictures.") var noImages = false
    @OptionGroup var outputOptions: SoundOutputOptions
    @OptionGroup var libraryOptions: LibraryOptions

    var interactive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    var request: ReviewRequest {
        var request = ReviewRequest()
        (request.loop, request.list, request.new) = (loop, list || json, new)
        (request.scheduler, request.retention, request.newPerDay) = (scheduler, retention, newPerDay)
        (request.rate, request.pacing, request.sound) = (
            ReviewRating(name: rate) ?? .good, pacing.pacing(mode), outputOptions.sound
        )
        request.interactive = interactive
        return request
    }

    func validate() throws {
        if ReviewRating(name: rate) == nil {
            throw ValidationError("--rate takes again, hard, good or easy, not '\(rate)'")
        }
        try check(request.check)
    }

    func execute() async throws {
        let request = request
        let outcome = try await libraryOptions.open(request.access).review(request) { run, index, count in
            try await StudySessionRunner.run(
                run, fullScreen: interactive, images: !noImages, printing: false,
                title: "\(run.loop.summary.title) · review \(index + 1) of \(count)", attemptWords: AttemptWords.line)
        }
        try outcome.print(json: json)
    }
}

extension ReviewSettings.Kind: ExpressibleByArgument {}

struct StatsCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show study time, repetitions and reviews: of every loop studied, or of one loop's phrases.",
        discussion: CommandHelp.stats
    )

    @Argument(help: "A loop, for its phrases.") var loop: String?
    @OptionGroup var libraryOptions: LibraryOptions
    @Flag(help: "Every loop studied (default: the 20 studied last).") var all = false
    @Flag(
        help:
            "Print JSON: loops (sessions, seconds, repetitions, last studied, phrases), reviews, days, groups, attempts."
    )
    var json = false
    @Option(
        name: .customLong("import"),
        help: ArgumentHelp("Merge a progress file exported from a loop's page.", valueName: "file"))
    var importFile: String?

    var request: StatsRequest {
        var request = StatsRequest()
        (request.loop, request.importFile, request.limit) = (loop, importFile, json || all ? nil : 20)
        return request
    }

    func validate() throws { try check(request.check) }

    func execute() async throws {
        try libraryOptions.open(request.access).stats(request).print(json: json, on: .standardOutput())
    }
}
