import Foundation
import GRDB

/// A loop as a shared catalog holds it, with what its search needs: written into a
/// ``SQLiteCatalog`` that mirrors that catalog's search (``SearchMirror``).
struct MirroredLoop: Sendable {
    var id: String
    var shortID: String
    var authorKey: String
    var revision: Int
    var title: String
    var language: String?
    var translationLanguage: String?
    /// The tags as JSON, and their folded keys (`|a|b|`), as the catalogs store them.
    var tags: String
    var tagKeys: String
    var groupCount: Int
    var phraseCount: Int
    var seconds: Double
    var published: Int64
    var updated: Int64
    var featured: Bool
    var listed: Bool
    var bundleSHA256: String
    var bundleBytes: Int
    var searchTitle: String
    var searchText: String
    var authorFingerprint: String
    var authorName: String?
    var authorNameKey: String?
    var authorNameWords: String
    /// Its place in the newest-first order (the shared catalog's number); nil when not listed.
    var position: Int64?
}

extension SQLiteCatalog {
    /// Merges each search index into one segment: once the mirror is first read whole (read a
    /// thousand loops at a time, it is left with the segments of the last eighth's merges,
    /// and every search reads them all).
    func mergeSearchIndexes() async throws {
        try await pool.write { db in try Self.optimizeSearchIndexes(db) }
    }

    /// Writes `loops` as the mirrored catalog holds them now, each with its author, in one
    /// transaction: a loop new here is added, one changed is changed, one no longer listed
    /// leaves the search. A loop's words are indexed again only where they changed.
    ///
    /// The words of the loops new to the search are added to its indexes together, in one
    /// statement each (a loop at a time, a mirror of 100,000 loops took minutes to fill).
    func mirror(_ loops: [MirroredLoop]) async throws {
        guard !loops.isEmpty else { return }
        try await pool.write { db in
            // The trigger that indexes each entry as it is added, set aside meanwhile.
            let indexing = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'search_entry_insert'")
            if indexing != nil { try db.execute(sql: "DROP TRIGGER search_entry_insert") }
            var added: [Int64] = []
            // Remembered once for all (the loops of a catalog share many words).
            var longWords: Set<Substring> = []
            for loop in loops {
                if let position = try Self.mirror(db, loop, longWords: &longWords) { added.append(position) }
            }
            try Self.rememberLongWords(db, longWords)
            if !added.isEmpty {
                let positions = "[" + added.map(String.init).joined(separator: ",") + "]"
                let chosen = "position IN (SELECT value FROM json_each(:added))"
                try db.execute(
                    sql: "INSERT INTO titleIndex(rowid, words) SELECT position, title FROM searchEntry WHERE " + chosen
                        + "; INSERT INTO wordIndex(rowid, words) SELECT position, title || ' ' || body FROM searchEntry WHERE "
                        + chosen
                        + "; UPDATE searchIndexState SET entries = entries + :count, changes = changes + :count",
                    arguments: ["added": positions, "count": added.count])
            }
            if let indexing { try db.execute(sql: indexing) }
            try Self.optimizeSearchIndexesIfDue(db)
        }
    }

