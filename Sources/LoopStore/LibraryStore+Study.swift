import Foundation
import GRDB
import LoopModel
import LoopStudy

/// How much a phrase was studied in one session.
public struct PhraseStudyRecord: Sendable, Equatable {
    public var phraseId: Int64
    public var seconds: Double
    public var repetitions: Int

    public init(phraseId: Int64, seconds: Double, repetitions: Int) {
        self.phraseId = phraseId
        self.seconds = seconds
        self.repetitions = repetitions
    }
}

/// A study session of a loop, as saved.
public struct StudySessionRecord: Sendable, Equatable {
    public var loopId: String
    public var startedAt: Date
    public var phrases: [PhraseStudyRecord]
    /// The groups it studied through, as rated.
    public var reviews: [GroupRating]

    public init(loopId: String, startedAt: Date, phrases: [PhraseStudyRecord], reviews: [GroupRating] = []) {
        self.loopId = loopId
        self.startedAt = startedAt
        self.phrases = phrases
        self.reviews = reviews
    }
}

extension LibraryStore {
    /// Saves one study session of a loop, and the reviews of the groups it studied through, in
    /// one transaction.
    public func recordStudy(
        loop id: String, startedAt: Date, phrases: [PhraseStudyRecord], reviews: [GroupRating] = []
    ) throws {
        guard !phrases.isEmpty else { return }
        try storing {
            try database.write { db in
                try Self.insert(
                    StudySessionRecord(loopId: id, startedAt: startedAt, phrases: phrases, reviews: reviews), db)
            }
        }
    }

    private static func insert(_ session: StudySessionRecord, _ db: Database) throws {
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
        _ = try recordReviews(loop: session.loopId, session.reviews, db)
    }

    /// Saves study sessions made elsewhere (a loop's page), all in one transaction, leaving
    /// out each one already kept (the same loop and start, to the millisecond); returns, for
    /// each, whether it was saved.
    public func recordStudySessions(_ sessions: [StudySessionRecord]) throws -> [Bool] {
        try database.write { db in
            try sessions.map { session in
                let kept =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM studyEvent WHERE loopId = ? AND startedAt = ?)",
                        arguments: [session.loopId, session.startedAt]) ?? false
                guard !kept, !session.phrases.isEmpty else { return false }
                try Self.insert(session, db)
                return true
            }
        }
    }

    /// Study totals: of one loop (with its phrases), or of every loop studied.
    public func studyStats(loop id: String? = nil) throws -> [LoopStudyStats] {
        try database.read { db in
            let filter = id == nil ? "" : "WHERE studyEvent.loopId = ?"
            let arguments: StatementArguments = id.map { [$0] } ?? []
            let totals = try Row.fetchAll(
                db,
                sql: """
                    SELECT loop.id, loop.title, COUNT(DISTINCT studyEvent.startedAt), SUM(studyEvent.seconds), SUM(studyEvent.repetitions), MAX(studyEvent.startedAt)
                    FROM studyEvent JOIN loop ON loop.id = studyEvent.loopId \(filter)
                    GROUP BY loop.id ORDER BY MAX(studyEvent.startedAt) DESC
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
                    lastStudied: row[5], phrases: phrases)
            }
        }
    }
}
