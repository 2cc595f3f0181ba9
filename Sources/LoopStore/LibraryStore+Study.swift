import Foundation
import GRDB
import LoopModel

/// How much a phrase was studied in one session.
public struct PhraseStudyRecord: Sendable, Equatable {
    /// The phrase's row id.
    public var phraseId: Int64
    /// Seconds it was played.
    public var seconds: Double
    /// Times it was played through.
    public var repetitions: Int

    /// A phrase's record.
    public init(phraseId: Int64, seconds: Double, repetitions: Int) {
        self.phraseId = phraseId
        self.seconds = seconds
        self.repetitions = repetitions
    }
}

/// What saving a session made elsewhere did.
public struct RecordedSession: Sendable, Equatable {
    /// Whether it was saved (false: kept already, or it played nothing).
    public var saved: Bool
    /// How many of its reviews were saved (the others were kept already).
    public var reviews: Int
}

/// A study session of a loop, as saved.
public struct StudySessionRecord: Sendable, Equatable {
    /// The loop studied.
    public var loopId: String
    /// When the session began.
    public var startedAt: Date
    /// What each phrase was studied.
    public var phrases: [PhraseStudyRecord]
    /// The groups it studied through, as rated.
    public var reviews: [GroupRating]

    /// A session's record.
    public init(loopId: String, startedAt: Date, phrases: [PhraseStudyRecord], reviews: [GroupRating] = []) {
        self.loopId = loopId
        self.startedAt = startedAt
        self.phrases = phrases
        self.reviews = reviews
    }
}

extension LibraryStore {
    /// Saves one study session of a loop, and the reviews of the groups it studied through (each
    /// group's state as `replay` computes it), in one transaction.
    public func recordStudy(
        loop id: String, startedAt: Date, phrases: [PhraseStudyRecord], reviews: [GroupRating] = [],
        replay: ReviewReplay
    ) throws {
        // A group rated before any of its phrases was heard (a key pressed at once) keeps its rating.
        guard !phrases.isEmpty || !reviews.isEmpty else { return }
        try storing {
            try database.write { db in
                try Self.insert(
                    StudySessionRecord(loopId: id, startedAt: startedAt, phrases: phrases, reviews: reviews),
                    replay: replay, db)
            }
        }
    }

    private static func insert(_ session: StudySessionRecord, replay: ReviewReplay, _ db: Database) throws {
        try insertEvents(session, db)
        _ = try recordReviews(loop: session.loopId, session.reviews, replay: replay, db)
    }

    /// A session's phrase records, each for a phrase of its loop.
    private static func insertEvents(_ session: StudySessionRecord, _ db: Database) throws {
        try checkReviewDate(session.startedAt)
        for phrase in session.phrases {
            try db.execute(
                sql: """
                    INSERT INTO studyEvent (loopId, phraseId, startedAt, seconds, repetitions)
                    SELECT ?, id, ?, ?, ? FROM phrase WHERE id = ? AND loopId = ?
                    """,
                arguments: [
                    session.loopId, session.startedAt, phrase.seconds, phrase.repetitions, phrase.phraseId,
                    session.loopId,
                ])
        }
    }

    /// Saves study sessions made elsewhere (a loop's page), all in one transaction, leaving
    /// out each one already kept (the same loop and start, to the millisecond), and each review
    /// kept already (the same group at the same time); returns, for each, whether it was saved
    /// and how many of its reviews were. Each group's state is computed by `replay` once, after
    /// every session is in: a file of thousands of sessions costs one replay a group, not one
    /// a session.
    public func recordStudySessions(_ sessions: [StudySessionRecord], replay: ReviewReplay) throws
        -> [RecordedSession]
    {
        try database.write { db in
            var keys: [String: [Int: String]] = [:]
            var touched: [String: [String: Int]] = [:]
            let recorded = try sessions.map { session -> RecordedSession in
                let kept =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM studyEvent WHERE loopId = ? AND startedAt = ?)",
                        arguments: [session.loopId, session.startedAt]) ?? false
                guard !kept, !session.phrases.isEmpty else { return RecordedSession(saved: false, reviews: 0) }
                try Self.insertEvents(session, db)
                let loopKeys = try keys[session.loopId] ?? Self.reviewKeys(ofLoop: session.loopId, db)
                keys[session.loopId] = loopKeys
                let reviews = try Self.insertReviews(
                    session.reviews, loop: session.loopId, keys: loopKeys,
                    touched: &touched[session.loopId, default: [:]],
                    db)
                return RecordedSession(saved: true, reviews: reviews)
            }
            let settings = try Self.reviewSettings(db)
            for (loop, groups) in touched {
                for (key, position) in groups {
                    try Self.computeState(
                        loop: loop, key: key, position: position, settings: settings, replay: replay, db)
                }
            }
            return recorded
        }
    }

    /// How many loops were ever studied.
    public func studiedLoopCount() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM loopStudy") ?? 0 }
    }

    /// Study totals: of one loop (with its phrases), or of every loop studied, the last studied
    /// first (up to `limit`).
    public func studyStats(loop id: String? = nil, limit: Int? = nil) throws -> [LoopStudyStats] {
        try database.read { db in
            // Each loop's totals, kept by a trigger as study is written (v11).
            let filter = id == nil ? "" : "WHERE loopStudy.loopId = ?"
            let arguments: StatementArguments = id.map { [$0] } ?? []
            let totals = try Row.fetchAll(
                db,
                sql: """
                    SELECT loop.id, loop.title, loopStudy.sessions, loopStudy.seconds, loopStudy.repetitions, loopStudy.lastStudied
                    FROM loopStudy JOIN loop ON loop.id = loopStudy.loopId \(filter)
                    ORDER BY loopStudy.lastStudied DESC \(limit.map { "LIMIT \($0)" } ?? "")
                    """, arguments: arguments)
            return try totals.map { row in
                let loopId: String = row[0]
                let phrases =
                    id == nil
                    ? []
                    : try Row.fetchAll(
                        db,
                        sql: """
                            SELECT phrase.position, phrase.text, SUM(studyEvent.seconds), SUM(studyEvent.repetitions)
                            FROM studyEvent JOIN phrase ON phrase.id = studyEvent.phraseId
                            WHERE studyEvent.loopId = ? GROUP BY phrase.id ORDER BY phrase.position
                            """, arguments: [loopId]
                    ).map { phrase in
                        LoopStudyStats.PhraseTotals(
                            number: (phrase[0] as Int) + 1, text: phrase[1], seconds: phrase[2], repetitions: phrase[3])
                    }
                return LoopStudyStats(
                    loopId: loopId, title: row[1], sessions: row[2], seconds: row[3] ?? 0, repetitions: row[4] ?? 0,
                    lastStudied: StoredDate.read(row, 5), phrases: phrases)
            }
        }
    }
}