    /// Writes `loop`; its place when its words are to be added to the search's indexes (its
    /// long words then added to `longWords`).
    private static func mirror(_ db: Database, _ loop: MirroredLoop, longWords: inout Set<Substring>) throws
        -> Int64?
    {
        if let nameKey = loop.authorNameKey {
            // A name another author held here and has given up since (their own row comes later).
            try Self.run(
                db, "UPDATE author SET nameKey = NULL WHERE nameKey = ? AND key <> ?", [nameKey, loop.authorKey])
        }
        try Self.run(
            db,
            """
            INSERT INTO author (key, fingerprint, name, nameKey, nameWords) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, name = excluded.name,
                nameKey = excluded.nameKey, nameWords = excluded.nameWords
            WHERE author.fingerprint IS NOT excluded.fingerprint OR author.name IS NOT excluded.name
                OR author.nameKey IS NOT excluded.nameKey OR author.nameWords IS NOT excluded.nameWords
            """,
            [
                loop.authorKey, loop.authorFingerprint, loop.authorName, loop.authorNameKey, loop.authorNameWords,
            ])
        try Self.run(
            db,
            """
            INSERT INTO loop (id, shortID, authorKey, revision, title, language, translationLanguage, tags, tagKeys,
                groupCount, phraseCount, seconds, published, updated, featured, listed, bundleSHA256, bundleBytes)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET shortID = excluded.shortID, authorKey = excluded.authorKey,
                revision = excluded.revision, title = excluded.title, language = excluded.language,
                translationLanguage = excluded.translationLanguage, tags = excluded.tags, tagKeys = excluded.tagKeys,
                groupCount = excluded.groupCount, phraseCount = excluded.phraseCount, seconds = excluded.seconds,
                published = excluded.published, updated = excluded.updated, featured = excluded.featured,
                listed = excluded.listed, bundleSHA256 = excluded.bundleSHA256, bundleBytes = excluded.bundleBytes
            """,
            [
                loop.id, loop.shortID, loop.authorKey, loop.revision, loop.title, loop.language,
                loop.translationLanguage, loop.tags, loop.tagKeys, loop.groupCount, loop.phraseCount, loop.seconds,
                loop.published, loop.updated, loop.featured, loop.listed, loop.bundleSHA256, loop.bundleBytes,
            ])
        guard
            let rowid = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT rowid FROM loop WHERE id = ?"), arguments: [loop.id])
        else { return nil }
        try Self.run(
            db,
            """
            INSERT INTO loopText (loopRowid, content, searchTitle, searchText) VALUES (?, x'', ?, ?)
            ON CONFLICT (loopRowid) DO UPDATE SET searchTitle = excluded.searchTitle, searchText = excluded.searchText
            """, [rowid, loop.searchTitle, loop.searchText])
        let kept = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT position, title, body FROM searchEntry WHERE loopRowid = ?"),
            arguments: [rowid])
        guard let position = loop.position, loop.listed else {
            if kept != nil {
                try Self.run(
                    db, "DELETE FROM searchEntry WHERE loopRowid = ?", [rowid])
            }
            return nil
        }
        // As ``index(_:loopID:rememberingLongWords:)`` words it, at the mirrored catalog's place.
        let title = loop.searchTitle
        let body = loop.searchText + " " + loop.authorNameWords
        if let kept, kept[0] == position, kept[1] == title, kept[2] == body { return nil }
        if kept != nil {
            try Self.run(
                db, "DELETE FROM searchEntry WHERE loopRowid = ?", [rowid])
        }
        try Self.run(
            db, "INSERT INTO searchEntry (position, loopRowid, title, body) VALUES (?, ?, ?, ?)",
            [position, rowid, title, body])
        longWords.formUnion(Self.longWords(in: title + " " + body))
        return position
    }

    /// Runs `sql`, a statement kept prepared.
    private static func run(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// Writes the mirrored catalog's downloads in the last days, each loop's as one sum on
    /// `day` (within the days Hot counts): every loop's (`replacingAll`), or only those of
    /// `sums`. The searches in Hot's order read them from then on.
    func mirrorDownloads(_ sums: [(loopID: String, count: Int)], day: Int64, replacingAll: Bool) async throws {
        try await pool.write { db in
            if replacingAll { try db.execute(sql: "DELETE FROM download") }
            let delete = try db.cachedStatement(sql: "DELETE FROM download WHERE loopId = ?")
            let insert = try db.cachedStatement(sql: "INSERT INTO download (loopId, day, count) VALUES (?, ?, ?)")
            for (loopID, count) in sums {
                if !replacingAll { try delete.execute(arguments: [loopID]) }
                if count > 0 { try insert.execute(arguments: [loopID, day, count]) }
            }
        }
        // The hot loops kept for the searches were read before these.
        hotList.downloadCounted()
    }
}
