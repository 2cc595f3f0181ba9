import Foundation
import LoopFoundation
import LoopModel
import LoopStore
import LoopStudy

// What to study today: the review schedule across loops, its settings, its sessions and its
// figures. Days are the learner's local days: a group due at any time today is due today.

/// `loop review`: the settings changed, the queue shown, or the queue studied.
public struct ReviewRequest: Sendable {
    /// Only this loop's groups (a reference).
    public var loop: String?
    /// Show the queue, without studying.
    public var list = false
    /// New groups to take today, this time (nil: what the day's allowance leaves).
    public var new: Int?
    /// Settings to keep: the scheduler, FSRS's desired retention, new groups a day.
    public var scheduler: ReviewSettings.Kind?
    /// FSRS's desired retention to keep (0.7 to 0.99).
    public var retention: Double?
    /// New groups a day to keep (0 to 1,000).
    public var newPerDay: Int?
    /// Without a screen, the rating each group studied gets.
    public var rate: ReviewRating = .good
    /// Reviews play a group, then leave a silence as long to repeat it.
    public var pacing = StudyPacing(mode: .listenAndRepeat)
    /// Where the reviews play.
    public var sound = SoundOutput()
    /// Whether a person rates each group on a screen (else each plays once, rated `rate`).
    public var interactive = true

    /// A review of what is due today, on a screen.
    public init() {}

    /// The groups `--list` shows at most (the counts say how many more are due).
    public static let listed = 50

    /// Whether it changes the settings (and does nothing else).
    public var changesSettings: Bool { scheduler != nil || retention != nil || newPerDay != nil }

    /// The access it needs: to keep settings or reviews, or to read the queue.
    public var access: Library.Access { changesSettings ? .readWrite : list ? .readOnly : .study }

    /// Refuses settings out of range and options that exclude each other.
    public func check() throws(RequestProblem) {
        if let retention {
            try RequestProblem.check(
                !ReviewSettings.retentions.contains(retention),
                RequestProblem("{retention} takes 0.7 to 0.99, not \(retention)"))
        }
        if let newPerDay {
            try RequestProblem.check(
                !ReviewSettings.newPerDayLimit.contains(newPerDay),
                RequestProblem("{newPerDay} takes 0 to 1000, not \(newPerDay)"))
        }
        if let new {
            try RequestProblem.check(!(0...1_000).contains(new), RequestProblem("{new} takes 0 to 1000, not \(new)"))
        }
        try RequestProblem.check(
            changesSettings && (list || loop != nil || new != nil),
            RequestProblem("{scheduler}, {retention} and {newPerDay} change the settings: give them alone"))
        try pacing.check()
        if !list && !changesSettings && !interactive { try sound.check(finite: true) }
    }
}

/// What a review request did.
public enum ReviewOutcome: Sendable {
    /// The settings kept, and how many groups were rescheduled.
    case settings(ReviewSettings, rescheduled: Int)
    /// The queue (`list`).
    case queue(ReviewQueue)
    /// Nothing to review today: the (empty) queue.
    case nothingDue(ReviewQueue)
    /// The groups reviewed, and what is still due today.
    case reviewed([ReviewedGroup], left: ReviewQueue)
}

/// One group reviewed.
public struct ReviewedGroup: Sendable {
    /// The loop's title.
    public var title: String
    /// 0-based.
    public var group: Int
    /// How the learner rated it.
    public var rating: ReviewRating
    /// Its next review.
    public var next: Date?
}

/// `loop stats`: study figures, or a page's progress merged in.
public struct StatsRequest: Sendable {
    /// One loop's phrases, groups and attempts (a reference).
    public var loop: String?
    /// At most this many loops (nil: every one studied).
    public var limit: Int?
    /// A progress file exported from a loop's page, to merge.
    public var importFile: String?

    /// Figures of every loop.
    public init() {}

    /// The access it needs: to merge a progress file, or to read.
    public var access: Library.Access { importFile == nil ? .readOnly : .readWrite }

    /// Refuses a loop's figures asked with others, and a progress file without its loop.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(
            importFile != nil && loop != nil,
            RequestProblem("{import} reads the loops from the file: give no LOOP with it"))
    }
}

/// What `loop stats` shows.
public enum StatsOutcome: Sendable {
    /// A page's progress merged in.
    case imported(ProgressImport.Outcome)
    /// The figures.
    case figures(StudyFigures)
}

/// Study figures: each loop's totals (of one loop, with its phrases), how many more loops were
/// studied, the reviews, and, of one loop, each group's place and the attempts kept.
public struct StudyFigures: Sendable {
    /// Each loop's totals, most recently studied first.
    public var loops: [LoopStudyStats]
    /// Loops studied that the figures leave out.
    public var moreLoops: Int
    /// The review figures.
    public var reviews: ReviewStats
    /// With one loop: each group's place in its reviews (0-based); nil otherwise.
    public var groups: [Int: ReviewCard]?
    /// With one loop: the shadowing attempts kept; nil otherwise.
    public var attempts: [ShadowingAttempt]?
    /// Whether one loop was asked for.
    public var ofOneLoop: Bool
}

