import Foundation
import LoopFoundation
import LoopModel
import LoopStore
import LoopStudy

/// What to study today: the review schedule across loops, its settings and its figures.
///
/// Days are the learner's local days: a group due at any time today is due today.
public struct ReviewWorkflow: Sendable {
    public typealias Rating = ReviewRating
    public typealias Settings = ReviewSettings
    public typealias Queue = ReviewQueue
    public typealias Stats = ReviewStats

    /// One group reviewed.
    public struct Reviewed: Sendable {
        public var title: String
        /// 0-based.
        public var group: Int
        public var rating: Rating
        /// Its next review.
        public var next: Date?

        public init(title: String, group: Int, rating: Rating, next: Date?) {
            (self.title, self.group, self.rating, self.next) = (title, group, rating, next)
        }
    }

    /// FSRS or the ladder.
    public typealias SchedulerKind = ReviewSettings.Kind
    /// The rating a group studied and not rated gets.
    public static let defaultRating = Rating.good
    /// Reviews play a group, then leave a silence as long to repeat it.
    public static let defaultMode = StudyMode.listenAndRepeat
    /// The new groups a day settings take.
    public static let newPerDayLimit = ReviewSettings.newPerDayLimit

    /// The rating `name` says (`again`, `hard`, `good`, `easy`).
    public static func rating(named name: String) -> Rating? { Rating(name: name) }

    /// The desired retentions FSRS takes.
    public static let retentions = ReviewSettings.retentions

    let store: LibraryStore

    public init(library: Library) { self.store = library.store }

    /// The learner's day around `now`: its start, and the start of the next.
    public static func day(of now: Date) -> (start: Date, end: Date) {
        let calendar = StudyDay.calendar
        let start = calendar.startOfDay(for: now)
        return (start, calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400))
    }

    /// What is due today (of loop `loop` only, when given), overdue first, then new groups up to
    /// `newLimit` (else the day's allowance left).
    /// `limit`: the first groups due only (the counts say how many in all).
    public func queue(loop: String? = nil, newLimit: Int? = nil, limit: Int? = nil, now: Date = Date()) throws
        -> Queue
    {
        try Self.checkClock(now)
        let day = Self.day(of: now)
        return try store.reviewQueue(dayStart: day.start, dayEnd: day.end, loop: loop, newLimit: newLimit, limit: limit)
    }

    /// Refuses a clock no review can be made at (before 1970, or so late that the next review
    /// would pass the year 9999): before a session begins, rather than when its reviews are kept.
    public static func checkClock(_ now: Date = Date()) throws {
        try LibraryStore.checkReviewDate(now)
    }

    /// The groups `loop review --list` shows (the counts say how many more are due).
    public static let listed = 50

    public func settings() throws -> Settings { try store.reviewSettings() }

    /// Changes what is given of the settings and keeps them: the settings now, and how many
    /// groups were rescheduled.
    public func change(scheduler: SchedulerKind?, retention: Double?, newPerDay: Int?) throws -> (Settings, Int) {
        var settings = try self.settings()
        if let scheduler { settings.kind = scheduler }
        if let retention { settings.desiredRetention = retention }
        if let newPerDay { settings.newPerDay = newPerDay }
        return (settings, try store.setReviewSettings(settings, replay: ReviewSettings.replay))
    }

    /// Reviews due, retention, the streak and the days studied.
    public func stats(now: Date = Date()) throws -> Stats {
        let day = Self.day(of: now)
        return try store.reviewStats(now: now, dayStart: day.start, dayEnd: day.end)
    }

    /// Each begun group of loop `id`, by position, with the schedule's state.
    public func cards(ofLoop id: String) throws -> [Int: ReviewCard] { try store.reviewCards(ofLoop: id) }

    /// The reviews a session makes: one per group studied through, rated as the learner said,
    /// good where they did not, at `date`.
    public static func ratings(studied: [Int], rated: [Int: Rating], at date: Date) -> [GroupRating] {
        studied.map { GroupRating(group: $0, rating: rated[$0] ?? .good, date: date) }
    }
}

extension ReviewQueue {
    /// Nothing to review.
    public var isEmpty: Bool { items.isEmpty }
}
