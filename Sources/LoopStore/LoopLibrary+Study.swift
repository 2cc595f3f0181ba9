import Foundation
import GRDB
import LoopModel

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

extension LoopLibrary {
    /// Saves one study session of a loop, in one transaction.
    public func recordStudy(loop id: String, startedAt: Date, phrases: [PhraseStudyRecord]) throws {
        guard !phrases.isEmpty else { return }
        try database.write { db in
            for phrase in phrases {
                try db.execute(sql: """
                    INSERT INTO studyEvent (loopId, phraseId, startedAt, seconds, repetitions)
                    SELECT ?, id, ?, ?, ? FROM phrase WHERE id = ? AND loopId = ?
                    """, arguments: [id, startedAt, phrase.seconds, phrase.repetitions, phrase.phraseId, id])
            }
        }
    }

    /// Whether a study session of `loop` that started at `startedAt` (to the millisecond) is kept.
    public func hasStudySession(loop id: String, startedAt: Date) throws -> Bool {
        try database.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM studyEvent WHERE loopId = ? AND startedAt = ?)", arguments: [id, startedAt]) ?? false
        }
    }

    /// Study totals: of one loop (with its phrases), or of every loop studied.
    public func studyStats(loop id: String? = nil) throws -> [LoopStudyStats] {
        try database.read { db in
            let filter = id == nil ? "" : "WHERE studyEvent.loopId = ?"
            let arguments: StatementArguments = id.map { [$0] } ?? []
            let totals = try Row.fetchAll(db, sql: """
                SELECT loop.id, loop.title, COUNT(DISTINCT studyEvent.startedAt), SUM(studyEvent.seconds), SUM(studyEvent.repetitions), MAX(studyEvent.startedAt)
                FROM studyEvent JOIN loop ON loop.id = studyEvent.loopId \(filter)
                GROUP BY loop.id ORDER BY MAX(studyEvent.startedAt) DESC
                """, arguments: arguments)
            return try totals.map { row in
                let loopId: String = row[0]
                let phrases = id == nil ? [] : try Row.fetchAll(db, sql: """
                    SELECT phrase.position, phrase.text, SUM(studyEvent.seconds), SUM(studyEvent.repetitions)
                    FROM studyEvent JOIN phrase ON phrase.id = studyEvent.phraseId
                    WHERE studyEvent.loopId = ? GROUP BY phrase.id ORDER BY phrase.position
                    """, arguments: [loopId]).map { phrase in
                        LoopStudyStats.PhraseTotals(number: (phrase[0] as Int) + 1, text: phrase[1], seconds: phrase[2], repetitions: phrase[3])
                    }
                return LoopStudyStats(loopId: loopId, title: row[1], sessions: row[2], seconds: row[3] ?? 0, repetitions: row[4] ?? 0,
                                      lastStudied: row[5], phrases: phrases)
            }
        }
    }
}