extension Library {
    /// The learner's day around `now`: its start, and the start of the next.
    static func day(of now: Date) -> (start: Date, end: Date) {
        let calendar = StudyDay.calendar
        let start = calendar.startOfDay(for: now)
        return (start, calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400))
    }

    /// Changes the settings, shows the queue, or studies it (each group driven by `drive`, one
    /// after the other, until the learner quits): what `request` asks.
    public func review(
        _ request: ReviewRequest, now: @Sendable () -> Date = Date.init, progress: WorkProgress? = nil,
        drive: (StudyRun, _ index: Int, _ count: Int) async throws -> StudyResult
    ) async throws -> ReviewOutcome {
        try request.check()
        if request.changesSettings {
            var settings = try store.reviewSettings()
            if let scheduler = request.scheduler { settings.kind = scheduler }
            if let retention = request.retention { settings.desiredRetention = retention }
            if let newPerDay = request.newPerDay { settings.newPerDay = newPerDay }
            return .settings(
                settings, rescheduled: try store.setReviewSettings(settings, replay: ReviewSettings.replay))
        }
        let loop = try request.loop.map { try resolve($0) }
        if request.list {
            return .queue(try queue(loop: loop, newLimit: request.new, limit: ReviewRequest.listed, now: now()))
        }
        if let reason = readOnlyReason {
            throw WorkflowError(.cannotKeepReviews, "\(path): \(reason): reviews cannot be kept")
        }
        let queue = try queue(loop: loop, newLimit: request.new, now: now())
        guard !queue.items.isEmpty else { return .nothingDue(queue) }
        var reviewed: [ReviewedGroup] = []
        var prepared: [String: PreparedStudy] = [:]
        for (index, item) in queue.items.enumerated() {
            if prepared[item.loopId] == nil {
                do {
                    prepared[item.loopId] = try await prepare(loop: item.loopId, progress: progress)
                } catch let error as StudyError where error.kind == .noAudio {
                    continue
                }
            }
            guard let loop = prepared[item.loopId] else { continue }
            // (A group whose clips were all taken away since it was begun cannot be studied.)
            guard loop.groups.indices.contains(item.group),
                loop.groups[item.group].contains(where: { $0.duration != nil })
            else { continue }
            let player = try player(
                for: loop, settings: request.pacing.settings(rounds: request.interactive ? nil : 1),
                selection: [item.group], sound: request.sound, realTime: request.interactive)
            let started = now()
            var result = try await drive(
                StudyRun(loop: loop.loop, groups: loop.groups, controls: player, reviewGroup: item.group), index,
                queue.items.count)
            if !request.interactive { result.ratings[item.group] = request.rate }
            // Rated before it ended, a group counts as studied.
            if result.ratings[item.group] != nil && !result.studiedGroups.contains(item.group) {
                result.studiedGroups.append(item.group)
            }
            try await save(result, of: loop, startedAt: started, now: now())
            if result.studiedGroups.contains(item.group) {
                reviewed.append(
                    ReviewedGroup(
                        title: loop.loop.summary.title, group: item.group,
                        rating: result.ratings[item.group] ?? .good,
                        next: try store.reviewCards(ofLoop: item.loopId)[item.group]?.due))
            }
            if result.quit { break }
        }
        return .reviewed(reviewed, left: try self.queue(loop: loop, newLimit: 0, limit: 0, now: now()))
    }

    /// What is due today (of loop `loop` only, when given), overdue first, then new groups up to
    /// `newLimit` (else the day's allowance left); `limit`: the first groups due only (the
    /// counts say how many in all).
    func queue(loop: String?, newLimit: Int?, limit: Int? = nil, now: Date) throws -> ReviewQueue {
        try LibraryStore.checkReviewDate(now)
        let day = Self.day(of: now)
        return try store.reviewQueue(dayStart: day.start, dayEnd: day.end, loop: loop, newLimit: newLimit, limit: limit)
    }

    /// The study figures, or a page's progress merged in: what `request` asks.
    public func stats(_ request: StatsRequest, now: Date = Date()) throws -> StatsOutcome {
        try request.check()
        if let file = request.importFile { return .imported(try importProgress(from: file)) }
        let id = try request.loop.map { try resolve($0) }
        let loops = try store.studyStats(loop: id, limit: request.limit)
        var more = 0
        if id == nil, let limit = request.limit, loops.count == limit {
            more = max(0, try store.studiedLoopCount() - loops.count)
        }
        let day = Self.day(of: now)
        return .figures(
            StudyFigures(
                loops: loops, moreLoops: more,
                reviews: try store.reviewStats(now: now, dayStart: day.start, dayEnd: day.end),
                groups: try id.map { try store.reviewCards(ofLoop: $0) },
                attempts: try id.map { try store.attempts(loop: $0) }, ofOneLoop: id != nil))
    }
}
