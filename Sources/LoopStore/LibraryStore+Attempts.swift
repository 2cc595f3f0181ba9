import Foundation
import GRDB
import LoopAudioFiles
import LoopFoundation
import LoopModel

extension LibraryStore {
    /// The attempts kept of each phrase: the last ones.
    public static let attemptsKeptPerPhrase = 3
    /// The attempts' recordings kept at most, over the whole library: beyond it the oldest go.
    public static let attemptBytesLimit = 32 * 1024 * 1024

    /// Keeps `attempt` at a phrase of the loop `id`, its recording copied from `audioPath` (a
    /// FLAC the caller wrote); the phrase's older attempts beyond ``attemptsKeptPerPhrase`` and
    /// the library's oldest beyond ``attemptBytesLimit`` go, their recordings with them.
    public func keepAttempt(_ attempt: ShadowingAttempt, loop id: String, audioPath: String) throws {
        let info = try AudioFileReader(path: audioPath).info
        try whileInFlight { try storing { try keep(attempt, loop: id, info: info, audioPath: audioPath) } }
    }

    private func keep(_ attempt: ShadowingAttempt, loop id: String, info: AudioFileInfo, audioPath: String) throws {
        do {
            let stored = try audio.store(copyOf: audioPath)
            let released = try database.write { db -> [String] in
                let asset = AudioAssetRecord(
                    sha256: stored.sha256, path: stored.path, format: info.format.rawValue,
                    sampleRate: info.sampleRate, channelCount: info.channelCount, frameCount: info.frameCount,
                    byteCount: stored.byteCount, createdAt: Date())
                try asset.insert(db, onConflict: .ignore)
                let key = matchingKey(attempt.phraseText)
                let missed = String(decoding: try JSONEncoder().encode(attempt.missedWords), as: UTF8.self)
                try db.execute(
                    sql: """
                        INSERT INTO shadowingAttempt (loopId, phraseKey, phraseText, audioSha256, recordedAt,
                            coverage, match, lengthRatio, intonation, missedWords, timingWord, timingRatio)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, key, attempt.phraseText, stored.sha256, attempt.recordedAt, attempt.coverage,
                        attempt.match, attempt.lengthRatio, attempt.intonation, missed, attempt.timingWord,
                        attempt.timingRatio,
                    ])
                // The phrase's last attempts, then the library's newest within the limit.
                try db.execute(
                    sql: """
                        DELETE FROM shadowingAttempt WHERE loopId = ?1 AND phraseKey = ?2 AND id NOT IN (
                            SELECT id FROM shadowingAttempt WHERE loopId = ?1 AND phraseKey = ?2
                            ORDER BY recordedAt DESC, id DESC LIMIT ?3)
                        """, arguments: [id, key, Self.attemptsKeptPerPhrase])
                try db.execute(
                    sql: """
                        DELETE FROM shadowingAttempt WHERE id IN (
                            SELECT id FROM (
                                SELECT shadowingAttempt.id, SUM(audioAsset.byteCount) OVER (
                                    ORDER BY recordedAt DESC, shadowingAttempt.id DESC) AS kept
                                FROM shadowingAttempt JOIN audioAsset ON audioAsset.sha256 = shadowingAttempt.audioSha256)
                            WHERE kept > ?)
                        """, arguments: [Self.attemptBytesLimit])
                // Recordings no row refers to any more go now, not at the next `loop gc`.
                let paths = try String.fetchAll(
                    db, sql: "SELECT path FROM audioAsset WHERE " + Self.unreferencedAudio)
                try db.execute(sql: "DELETE FROM audioAsset WHERE " + Self.unreferencedAudio)
                return paths
            }
            for path in released { try? FileManager.default.removeItem(atPath: audio.absolute(path)) }
        }
    }

    /// The attempts kept at the loop `id`'s phrases, oldest first.
    public func attempts(loop id: String) throws -> [ShadowingAttempt] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT shadowingAttempt.*, audioAsset.path AS audioPath FROM shadowingAttempt
                    JOIN audioAsset ON audioAsset.sha256 = shadowingAttempt.audioSha256
                    WHERE loopId = ? ORDER BY recordedAt, shadowingAttempt.id
                    """, arguments: [id]
            ).map { row in
                let missed = (row["missedWords"] as String?).flatMap {
                    try? JSONDecoder().decode([String].self, from: Data($0.utf8))
                }
                return ShadowingAttempt(
                    phraseText: row["phraseText"], recordedAt: row["recordedAt"], coverage: row["coverage"],
                    match: row["match"], lengthRatio: row["lengthRatio"], intonation: row["intonation"],
                    missedWords: missed ?? [], timingWord: row["timingWord"], timingRatio: row["timingRatio"],
                    audioPath: audio.absolute(row["audioPath"]))
            }
        }
    }
}
