import Foundation

/// How well a learner knew a group when they studied it.
public enum ReviewRating: Int, Sendable, CaseIterable, Codable {
    case again = 1
    case hard, good, easy

    /// The rating as `loop review` and the JSON name it: again, hard, good or easy.
    public var name: String {
        switch self {
        case .again: "again"
        case .hard: "hard"
        case .good: "good"
        case .easy: "easy"
        }
    }

    /// The rating named `name` (any case); nil for no rating.
    public init?(name: String) {
        guard let rating = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = rating
    }
}

/// Where a group stands in its reviews: what the scheduler needs to give it its next date.
public struct ReviewCard: Sendable, Equatable, Codable {
    /// Where a group is in its reviews.
    public enum State: Int, Sendable, Codable {
        /// Not yet past its learning steps (a new group starts here).
        case learning = 1
        case review = 2
        /// Forgotten, and in its relearning steps.
        case relearning = 3
    }

    /// Where it is: learning, in reviews by days, or relearning.
    public var state: State
    /// The learning or relearning step it is at (FSRS), or the rung of the ladder.
    public var step: Int?
    /// Days until its recall is predicted to fall to 90% (FSRS); nil before its first review.
    public var stability: Double?
    /// How hard it is to remember, 1 to 10 (FSRS); nil before its first review.
    public var difficulty: Double?
    /// When it is due.
    public var due: Date
    /// When it was last reviewed; nil before its first review.
    public var lastReview: Date?

    /// A group never reviewed: due at once.
    public static func new(at date: Date) -> ReviewCard {
        ReviewCard(state: .learning, step: 0, stability: nil, difficulty: nil, due: date, lastReview: nil)
    }

    /// A card from its fields.
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
    /// Which scheduler.
    public enum Kind: String, Sendable, CaseIterable {
        /// FSRS 6 with its published parameters.
        case fsrs
        /// A fixed ladder: 6 hours, then 1, 2, 4, 7, 14 and 28 days.
        case ladder
    }

    /// The scheduler.
    public var kind: Kind = .fsrs
    /// FSRS's desired retention: the recall probability a review is scheduled at.
    public var desiredRetention = 0.9
    /// New groups a day, across every loop.
    public var newPerDay = 10

    /// The settings a library starts with: FSRS at 90%, 10 new groups a day.
    public init() {}

    /// Whether `other` schedules every group as these settings do (the new groups a day aside).
    public func schedulesAlike(_ other: ReviewSettings) -> Bool {
        kind == other.kind && (kind == .ladder || desiredRetention == other.desiredRetention)
    }

    /// The desired retentions FSRS takes.
    public static let retentions: ClosedRange<Double> = 0.7...0.99

    /// The new groups a day the settings take.
    public static let newPerDayLimit = 0...1_000
}

/// A learner's rating of one group of a loop, when they studied it.
public struct GroupRating: Sendable, Equatable {
    /// 0-based position of the group in its loop.
    public var group: Int
    /// How well they knew it.
    public var rating: ReviewRating
    /// When they rated it.
    public var date: Date

    /// A rating of `group` at `date`.
    public init(group: Int, rating: ReviewRating, date: Date) {
        self.group = group
        self.rating = rating
        self.date = date
    }
}

/// A group waiting in the review queue.
public struct ReviewItem: Sendable, Equatable {
    /// Why the group is in the queue.
    public enum Kind: String, Sendable {
        /// Due before today.
        case overdue
        /// Due today.
        case due
        /// Never reviewed: one of the day's new groups.
        case new
    }

    /// The loop the group is in.
    public var loopId: String
    /// That loop's title.
    public var loopTitle: String
    /// 0-based position of the group in its loop.
    public var group: Int
    /// The group's first phrase, to recognise it by.
    public var firstPhrase: String
    /// Why it is in the queue.
    public var kind: Kind
    /// When it is due; nil for a new group.
    public var due: Date?
    /// Days until its recall is predicted to fall to 90% (FSRS); nil for new groups or the ladder.
    public var stability: Double?
    /// Reviews it has had.
    public var reviews: Int

    /// An item from its fields.
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
    /// The groups to review, overdue first, then due, then new.
    public var items: [ReviewItem]
    /// New groups already begun today, and how many a day the settings allow.
    public var newToday: Int
    /// The new groups a day the settings allow.
    public var newPerDay: Int
    /// Groups overdue and due today, all of them (the items may hold only the first).
    public var overdueCount: Int
    /// Groups due today (not overdue), all of them.
    public var dueCount: Int

    /// A queue from its items and counts.
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
    /// Groups due by the end of today.
    public var dueToday: Int
    /// Groups due in the next seven days.
    public var dueThisWeek: Int
    /// Reviews in the last 30 days (today and the 29 before).
    public var reviewsLast30Days: Int
    /// Of those, rated again.
    public var againLast30Days: Int
    /// Reviews in all.
    public var reviewsTotal: Int
    /// Of those, rated again.
    public var againTotal: Int
    /// Days in a row, up to today (or yesterday, when today has no study yet), with study or reviews.
    public var streak: Int
    /// Per local day (`YYYY-MM-DD`) of the last 366 days with any study: seconds studied and reviews.
    public var days: [String: StudyDay]

    /// Figures from their parts.
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
    /// Seconds studied.
    public var seconds: Double
    /// Reviews made.
    public var reviews: Int

    /// A day's figures.
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
