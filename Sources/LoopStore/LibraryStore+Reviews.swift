import Crypto
import Foundation
import GRDB
import LoopFoundation
import LoopModel

extension LibraryStore {
    // MARK: Group keys

    /// What finds a group's reviews: its phrases' texts (whitespace folded), not its place.
    static func reviewKey(_ texts: [String]) -> String {
        let folded = texts.map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let digest = SHA256.hash(data: Data(folded.joined(separator: "\n").utf8))
        return digest.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The review key of each group of a loop, by position.
    static func reviewKeys(ofLoop id: String, _ db: Database) throws -> [Int: String] {
        var texts: [Int: [String]] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT phraseGroup.position, phrase.text FROM phrase JOIN phraseGroup ON phraseGroup.id = phrase.groupId
                WHERE phrase.loopId = ? ORDER BY phrase.position
                """, arguments: [id])
        {
            texts[row[0], default: []].append(row[1])
        }
        return texts.mapValues(reviewKey)
    }

    /// After a loop's groups were rewritten (`texts`, by position): the review state of each group
    /// whose text is still there follows it to its place; that of each group whose text changed
    /// is removed, reviews and all. Returns how many groups so start anew.
    static func followReviewedGroups(ofLoop id: String, texts: [[String]], _ db: Database) throws -> Int {
        var positions: [String: Int] = [:]
        for (position, group) in texts.enumerated() where positions[reviewKey(group)] == nil {
            positions[reviewKey(group)] = position
        }
        var restarted = 0
        for row in try Row.fetchAll(
            db, sql: "SELECT groupKey, groupPosition FROM groupReviewState WHERE loopId = ?", arguments: [id])
        {
            let key: String = row[0]
            if let position = positions[key] {
                if position != row[1] {
                    try db.execute(
                        sql: "UPDATE groupReviewState SET groupPosition = ? WHERE loopId = ? AND groupKey = ?",
                        arguments: [position, id, key])
                }
            } else {
                try db.execute(
                    sql: "DELETE FROM groupReviewState WHERE loopId = ? AND groupKey = ?", arguments: [id, key])
                try db.execute(sql: "DELETE FROM groupReview WHERE loopId = ? AND groupKey = ?", arguments: [id, key])
                restarted += 1
            }
        }
        return restarted
    }

    // MARK: Settings

    /// The library's review settings (retention, limits), as saved.
    public func reviewSettings() throws -> ReviewSettings {
        try database.read { db in try Self.reviewSettings(db) }
    }

    static func reviewSettings(_ db: Database) throws -> ReviewSettings {
        var settings = ReviewSettings()
        for row in try Row.fetchAll(db, sql: "SELECT key, value FROM librarySetting WHERE key LIKE 'review.%'") {
            let value: String = row[1]
            switch row[0] as String {
            case "review.scheduler": settings.kind = ReviewSettings.Kind(rawValue: value) ?? settings.kind
            case "review.retention":
                if let retention = Double(value), ReviewSettings.retentions.contains(retention) {
                    settings.desiredRetention = retention
                }
            case "review.newPerDay":
                if let count = Int(value), ReviewSettings.newPerDayLimit.contains(count) { settings.newPerDay = count }
            default: break
            }
        }
        return settings
    }

    /// Keeps `settings`; when the scheduling changed, every group's state is computed again from
    /// its reviews by `replay`. Returns how many groups were rescheduled.
    public func setReviewSettings(_ settings: ReviewSettings, replay: ReviewReplay) throws -> Int {
        try storing {
            try database.write { db in
                let old = try Self.reviewSettings(db)
                for (key, value) in [
                    ("review.scheduler", settings.kind.rawValue),
                    ("review.retention", String(settings.desiredRetention)),
                    ("review.newPerDay", String(settings.newPerDay)),
                ] {
                    try db.execute(
                        sql:
                            "INSERT INTO librarySetting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        arguments: [key, value])
                }
                guard !old.schedulesAlike(settings) else { return 0 }
                let groups = try Row.fetchAll(
                    db, sql: "SELECT loopId, groupKey, groupPosition FROM groupReviewState")
                for group in groups {
                    try Self.computeState(
                        loop: group[0], key: group[1], position: group[2], settings: settings, replay: replay, db)
                }
                return groups.count
            }
        }
    }

    // MARK: Reviews

    /// Refuses a date no review can be made at (``ReviewCard/reviewDates``): the clock, or
    /// the file it came from, is wrong. Nothing is kept.
    public static func checkReviewDate(_ date: Date) throws(LibraryError) {
        guard !ReviewCard.reviewDates.contains(date) else { return }
        let shown =
            date.timeIntervalSince1970.isFinite && abs(date.timeIntervalSince1970) < 1e15
            ? date.formatted(.iso8601) : "\(date.timeIntervalSince1970) s from 1970"
        throw LibraryError(
            .clockOutOfRange,
            "the clock reads \(shown), not a time a review can be made at (1970 to \(ReviewCard.reviewDates.upperBound.formatted(.iso8601.year().month().day()))): set the clock right, then study again (nothing was kept)"
        )
    }

    /// Keeps the learner's ratings of groups of loop `id` (a rating already kept, the same group
    /// at the same moment, is left out) and gives each group rated its next review, in the
    /// caller's transaction (a study session's), as `replay` computes it. Returns how many were new.
    static func recordReviews(loop id: String, _ ratings: [GroupRating], replay: ReviewReplay, _ db: Database) throws
        -> Int
    {
        guard !ratings.isEmpty else { return 0 }
        var touched: [String: Int] = [:]
        let recorded = try insertReviews(ratings, loop: id, keys: try reviewKeys(ofLoop: id, db), touched: &touched, db)
        let settings = try reviewSettings(db)
        for (key, position) in touched {
            try computeState(loop: id, key: key, position: position, settings: settings, replay: replay, db)
        }
        return recorded
    }

    /// Inserts `ratings` of loop `id`'s groups (their review keys by position, `keys`), each
    /// one kept already (the same group and time) left out, and adds each group whose reviews
    /// changed to `touched` (key: position), for its state to be computed once, after every
    /// insert. How many were inserted.
    static func insertReviews(
        _ ratings: [GroupRating], loop id: String, keys: [Int: String], touched: inout [String: Int], _ db: Database
    ) throws -> Int {
        for rating in ratings { try checkReviewDate(rating.date) }
        var recorded = 0
        for rating in ratings {
            guard let key = keys[rating.group] else { continue }
            try db.execute(
                sql: "INSERT OR IGNORE INTO groupReview (loopId, groupKey, rating, reviewedAt) VALUES (?, ?, ?, ?)",
                arguments: [id, key, rating.rating.rawValue, rating.date])
            guard db.changesCount > 0 else { continue }
            recorded += 1
            touched[key] = rating.group
        }
        return recorded
    }

    /// A group's state, replayed from its reviews in time order (so that ratings merged from
    /// elsewhere, older than some kept here, fall in their place).
    static func computeState(
        loop id: String, key: String, position: Int, settings: ReviewSettings, replay: ReviewReplay, _ db: Database
    ) throws {
        let reviews = try Row.fetchAll(
            db, sql: "SELECT rating, reviewedAt FROM groupReview WHERE loopId = ? AND groupKey = ? ORDER BY reviewedAt",
            arguments: [id, key]
        ).compactMap { row -> (rating: ReviewRating, date: Date)? in
            // A review no scheduling can start from (a date of a clock that was wrong, kept by an
            // earlier version) is left out: `loop doctor` names it.
            guard let rating = ReviewRating(rawValue: row[0]), let date = StoredDate.read(row, 1),
                ReviewCard.reviewDates.contains(date)
            else { return nil }
            return (rating, date)
        }
        guard let card = replay(settings, reviews), let first = reviews.min(by: { $0.date < $1.date }) else {
            try db.execute(
                sql: "DELETE FROM groupReviewState WHERE loopId = ? AND groupKey = ?", arguments: [id, key])
            return
        }
        try db.execute(
            sql: """
                INSERT INTO groupReviewState (loopId, groupKey, groupPosition, state, step, stability, difficulty, due, lastReview, introducedAt, reviewCount)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(loopId, groupKey) DO UPDATE SET groupPosition = excluded.groupPosition, state = excluded.state,
                    step = excluded.step, stability = excluded.stability, difficulty = excluded.difficulty, due = excluded.due,
                    lastReview = excluded.lastReview, introducedAt = excluded.introducedAt, reviewCount = excluded.reviewCount
                """,
            arguments: [
                id, key, position, card.state.rawValue, card.step, card.stability, card.difficulty, card.due,
                card.lastReview ?? first.date, first.date, reviews.count,
            ])
    }

    /// The review state of each group of loop `id` begun, by position.
    public func reviewCards(ofLoop id: String) throws -> [Int: ReviewCard] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT groupPosition, state, step, stability, difficulty, due, lastReview FROM groupReviewState WHERE loopId = ?",
                arguments: [id]
            ).reduce(into: [:]) { cards, row in
                // (A due date that cannot be read, from a clock that was wrong, is due now.)
                cards[row[0]] = ReviewCard(
                    state: ReviewCard.State(rawValue: row[1]) ?? .review, step: row[2], stability: row[3],
                    difficulty: row[4], due: StoredDate.read(row, 5) ?? .distantPast,
                    lastReview: StoredDate.read(row, 6))
            }
        }
    }

    /// What to review by `dayEnd` (the end of the learner's day, which began at `dayStart`):
    /// groups overdue, then due, in the order they fell due, then new groups (of loops begun
    /// first, then of the others in the order they were added) up to the day's allowance
    /// (`newLimit`, or the settings'); only loop `loop`'s when given; the first `limit` groups
    /// due, and the counts of all. New groups only with audio (a group begun keeps its clips
    /// while its text stays; one without is skipped when studied).
    public func reviewQueue(
        dayStart: Date, dayEnd: Date, loop: String? = nil, newLimit: Int? = nil, limit: Int? = nil
    ) throws -> ReviewQueue {
        try database.read { db in
            let settings = try Self.reviewSettings(db)
            let loopFilter = loop == nil ? "" : "AND s.loopId = ?"
            var arguments: StatementArguments = [dayEnd]
            if let loop { arguments += [loop] }
            var items = try Row.fetchAll(
                db,
                sql: """
                    SELECT s.loopId, loop.title, s.groupPosition, s.due, s.stability, s.reviewCount,
                        (SELECT text FROM phrase WHERE phrase.groupId = g.id ORDER BY phrase.position LIMIT 1)
                    FROM groupReviewState s JOIN loop ON loop.id = s.loopId
                    JOIN phraseGroup g ON g.loopId = s.loopId AND g.position = s.groupPosition
                    WHERE s.due < ? \(loopFilter)
                    ORDER BY s.due \(limit.map { "LIMIT \($0)" } ?? "")
                    """, arguments: arguments
            ).map { row in
                // (A due date that cannot be read, from a clock that was wrong, is overdue.)
                let due = StoredDate.read(row, 3) ?? .distantPast
                return ReviewItem(
                    loopId: row[0], loopTitle: row[1], group: row[2], firstPhrase: row[6] ?? "",
                    kind: due < dayStart ? .overdue : .due, due: due,
                    stability: settings.kind == .fsrs ? row[4] : nil, reviews: row[5])
            }
            let newToday =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM groupReviewState WHERE introducedAt >= ?", arguments: [dayStart])
                ?? 0
            var room = newLimit ?? max(0, settings.newPerDay - newToday)
            // Loops with groups not begun: those begun first, then the others as they were added.
            let candidates =
                room == 0
                ? []
                : try Row.fetchAll(
                    db,
                    sql: """
                        SELECT loop.id, loop.title FROM loop
                        LEFT JOIN (SELECT loopId, MIN(introducedAt) AS begun, COUNT(*) AS groups FROM groupReviewState GROUP BY loopId) r
                            ON r.loopId = loop.id
                        WHERE loop.groupCount > COALESCE(r.groups, 0) AND loop.phrasesNeedingAudio < loop.phraseCount
                            \(loop == nil ? "" : "AND loop.id = ?")
                        ORDER BY r.begun IS NULL, r.begun, loop.createdAt, loop.id
                        """, arguments: loop.map { [$0] } ?? [])
            for candidate in candidates where room > 0 {
                let loopId: String = candidate[0]
                let fresh = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT g.position, (SELECT text FROM phrase WHERE phrase.groupId = g.id ORDER BY phrase.position LIMIT 1)
                        FROM phraseGroup g WHERE g.loopId = ?
                            AND EXISTS (SELECT 1 FROM phrase WHERE phrase.groupId = g.id AND phrase.audioSha256 IS NOT NULL)
                            AND NOT EXISTS (SELECT 1 FROM groupReviewState s WHERE s.loopId = g.loopId AND s.groupPosition = g.position)
                        ORDER BY g.position LIMIT ?
                        """, arguments: [loopId, room])
                for row in fresh {
                    items.append(
                        ReviewItem(
                            loopId: loopId, loopTitle: candidate[1], group: row[0], firstPhrase: row[1] ?? "",
                            kind: .new, due: nil, stability: nil, reviews: 0))
                }
                room -= fresh.count
            }
            let counts = try Row.aggregate(
                db,
                sql: """
                    SELECT (SELECT COUNT(*) FROM groupReviewState s WHERE due < ? \(loopFilter)),
                        (SELECT COUNT(*) FROM groupReviewState s WHERE due < ? \(loopFilter))
                    """,
                arguments: loop.map { [dayStart, $0, dayEnd, $0] } ?? [dayStart, dayEnd])
            return ReviewQueue(
                items: items, newToday: newToday, newPerDay: newLimit ?? settings.newPerDay, overdueCount: counts[0],
                dueCount: (counts[1] as Int) - (counts[0] as Int))
        }
    }

    /// Reviews due, retention, the streak and the days studied, as of `now` in the learner's
    /// day (`dayStart`..<`dayEnd`, local time, as SQLite's `localtime` sees it too).
    public func reviewStats(now: Date, dayStart: Date, dayEnd: Date) throws -> ReviewStats {
        try database.read { db in
            // (Each count from the index on due, reading only the groups due: a count of every
            // group, or one filtered over every row, reads all 40,000 of a big library's.)
            let due = try Row.aggregate(
                db,
                sql: """
                    SELECT (SELECT COUNT(*) FROM groupReviewState WHERE due < ?),
                        (SELECT COUNT(*) FROM groupReviewState WHERE due < ?)
                    """,
                arguments: [dayEnd, dayEnd.addingTimeInterval(6 * 86_400)])
            // From the days' table: retention over the last 30 days (today and the 29 before).
            let calendar = StudyDay.calendar
            func dayBefore(_ days: Int) -> String {
                StudyDay.name(of: calendar.date(byAdding: .day, value: -days, to: dayStart) ?? dayStart, in: calendar)
            }
            let monthAgo = dayBefore(29)
            let reviews = try Row.aggregate(
                db,
                sql: """
                    SELECT COALESCE(SUM(reviews), 0), COALESCE(SUM(again), 0),
                        COALESCE(SUM(reviews) FILTER (WHERE day >= ?), 0), COALESCE(SUM(again) FILTER (WHERE day >= ?), 0)
                    FROM studyDay
                    """, arguments: [monthAgo, monthAgo])
            let yearAgo = dayBefore(366)
            var days: [String: StudyDay] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT day, seconds, reviews FROM studyDay WHERE day >= ?", arguments: [yearAgo])
            {
                days[row[0]] = StudyDay(seconds: row[1], reviews: row[2])
            }
            return ReviewStats(
                dueToday: due[0], dueThisWeek: due[1], reviewsLast30Days: reviews[2],
                againLast30Days: reviews[3], reviewsTotal: reviews[0], againTotal: reviews[1],
                streak: Self.streak(days: Set(days.keys), today: dayStart), days: days)
        }
    }

    /// Days in a row with study, back from today (or from yesterday while today has none).
    static func streak(days: Set<String>, today: Date) -> Int {
        let calendar = StudyDay.calendar
        func name(_ date: Date) -> String { StudyDay.name(of: date, in: calendar) }
        func dayBefore(_ date: Date) -> Date? { calendar.date(byAdding: .day, value: -1, to: date) }
        var day: Date? = days.contains(name(today)) ? today : dayBefore(today)
        var count = 0
        while let studied = day, days.contains(name(studied)) {
            count += 1
            day = dayBefore(studied)
        }
        return count
    }
}

extension Row {
    /// The one row an aggregate query (`SELECT COUNT(*) ...`) gives.
    fileprivate static func aggregate(_ db: Database, sql: String, arguments: StatementArguments) throws -> Row {
        guard let row = try fetchOne(db, sql: sql, arguments: arguments) else {
            throw LibraryError(.storageFailed, "the library's database answered a count with nothing")
        }
        return row
    }
}
