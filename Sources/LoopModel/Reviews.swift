import Foundation

/// How well a learner knew a group when they studied it.
public enum ReviewRating: Int, Sendable, CaseIterable, Codable {
    case again = 1, hard, good, easy

    public var name: String {
        switch self {
        case .again: "again"
        case .hard: "hard"
        case .good: "good"
        case .easy: "easy"
        }
    }

    public init?(name: String) {
        guard let rating = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = rating
    }
}

/// Where a group stands in its reviews: what the scheduler needs to give it its next date.
public struct ReviewCard: Sendable, Equatable, Codable {
    public enum State: Int, Sendable, Codable {
        /// Not yet past its learning steps (a new group starts here).
        case learning = 1
        case review = 2
        /// Forgotten, and in its relearning steps.
        case relearning = 3
    }

    public var state: State
    /// The learning or relearning step it is at (FSRS), or the rung of the ladder.
    public var step: Int?
    public var stability: Double?
    public var difficulty: Double?
    public var due: Date
    public var lastReview: Date?

    /// A group never reviewed: due at once.
    public static func new(at date: Date) -> ReviewCard {
        ReviewCard(state: .learning, step: 0, stability: nil, difficulty: nil, due: date, lastReview: nil)
    }

    public init(state: State, step: Int?, stability: Double?, difficulty: Double?, due: Date, lastReview: Date?) {
        self.state = state
        self.step = step
        self.stability = stability
        self.difficulty = difficulty
        self.due = due
        self.lastReview = lastReview
    }
}

/// How the library schedules reviews (kept in the library, changed by `loop review`'s options).
public struct ReviewSettings: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// FSRS 6 with its published parameters.
        case fsrs
        /// A fixed ladder: 6 hours, then 1, 2, 4, 7, 14 and 28 days.
        case ladder
    }

    public var kind: Kind = .fsrs
    /// FSRS's desired retention: the recall probability a review is scheduled at.
    public var desiredRetention = 0.9
    /// New groups a day, across every loop.
    public var newPerDay = 10

    public init() {}

    /// Whether `other` schedules every group as these settings do (the new groups a day aside).
    public func schedulesAlike(_ other: ReviewSettings) -> Bool {
        kind == other.kind && (kind == .ladder || desiredRetention == other.desiredRetention)
    }

    /// The desired retentions FSRS takes.
    public static let retentions: ClosedRange<Double> = 0.7...0.99

    public static let newPerDayLimit = 0...1_000
}

/// A learner's rating of one group of a loop, when they studied it.
public struct GroupRating: Sendable, Equatable {
    /// 0-based position of the group in its loop.
    public var group: Int
    public var rating: ReviewRating
    public var date: Date

    public init(group: Int, rating: ReviewRating, date: Date) {
        self.group = group
        self.rating = rating
        self.date = date
    }
}

/// A group waiting in the review queue.
public struct ReviewItem: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Due before today.
        case overdue
        /// Due today.
        case due
        /// Never reviewed: one of the day's new groups.
        case new
    }

    public var loopId: String
    public var loopTitle: String
    /// 0-based position of the group in its loop.
    public var group: Int
    /// The group's first phrase, to recognise it by.
    public var firstPhrase: String
    public var kind: Kind
    public var due: Date?
    /// Days until its recall is predicted to fall to 90% (FSRS); nil for new groups or the ladder.
    public var stability: Double?
    public var reviews: Int

    public init(
        loopId: String, loopTitle: String, group: Int, firstPhrase: String, kind: Kind, due: Date?, stability: Double?,
        reviews: Int
    ) {
        (self.loopId, self.loopTitle, self.group, self.firstPhrase) = (loopId, loopTitle, group, firstPhrase)
        (self.kind, self.due, self.stability, self.reviews) = (kind, due, stability, reviews)
    }
}

/// What to review today.
public struct ReviewQueue: Sendable, Equatable {
    public var items: [ReviewItem]
    /// New groups already begun today, and how many a day the settings allow.
    public var newToday: Int
    public var newPerDay: Int
    /// Groups overdue and due today, all of them (the items may hold only the first).
    public var overdueCount: Int
    public var dueCount: Int

    public init(items: [ReviewItem], newToday: Int, newPerDay: Int, overdueCount: Int, dueCount: Int) {
        (self.items, self.newToday, self.newPerDay) = (items, newToday, newPerDay)
        (self.overdueCount, self.dueCount) = (overdueCount, dueCount)
    }

    /// New groups in the queue.
    public var newCount: Int { items.count { $0.kind == .new } }
    /// Overdue and due groups left out of the items.
    public var dueLeftOut: Int { overdueCount + dueCount - items.count { $0.kind != .new } }
}

/// The review figures `loop stats` shows.
public struct ReviewStats: Sendable, Equatable {
    public var dueToday: Int
    public var dueThisWeek: Int
    public var reviewsLast30Days: Int
    public var againLast30Days: Int
    public var reviewsTotal: Int
    public var againTotal: Int
    /// Days in a row, up to today (or yesterday, when today has no study yet), with study or reviews.
    public var streak: Int
    /// Per local day (`YYYY-MM-DD`) of the last 366 days with any study: seconds studied and reviews.
    public var days: [String: StudyDay]

    public init(
        dueToday: Int, dueThisWeek: Int, reviewsLast30Days: Int, againLast30Days: Int,
        reviewsTotal: Int, againTotal: Int, streak: Int, days: [String: StudyDay]
    ) {
        (self.dueToday, self.dueThisWeek) = (dueToday, dueThisWeek)
        (self.reviewsLast30Days, self.againLast30Days) = (reviewsLast30Days, againLast30Days)
        (self.reviewsTotal, self.againTotal, self.streak, self.days) = (reviewsTotal, againTotal, streak, days)
    }

    /// The share of reviews not rated again, over the last 30 days; nil without any.
    public var retentionLast30Days: Double? {
        reviewsLast30Days == 0 ? nil : Double(reviewsLast30Days - againLast30Days) / Double(reviewsLast30Days)
    }
}

/// What a day held: seconds studied, and reviews.
public struct StudyDay: Sendable, Equatable {
    public var seconds: Double
    public var reviews: Int

    public init(seconds: Double, reviews: Int) {
        self.seconds = seconds
        self.reviews = reviews
    }

    /// The learner's calendar: Gregorian, in the local time zone, weeks from Monday.
    public static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        calendar.firstWeekday = 2
        return calendar
    }

    /// A local day's name, as SQLite's `date(..., 'localtime')` writes it: `YYYY-MM-DD`.
    public static func name(of date: Date, in calendar: Calendar = StudyDay.calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

/// A group's card computed from its reviews (in any order): what a scheduler with `settings`
/// gives, nil for no reviews. The store keeps what it returns; the scheduler (LoopStudy) computes.
public typealias ReviewReplay =
    @Sendable (_ settings: ReviewSettings, _ reviews: [(rating: ReviewRating, date: Date)])
    -> ReviewCard?

extension ReviewCard {
    /// The longest interval a scheduler gives, in days: a century.
    public static let longestInterval = 36_500

    /// The moments a review may be made at: from 1970 until a century and a day before the year
    /// 9999 ends, so that the next review it gives (``longestInterval`` on, at most) still falls
    /// in a four-digit year, as every date a library keeps does. A date outside them comes from
    /// a clock that is wrong: one set to 9999-12-31 gave a review due 10000-01-08, which no later
    /// review could read.
    public static let reviewDates: ClosedRange<Date> =
        Date(
            timeIntervalSince1970: 0)...Date(
            timeIntervalSince1970: 253_402_300_799 - Double(longestInterval + 1) * 86_400)
}
