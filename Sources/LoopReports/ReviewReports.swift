import Foundation
import LoopModel
import LoopTerminal
import LoopWorkflows

/// The words of the review schedule, shared by the commands that change a loop.
public enum ReviewWords {
    /// `; 2 groups you were reviewing changed and start their reviews anew`, or nothing.
    public static func restarted(_ count: Int) -> String {
        count == 0 ? "" : "; " + restartedPhrase(count)
    }

    /// The same as a line of its own.
    public static func restartedLine(_ count: Int) -> String {
        let phrase = restartedPhrase(count)
        return phrase.prefix(1).uppercased() + phrase.dropFirst()
    }

    private static func restartedPhrase(_ count: Int) -> String {
        count == 1
            ? "1 group you were reviewing changed its text and starts its reviews anew"
            : "\(count) groups you were reviewing changed their text and start their reviews anew"
    }
}

/// When a date falls, as a learner reads it: `today 14:05`, `tomorrow`, `in 3 days`, `3 days ago`.
func relativeDay(_ date: Date, now: Date) -> String {
    let calendar = Calendar.current
    let days =
        calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: date)).day
        ?? 0
    switch days {
    case 0:
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "today %02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    case 1: return "tomorrow"
    case -1: return "yesterday"
    case 2...: return "in \(days) days"
    default: return "\(-days) days ago"
    }
}

extension ReviewQueue {
    /// `loop review --list`: a summary line, then a line a group.
    public func lines(on terminal: Terminal, now: Date = Date()) -> [String] {
        guard !items.isEmpty else {
            return [
                "Nothing to review today"
                    + (newToday >= newPerDay && newPerDay > 0
                        ? " (the \(newPerDay) new groups of the day are begun; `loop review --new N` takes more)" : "")
            ]
        }
        var lines = [
            "Today: \(overdueCount) overdue, \(dueCount) due, \(newCount) new (\(newToday) of \(newPerDay) new groups a day begun)"
        ]
        func line(_ item: ReviewItem) -> String {
            let when = item.due.map { "due " + relativeDay($0, now: now) } ?? "new"
            let label = item.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            return terminal.paint(label, item.kind == .overdue ? .yellow : .dim) + Terminal.inert(item.loopTitle)
                + " · group \(item.group + 1) · “\(Terminal.inert(item.firstPhrase))” · " + terminal.paint(when, .dim)
        }
        // The groups due (the first of them), how many more, then the new ones.
        lines += items.filter { $0.kind != .new }.map(line)
        if dueLeftOut > 0 {
            lines.append(terminal.paint("… \(dueLeftOut) more due (`loop review --json` lists every one)", .dim))
        }
        lines += items.filter { $0.kind == .new }.map(line)
        return lines
    }
}

/// `loop review --json`.
public struct ReviewQueueReport: Encodable {
    struct Item: Encodable {
        var loop: String
        var title: String
        /// 1-based.
        var group: Int
        var firstPhrase: String
        var kind: String
        var due: String?
        var stability: Double?
        var reviews: Int
    }

    var newToday: Int
    var newPerDay: Int
    var overdue: Int
    var due: Int
    var items: [Item]

    /// The report of `queue`.
    public init(_ queue: ReviewQueue) {
        newToday = queue.newToday
        newPerDay = queue.newPerDay
        overdue = queue.overdueCount
        due = queue.dueCount
        items = queue.items.map {
            Item(
                loop: $0.loopId, title: $0.loopTitle, group: $0.group + 1, firstPhrase: $0.firstPhrase,
                kind: $0.kind.rawValue, due: $0.due?.formatted(.iso8601),
                stability: $0.stability.map(milliseconds), reviews: $0.reviews)
        }
    }
}

extension ReviewSettings {
    /// `FSRS, desired retention 0.90, 10 new groups a day`.
    public var line: String {
        switch kind {
        case .fsrs:
            String(format: "FSRS, desired retention %.2f, %d new groups a day", desiredRetention, newPerDay)
        case .ladder: "a fixed ladder (6 hours, 1, 2, 4, 7, 14, 28 days), \(newPerDay) new groups a day"
        }
    }
}

extension ReviewStats {
    /// `loop stats`'s review lines: what is due, retention and the streak, then the calendar.
    public func lines(on terminal: Terminal, today: Date = Date(), weeks: Int = 26) -> [String] {
        var summary = "Reviews: \(dueToday) due today, \(dueThisWeek) this week"
        if let retention = retentionLast30Days {
            summary += String(
                format: " · retention %.0f%% over 30 days (%d review%@)", retention * 100, reviewsLast30Days,
                reviewsLast30Days == 1 ? "" : "s")
        }
        summary += " · streak \(streak) day\(streak == 1 ? "" : "s")"
        return [terminal.paint(summary, .bold)] + calendar(today: today, weeks: weeks, terminal: terminal)
    }

