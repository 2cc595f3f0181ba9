import ArgumentParser
import Foundation
import LoopReports
import LoopScreens
import LoopTerminal
import LoopWorkflows

struct ReviewCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Study what is due today across every loop, and rate each group.",
        discussion: """
            Each group studied has its next review: after a group is studied (here, or by \
            `loop study`, or on a loop's page and merged with `loop stats --import`), the learner \
            rates it again, hard, good or easy (keys 1-4; a group studied through and not rated \
            counts as good), and the scheduler gives it its next date: FSRS by default (its \
            published parameters, desired retention 0.9), or a fixed ladder of 6 hours, 1, 2, \
            4, 7, 14 and 28 days (--scheduler ladder).

            `loop review` plays what is due today, overdue first, then due, then up to the day's \
            new groups (10 a day unless --new-per-day says), one group after another in the \
            study view: the group loops until you rate it. --list and --json show the queue \
            without studying. Without a terminal, each group plays once (to --output) and is \
            rated as --rate says.

            Reviews are found by a group's text: a loop updated, re-imported, re-cut or edited \
            keeps the reviews of every group whose text did not change. They are yours: they \
            never go into a bundle or to a Loop Library.
            """
    )

    @Argument(help: "Review this loop only (default: every loop).") var loop: String?
    @Flag(help: "List what is due today, without studying.") var list = false
    @Flag(help: "Print the queue as JSON (with --list or alone), without studying.") var json = false
    @Option(help: "New groups to take today, this time (default: what the day's allowance leaves).")
    var new: Int?

    @Option(help: "Schedule with fsrs or ladder (kept for the next reviews).")
    var scheduler: ReviewWorkflow.SchedulerKind?
    @Option(help: "FSRS's desired retention, 0.7 to 0.99 (kept).") var retention: Double?
    @Option(name: .customLong("new-per-day"), help: "New groups a day, 0 to 1000 (kept).") var newPerDay: Int?

    @Option(help: "Without a terminal, the rating each group studied gets: again, hard, good or easy.")
    var rate: String = "good"
    /// `--rate`, read.
    var rating: ReviewWorkflow.Rating { ReviewWorkflow.rating(named: rate) ?? ReviewWorkflow.defaultRating }

    @Option(help: "repeat-with-me or listen-and-repeat.") var mode: StudyWorkflow.Mode = ReviewWorkflow.defaultMode
    @OptionGroup var pacing: StudyPacingOptions
    @Flag(name: .customLong("no-images"), help: "Show no pictures.") var noImages = false

    @OptionGroup var outputOptions: SoundOutputOptions
    @OptionGroup var libraryOptions: LibraryOptions

    var changesSettings: Bool { scheduler != nil || retention != nil || newPerDay != nil }

    func validate() throws {
        if let retention, !ReviewWorkflow.retentions.contains(retention) {
            throw ValidationError("--retention takes 0.7 to 0.99, not \(retention)")
        }
        if let newPerDay, !ReviewWorkflow.newPerDayLimit.contains(newPerDay) {
            throw ValidationError("--new-per-day takes 0 to 1000, not \(newPerDay)")
        }
        if ReviewWorkflow.rating(named: rate) == nil {
            throw ValidationError("--rate takes again, hard, good or easy, not '\(rate)'")
        }
        if let new, !(0...1_000).contains(new) { throw ValidationError("--new takes 0 to 1000, not \(new)") }
        if changesSettings && (list || json || loop != nil || new != nil) {
            throw ValidationError("--scheduler, --retention and --new-per-day change the settings: give them alone")
        }
    }

    func execute() async throws {
        if changesSettings {
            let (settings, rescheduled) = try ReviewWorkflow(library: try libraryOptions.open()).change(
                scheduler: scheduler, retention: retention, newPerDay: newPerDay)
            print(
                "Reviews: \(settings.line)"
                    + (rescheduled > 0 ? "; \(rescheduled) group\(rescheduled == 1 ? "" : "s") rescheduled" : ""))
            return
        }
        if list || json {
            let library = try libraryOptions.openForReading()
            let queue = try ReviewWorkflow(library: library).queue(
                loop: try loop.map { try library.resolve($0) }, newLimit: new, limit: json ? nil : ReviewWorkflow.listed
            )
            if json {
                try JSONOutput.print(ReviewQueueReport(queue))
            } else {
                queue.lines(on: .standardOutput()).forEach { print($0) }
            }
            return
        }
        try await review()
    }

    /// Studies the queue, group after group, and keeps each rating.
    func review() async throws {
        let library = try libraryOptions.openForStudy()
        if let reason = library.readOnlyReason {
            throw ReviewWords.readOnlyRefusal(path: library.path, reason: reason)
        }
        let queue = try ReviewWorkflow(library: library).queue(
            loop: try loop.map { try library.resolve($0) }, newLimit: new)
        guard !queue.isEmpty else {
            queue.lines(on: .standardOutput()).forEach { print($0) }
            return
        }
        let interactive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if !interactive { try outputOptions.validate(finite: true) }
        var reviewed: [ReviewWorkflow.Reviewed] = []
        try await ReviewSession.run(
            queue, library: library,
            settings: StudyWorkflow.settings(
                mode: mode, repeats: pacing.repeats, gapFactor: pacing.gapFactor, speed: pacing.speed),
            destination: outputOptions.destination, interactive: interactive, images: !noImages,
            ratingWithoutTerminal: rating
        ) { reviewed.append($0) }
        reviewed.forEach { print($0.line) }
        let left = try ReviewWorkflow(library: library).queue(
            loop: try loop.map { try library.resolve($0) }, newLimit: 0, limit: 0)
        print(ReviewWords.summary(reviewed: reviewed.count, left: left))
    }
}

extension ReviewWorkflow.SchedulerKind: ExpressibleByArgument {}