    /// The days studied over the last `weeks` weeks, a column a week (Monday at the top), as a
    /// contribution graph: `·` no study, then `░▒▓█` for under 5, 15, 30 minutes and more.
    public func calendar(today: Date, weeks: Int, terminal: Terminal) -> [String] {
        let calendar = StudyDay.calendar
        let start = calendar.startOfDay(for: today)
        let weekday = (calendar.component(.weekday, from: start) + 5) % 7 // Monday 0
        guard let firstMonday = calendar.date(byAdding: .day, value: -weekday - 7 * (weeks - 1), to: start) else {
            return []
        }
        var rows = Array(repeating: "", count: 7)
        var months = ""
        for week in 0..<weeks {
            guard let monday = calendar.date(byAdding: .day, value: 7 * week, to: firstMonday) else { break }
            let day = calendar.component(.day, from: monday)
            if day <= 7 || week == 0 {
                let label = monday.formatted(.dateTime.month(.abbreviated))
                if months.count <= week { months += String(repeating: " ", count: week - months.count) + label }
            }
            for row in 0..<7 {
                guard let date = calendar.date(byAdding: .day, value: row, to: monday), date <= start else {
                    rows[row] += " "
                    continue
                }
                let entry = days[StudyDay.name(of: date, in: calendar)]
                let minutes = (entry?.seconds ?? 0) / 60
                let studied = entry.map { $0.seconds > 0 || $0.reviews > 0 } ?? false
                let cell =
                    !studied ? "·" : minutes < 5 ? "░" : minutes < 15 ? "▒" : minutes < 30 ? "▓" : "█"
                rows[row] += studied ? terminal.paint(cell, .green) : terminal.paint(cell, .dim)
            }
        }
        let names = ["Mon", "   ", "Wed", "   ", "Fri", "   ", "Sun"]
        return ["    " + months] + rows.enumerated().map { names[$0.offset] + " " + $0.element }
            + ["    · none  ░ <5 min  ▒ <15  ▓ <30  █ 30+"]
    }
}

/// `loop stats --json`'s review part.
public struct ReviewStatsReport: Encodable {
    struct Day: Encodable {
        var date: String
        var seconds: Double
        var reviews: Int
    }

    var dueToday: Int
    var dueThisWeek: Int
    var reviewsLast30Days: Int
    var againLast30Days: Int
    var retentionLast30Days: Double?
    var reviewsTotal: Int
    var againTotal: Int
    var streak: Int
    var days: [Day]

    /// The report of `stats`.
    public init(_ stats: ReviewStats) {
        dueToday = stats.dueToday
        dueThisWeek = stats.dueThisWeek
        reviewsLast30Days = stats.reviewsLast30Days
        againLast30Days = stats.againLast30Days
        retentionLast30Days = stats.retentionLast30Days.map(milliseconds)
        reviewsTotal = stats.reviewsTotal
        againTotal = stats.againTotal
        streak = stats.streak
        days = stats.days.sorted { $0.key < $1.key }.map {
            Day(date: $0.key, seconds: milliseconds($0.value.seconds), reviews: $0.value.reviews)
        }
    }
}

/// `loop stats --json`: the loops' study totals and the reviews.
public struct StatsReport: Encodable {
    var loops: [StudyStatsReport]
    var reviews: ReviewStatsReport
    /// With a loop: each group begun, its next review.
    var groups: [GroupReviewReport]?
    /// With a loop: the shadowing attempts kept at each phrase.
    var attempts: [PhraseAttemptsReport]?

    /// The report of every loop's figures, and with one loop its groups and attempts.
    public init(
        loops: [StudyStatsReport], reviews: ReviewStatsReport, groups: [GroupReviewReport]? = nil,
        attempts: [PhraseAttemptsReport]? = nil
    ) {
        (self.loops, self.reviews, self.groups, self.attempts) = (loops, reviews, groups, attempts)
    }
}

/// One group's place in its reviews.
public struct GroupReviewReport: Encodable {
    var group: Int
    var state: String
    var due: String
    var lastReview: String?
    var stability: Double?
    var difficulty: Double?

    /// The groups of a loop begun (0-based positions), by position.
    public static func of(_ cards: [Int: ReviewCard]) -> [GroupReviewReport] {
        cards.sorted { $0.key < $1.key }.map { group, card in
            GroupReviewReport(
                group: group + 1,
                state: card.state == .learning ? "learning" : card.state == .review ? "review" : "relearning",
                due: card.due.formatted(.iso8601), lastReview: card.lastReview?.formatted(.iso8601),
                stability: card.stability.map { ($0 * 1e6).rounded() / 1e6 },
                difficulty: card.difficulty.map { ($0 * 1e6).rounded() / 1e6 })
        }
    }

    /// `loop stats LOOP`'s line for each group begun.
    public static func lines(_ cards: [Int: ReviewCard], now: Date = Date()) -> [String] {
        cards.sorted { $0.key < $1.key }.map { group, card in
            "  group \(group + 1): next review " + relativeDay(card.due, now: now)
                + (card.stability.map { String(format: " (stability %.1f days)", $0) } ?? "")
        }
    }
}

extension ReviewedGroup {
    /// `Au café · group 2: good, next review in 3 days`.
    public var line: String {
        "\(Terminal.inert(title)) · group \(group + 1): \(rating.name)"
            + (next.map { ", next review " + relativeDay($0, now: Date()) } ?? "")
    }
}

extension ReviewWords {
    /// `Reviewed 3 groups; 2 still due today (...)`.
    public static func summary(reviewed: Int, left: ReviewQueue) -> String {
        "Reviewed \(reviewed) group\(reviewed == 1 ? "" : "s")"
            + (left.overdueCount + left.dueCount == 0
                ? "; nothing else is due today"
                : "; \(left.overdueCount + left.dueCount) still due today (`loop review` goes on with them)")
    }
}
