import Foundation
import GRDB
import LoopFoundation
import LoopLibraryAPI

/// The catalog in one SQLite file (WAL: readers never wait for a publish), for a Loop Library
/// served from one machine.
public final class SQLiteCatalog: Catalog {
    private let pool: DatabasePool
    /// Read-only connections for the reads made on the calling thread (``readHere(transaction:_:)``),
    /// apart from `pool`: a thread of Swift's cooperative pool blocked waiting for one of
    /// `pool`'s readers could wait forever, since an async read gives its reader back only on
    /// a cooperative thread (with two cores, both were blocked so, and the server hung).
    private let hereReaders: DatabasePool

    /// Opens (creating) the catalog at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        // Readers as the server has request threads; WAL lets them read while a publish writes.
        configuration.maximumReaderCount = 8
        // 8 MiB of page cache a connection (SQLite's default is 2): the loop rows and the search
        // index of 10,000 loops stay in memory instead of being read again for every search.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -8192") }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            var readOnly = configuration
            readOnly.readonly = true
            hereReaders = try DatabasePool(path: path, configuration: readOnly)
        } catch {
            throw CatalogError(.database, "\(path): cannot open the catalog (\(error))")
        }
    }

    public var isShared: Bool { false }

    public func prepare() async throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 loops, authors, downloads, nonces") { db in
            try db.execute(
                sql: """
                    CREATE TABLE author (
                        key TEXT PRIMARY KEY NOT NULL,
                        fingerprint TEXT NOT NULL,
                        name TEXT,
                        nameKey TEXT UNIQUE
                    );
                    CREATE TABLE loop (
                        id TEXT PRIMARY KEY NOT NULL,
                        shortID TEXT NOT NULL UNIQUE,
                        authorKey TEXT NOT NULL REFERENCES author(key),
                        revision INTEGER NOT NULL,
                        title TEXT NOT NULL,
                        language TEXT,
                        translationLanguage TEXT,
                        tags TEXT NOT NULL,
                        tagKeys TEXT NOT NULL,
                        groupCount INTEGER NOT NULL,
                        phraseCount INTEGER NOT NULL,
                        seconds REAL NOT NULL,
                        published INTEGER NOT NULL,
                        updated INTEGER NOT NULL,
                        featured INTEGER NOT NULL DEFAULT 0,
                        listed INTEGER NOT NULL DEFAULT 1,
                        bundleSHA256 TEXT NOT NULL,
                        bundleBytes INTEGER NOT NULL
                    );
                    -- A loop's phrases (large) beside its row (small), so that listing and sorting
                    -- thousands of loops reads few pages.
                    CREATE TABLE loopText (
                        loopRowid INTEGER PRIMARY KEY,
                        content BLOB NOT NULL,
                        searchText TEXT NOT NULL
                    );
                    CREATE INDEX loop_latest ON loop(listed, updated DESC);
                    CREATE INDEX loop_author ON loop(authorKey);
                    CREATE TABLE download (
                        loopId TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (loopId, day)
                    ) WITHOUT ROWID;
                    CREATE TABLE nonce (
                        nonce TEXT PRIMARY KEY NOT NULL,
                        expires INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    -- Search matches parts of words: a trigram index finds them without reading
                    -- every loop's text. Kept by triggers.
                    CREATE VIRTUAL TABLE loopSearch USING fts5(searchText, content='loopText', content_rowid='loopRowid', tokenize='trigram');
                    CREATE TRIGGER loop_search_insert AFTER INSERT ON loopText BEGIN
                        INSERT INTO loopSearch(rowid, searchText) VALUES (new.loopRowid, new.searchText);
                    END;
                    CREATE TRIGGER loop_search_delete AFTER DELETE ON loopText BEGIN
                        INSERT INTO loopSearch(loopSearch, rowid, searchText) VALUES ('delete', old.loopRowid, old.searchText);
                    END;
                    CREATE TRIGGER loop_search_update AFTER UPDATE OF searchText ON loopText BEGIN
                        INSERT INTO loopSearch(loopSearch, rowid, searchText) VALUES ('delete', old.loopRowid, old.searchText);
                        INSERT INTO loopSearch(rowid, searchText) VALUES (new.loopRowid, new.searchText);
                    END;
                    """)
        }
        // A number that grows with every change to what the pages show (a publish, an
        // unpublish, a feature, an author's name): the web pages' cache compares it.
        migrator.registerMigration("v2 change stamp") { db in
            try db.execute(
                sql: """
                    CREATE TABLE catalogChange (version INTEGER NOT NULL);
                    INSERT INTO catalogChange (version) VALUES (0);
                    CREATE TRIGGER loop_inserted AFTER INSERT ON loop BEGIN UPDATE catalogChange SET version = version + 1; END;
                    CREATE TRIGGER loop_updated AFTER UPDATE ON loop BEGIN UPDATE catalogChange SET version = version + 1; END;
                    CREATE TRIGGER author_updated AFTER UPDATE ON author BEGIN UPDATE catalogChange SET version = version + 1; END;
                    """)
        }
        // Hot counts one download per client address per loop per day (a hash of the
        // address, kept for the days Hot looks at).
        migrator.registerMigration("v3 downloads counted once per client a day") { db in
            try db.execute(
                sql: """
                    CREATE TABLE downloadSeen (
                        loopId TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        client TEXT NOT NULL,
                        PRIMARY KEY (loopId, day, client)
                    ) WITHOUT ROWID;
                    """)
        }
        // Only blobs a listed loop refers to are served: which loop refers to which blob.
        migrator.registerMigration("v4 the blobs each loop refers to") { db in
            try db.execute(
                sql: """
                    CREATE TABLE blobRef (
                        sha256 TEXT NOT NULL,
                        loopId TEXT NOT NULL,
                        PRIMARY KEY (sha256, loopId)
                    ) WITHOUT ROWID;
                    CREATE INDEX blobRef_loop ON blobRef(loopId);
                    """)
            let rows = try Row.fetchAll(
                db,
                sql:
                    "SELECT loop.id, loop.bundleSHA256, loopText.content FROM loop JOIN loopText ON loopText.loopRowid = loop.rowid"
            )
            for row in rows {
                try Self.insertBlobRefs(
                    db, id: row[0], hashes: CatalogBlobs.hashes(bundleSHA256: row[1], content: row[2]))
            }
        }
        // The operator's takedowns and blocked keys.
        migrator.registerMigration("v5 takedowns and blocked keys") { db in
            try db.execute(
                sql: """
                    ALTER TABLE loop ADD COLUMN takenDown TEXT;
                    CREATE TABLE blockedKey (key TEXT PRIMARY KEY NOT NULL, reason TEXT NOT NULL, since INTEGER NOT NULL) WITHOUT ROWID;
                    """)
        }
        // The bytes each key published each day (UTC): its daily quota.
        migrator.registerMigration("v6 bytes published by key and day") { db in
            try db.execute(
                sql: """
                    CREATE TABLE uploadDay (
                        authorKey TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        bytes INTEGER NOT NULL,
                        PRIMARY KEY (authorKey, day)
                    ) WITHOUT ROWID;
                    """)
        }
        try migrator.migrate(pool)
    }

    public func changeStamp() async throws -> Int64 {
        // On the calling thread, as `loop(_:now:)` reads: this runs for every page served.
        try readHere(transaction: false) { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM catalogChange")) ?? 0
        }
    }

    public func publish(_ entry: CatalogEntry, authorName: String?, now: Date) async throws -> PublishResult {
        let stamp = CatalogText.milliseconds(now)
        return try await pool.write { db in
            try Self.bindAuthor(db, key: entry.authorKey, fingerprint: entry.authorFingerprint, name: authorName)
            try PublishRules.checkNotBlocked(
                reason: try String.fetchOne(
                    db, sql: "SELECT reason FROM blockedKey WHERE key = ?", arguments: [entry.authorKey]))
            try db.execute(
                sql: """
                    INSERT INTO uploadDay (authorKey, day, bytes) VALUES (?, ?, ?)
                    ON CONFLICT (authorKey, day) DO UPDATE SET bytes = bytes + excluded.bytes
                    """, arguments: [entry.authorKey, CatalogText.day(now), entry.bundleBytes])
            if let existing = try Row.fetchOne(
                db, sql: "SELECT authorKey, revision, title, shortID, listed, takenDown FROM loop WHERE id = ?",
                arguments: [entry.id])
            {
                let stored = Self.stored(existing)
                let revision = stored.revision, listed = stored.listed
                try PublishRules.check(
                    id: entry.id, revision: entry.revision, authorKey: entry.authorKey, against: stored)
                // Judged, not yet written: where two publishes of one loop must not both pass.
                TestStop.reached("publish.transaction")
                try db.execute(
                    sql: """
                        UPDATE loop SET revision = ?, title = ?, language = ?, translationLanguage = ?, tags = ?, tagKeys = ?,
                            groupCount = ?, phraseCount = ?, seconds = ?, updated = ?, listed = 1, bundleSHA256 = ?, bundleBytes = ?
                        WHERE id = ?
                        """,
                    arguments: [
                        entry.revision, entry.title, entry.language, entry.translationLanguage,
                        try Self.json(entry.tags),
                        CatalogText.tagKeys(entry.tags), entry.groupCount, entry.phraseCount, entry.seconds, stamp,
                        entry.bundleSHA256, entry.bundleBytes, entry.id,
                    ])
                try db.execute(
                    sql:
                        "UPDATE loopText SET content = ?, searchText = ? WHERE loopRowid = (SELECT rowid FROM loop WHERE id = ?)",
                    arguments: [entry.content, entry.searchText, entry.id])
                try db.execute(sql: "DELETE FROM blobRef WHERE loopId = ?", arguments: [entry.id])
                try Self.insertBlobRefs(
                    db, id: entry.id,
                    hashes: CatalogBlobs.hashes(bundleSHA256: entry.bundleSHA256, content: entry.content))
                return PublishResult(
                    id: entry.id, shortID: existing["shortID"], revision: entry.revision,
                    previousRevision: listed ? revision : nil)
            }
            var length = 6
            while try Bool.fetchOne(
                db, sql: "SELECT 1 FROM loop WHERE shortID = ?",
                arguments: [CatalogText.shortID(for: entry.id, length: length)]) == true
            {
                length += 2
            }
            let shortID = CatalogText.shortID(for: entry.id, length: length)
            try db.execute(
                sql: """
                    INSERT INTO loop (id, shortID, authorKey, revision, title, language, translationLanguage, tags, tagKeys,
                        groupCount, phraseCount, seconds, published, updated, bundleSHA256, bundleBytes)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entry.id, shortID, entry.authorKey, entry.revision, entry.title, entry.language,
                    entry.translationLanguage,
                    try Self.json(entry.tags), CatalogText.tagKeys(entry.tags), entry.groupCount, entry.phraseCount,
                    entry.seconds,
                    stamp, stamp, entry.bundleSHA256, entry.bundleBytes,
                ])
            try Self.insertText(db, entry)
            try Self.insertBlobRefs(
                db, id: entry.id, hashes: CatalogBlobs.hashes(bundleSHA256: entry.bundleSHA256, content: entry.content))
            return PublishResult(id: entry.id, shortID: shortID, revision: entry.revision, previousRevision: nil)
        }
    }

    public func judge(publishOf id: String, revision: Int, authorKey: String) async throws {
        let (blocked, stored) = try await pool.read { db in
            (
                try String.fetchOne(db, sql: "SELECT reason FROM blockedKey WHERE key = ?", arguments: [authorKey]),
                try Row.fetchOne(
                    db, sql: "SELECT authorKey, revision, title, listed, takenDown FROM loop WHERE id = ?",
                    arguments: [id]
                ).map(Self.stored)
            )
        }
        try PublishRules.checkNotBlocked(reason: blocked)
        guard let stored else { return }
        try PublishRules.check(id: id, revision: revision, authorKey: authorKey, against: stored)
    }

    public func usage(ofKey authorKey: String, loop id: String, now: Date) async throws -> KeyUsage {
        try await pool.read { db in
            let loops = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FILTER (WHERE listed), COUNT(*) FILTER (WHERE listed AND id = ?), MIN(published) FROM loop WHERE authorKey = ?
                    """, arguments: [id, authorKey])
            let bytes =
                try Int.fetchOne(
                    db, sql: "SELECT bytes FROM uploadDay WHERE authorKey = ? AND day = ?",
                    arguments: [authorKey, CatalogText.day(now)]) ?? 0
            let first: Int64? = loops?[2]
            return KeyUsage(
                listedLoops: loops?[0] ?? 0, holdsLoop: (loops?[1] ?? 0) > 0, bytesToday: bytes,
                firstPublished: first.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) })
        }
    }

    public func listedBlobs() async throws -> Set<String> {
        try await pool.read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT DISTINCT blobRef.sha256 FROM blobRef JOIN loop ON loop.id = blobRef.loopId WHERE loop.listed"
                ))
        }
    }

    private static func stored(_ row: Row) -> PublishRules.Stored {
        PublishRules.Stored(
            ownerKey: row["authorKey"], revision: row["revision"], title: row["title"], listed: row["listed"],
            takenDown: row["takenDown"])
    }

    public func takeDown(_ ref: String, reason: String, now: Date) async throws -> String? {
        try await pool.write { db in
            guard
                let id = try String.fetchOne(
                    db, sql: "SELECT id FROM loop WHERE id = ? OR shortID = ?", arguments: [ref, ref])
            else { return nil }
            try db.execute(
                sql: "UPDATE loop SET listed = 0, featured = 0, takenDown = ?, updated = ? WHERE id = ?",
                arguments: [reason, CatalogText.milliseconds(now), id])
            return id
        }
    }

    public func blockKey(_ key: String, reason: String, now: Date) async throws -> Int? {
        try await pool.write { db in
            guard
                let authorKey = try String.fetchOne(
                    db, sql: "SELECT key FROM author WHERE key = ? OR fingerprint = ?", arguments: [key, key])
            else { return nil }
            try db.execute(
                sql: "INSERT OR REPLACE INTO blockedKey (key, reason, since) VALUES (?, ?, ?)",
                arguments: [authorKey, reason, Int64(now.timeIntervalSince1970)])
            try db.execute(
                sql:
                    "UPDATE loop SET listed = 0, featured = 0, takenDown = ?, updated = ? WHERE authorKey = ? AND listed",
                arguments: ["its author's key is blocked: " + reason, CatalogText.milliseconds(now), authorKey])
            return db.changesCount
        }
    }

    private static func insertBlobRefs(_ db: Database, id: String, hashes: Set<String>) throws {
        for hash in hashes.sorted() {
            try db.execute(sql: "INSERT OR IGNORE INTO blobRef (sha256, loopId) VALUES (?, ?)", arguments: [hash, id])
        }
    }

    public func servesBlob(_ sha256: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT 1 FROM blobRef JOIN loop ON loop.id = blobRef.loopId WHERE blobRef.sha256 = ? AND loop.listed LIMIT 1"
                ),
                arguments: [sha256]) ?? false
        }
    }

    /// The loop's phrases and search text, beside the row just inserted.
    private static func insertText(_ db: Database, _ entry: CatalogEntry) throws {
        try db.execute(
            sql: "INSERT INTO loopText (loopRowid, content, searchText) VALUES (?, ?, ?)",
            arguments: [db.lastInsertedRowID, entry.content, entry.searchText])
    }

    private static func bindAuthor(_ db: Database, key: String, fingerprint: String, name: String?) throws {
        let current = try Row.fetchOne(db, sql: "SELECT name FROM author WHERE key = ?", arguments: [key])
        if current == nil {
            try db.execute(sql: "INSERT INTO author (key, fingerprint) VALUES (?, ?)", arguments: [key, fingerprint])
        }
        guard let name, (current?["name"] as String?) != name else { return }
        let nameKey = CatalogText.fold(name)
        if let holder = try String.fetchOne(db, sql: "SELECT key FROM author WHERE nameKey = ?", arguments: [nameKey]),
            holder != key
        {
            throw CatalogError(.nameTaken, "the name '\(name)' belongs to another author")
        }
        try db.execute(sql: "UPDATE author SET name = ?, nameKey = ? WHERE key = ?", arguments: [name, nameKey, key])
    }

    public func unpublish(id: String, authorKey: String, now: Date) async throws {
        try await pool.write { db in
            guard
                let owner = try String.fetchOne(
                    db, sql: "SELECT authorKey FROM loop WHERE id = ? AND listed", arguments: [id])
            else {
                throw CatalogError(.notFound, "no loop \(id) is published here")
            }
            guard owner == authorKey else {
                throw CatalogError(.notTheAuthor, "only its author can unpublish this loop")
            }
            try PublishRules.checkNotBlocked(
                reason: try String.fetchOne(
                    db, sql: "SELECT reason FROM blockedKey WHERE key = ?", arguments: [authorKey]))
            try db.execute(
                sql: "UPDATE loop SET listed = 0, featured = 0, updated = ? WHERE id = ?",
                arguments: [CatalogText.milliseconds(now), id])
        }
    }

    public func useNonce(_ nonce: String, expires: Date, now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM nonce WHERE expires < ?", arguments: [Int64(now.timeIntervalSince1970)])
            try db.execute(
                sql: "INSERT OR IGNORE INTO nonce (nonce, expires) VALUES (?, ?)",
                arguments: [nonce, Int64(expires.timeIntervalSince1970)])
            return db.changesCount == 1
        }
    }

    /// The columns of a listed loop, with its author's name and its recent downloads.
    private static let selectLoop = """
        SELECT loop.id, loop.shortID, loop.title, loop.language, loop.translationLanguage, loop.tags, loop.revision,
            author.name AS authorName, author.fingerprint, loop.groupCount, loop.phraseCount, loop.seconds, loop.published,
            loop.updated, loop.featured, loop.authorKey, loop.bundleSHA256, loop.bundleBytes,
            (SELECT COALESCE(SUM(count), 0) FROM download WHERE download.loopId = loop.id AND download.day > :since) AS recent
        """
    private static let fromLoop = " FROM loop JOIN author ON author.key = loop.authorKey"

    /// A read on the calling thread (GRDB's synchronous read), in a transaction unless the
    /// body is one statement.
    private func readHere<T>(transaction: Bool = true, _ body: (Database) throws -> T) throws -> T {
        transaction ? try hereReaders.read(body) : try hereReaders.unsafeRead(body)
    }

    // Reads run on the calling thread (a short indexed read in WAL mode never waits on a
    // writer): a hop to GRDB's queue and back cost more than the read itself, and halved the
    // requests a second the server answers.
    public func loop(_ ref: String, now: Date) async throws -> StoredLoop? {
        // One statement: consistent without the transaction a read wraps around it.
        try readHere(transaction: false) { db in
            let arguments: StatementArguments = ["ref": ref, "since": CatalogText.recentSince(now)]
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: Self.selectLoop + ", loopText.content AS content" + Self.fromLoop
                            + " JOIN loopText ON loopText.loopRowid = loop.rowid WHERE (loop.id = :ref OR loop.shortID = :ref) AND loop.listed"
                    ),
                    arguments: arguments)
            else { return nil }
            return StoredLoop(
                summary: try Self.summary(row), authorKey: row["authorKey"], content: row["content"],
                bundleSHA256: row["bundleSHA256"], bundleBytes: row["bundleBytes"])
        }
    }

    // On GRDB's reader queues: a search may take milliseconds, and must not hold up the
    // threads that answer every other request.
    public func search(_ query: CatalogQuery, now: Date) async throws -> CatalogPage {
        try await pool.read { db in
            var conditions = ["loop.listed"]
            var arguments: [String: (any DatabaseValueConvertible)?] = ["since": CatalogText.recentSince(now)]
            for (index, term) in CatalogText.searchTerms(query.text).enumerated() {
                // A term of three characters or more is found through the trigram index (a
                // quoted FTS5 string matches anywhere in the text); a shorter one by a scan.
                if term.count >= 3 {
                    conditions.append(
                        "loop.rowid IN (SELECT rowid FROM loopSearch WHERE loopSearch MATCH :term\(index))")
                    arguments["term\(index)"] = "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                } else {
                    conditions.append(
                        "loop.rowid IN (SELECT loopRowid FROM loopText WHERE searchText LIKE :term\(index) ESCAPE '\\')"
                    )
                    arguments["term\(index)"] = CatalogText.likePattern(term)
                }
            }
            if let language = query.language {
                conditions.append("loop.language = :language COLLATE NOCASE")
                arguments["language"] = language
            }
            if let translation = query.translationLanguage {
                conditions.append("loop.translationLanguage = :translation COLLATE NOCASE")
                arguments["translation"] = translation
            }
            if let tag = query.tag {
                conditions.append("loop.tagKeys LIKE :tag ESCAPE '\\'")
                arguments["tag"] = CatalogText.likePattern("|" + CatalogText.fold(tag) + "|")
            }
            if let author = query.author {
                conditions.append("(author.nameKey = :author OR author.fingerprint = :fingerprint)")
                arguments["author"] = CatalogText.fold(author)
                arguments["fingerprint"] = author.lowercased()
            }
            if query.featuredOnly { conditions.append("loop.featured") }
            let filter = " WHERE " + conditions.joined(separator: " AND ")
            let order =
                query.sort == .hot
                ? " ORDER BY recent DESC, loop.updated DESC, loop.id" : " ORDER BY loop.updated DESC, loop.id"
            let statementArguments = StatementArguments(arguments)
            let total =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM loop JOIN author ON author.key = loop.authorKey" + filter,
                    arguments: statementArguments) ?? 0
            let rows = try Row.fetchAll(
                db,
                sql: Self.selectLoop + Self.fromLoop + filter + order + " LIMIT \(query.limit) OFFSET \(query.offset)",
                arguments: statementArguments)
            return CatalogPage(
                loops: try rows.map(Self.summary), total: total, offset: query.offset, limit: query.limit)
        }
    }

    public func countDownload(id: String, client: String, now: Date) async throws {
        let day = CatalogText.day(now)
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO downloadSeen (loopId, day, client) VALUES (?, ?, ?)",
                arguments: [id, day, client])
            guard db.changesCount > 0 else { return }
            try db.execute(
                sql: """
                    INSERT INTO download (loopId, day, count) VALUES (?, ?, 1)
                    ON CONFLICT (loopId, day) DO UPDATE SET count = count + 1
                    """, arguments: [id, day])
            try db.execute(
                sql: "DELETE FROM downloadSeen WHERE loopId = ? AND day < ?",
                arguments: [id, day - CatalogText.recentDays])
        }
    }

    public func setFeatured(_ ref: String, featured: Bool) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE loop SET featured = ? WHERE (id = ? OR shortID = ?) AND listed",
                arguments: [featured, ref, ref])
            return db.changesCount > 0
        }
    }

    public func close() async throws {
        try hereReaders.close()
        try pool.close()
    }

    /// Loops inserted as they are, for the benchmark's large catalog (no rules applied).
    public func insertForBenchmark(_ entries: [CatalogEntry], now: Date) async throws {
        try await pool.write { db in
            for entry in entries {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO author (key, fingerprint) VALUES (?, ?)",
                    arguments: [entry.authorKey, entry.authorFingerprint])
                let stamp = CatalogText.milliseconds(now) - Int64.random(in: 0..<(86_400_000 * 30))
                try db.execute(
                    sql: """
                        INSERT INTO loop (id, shortID, authorKey, revision, title, language, translationLanguage, tags, tagKeys,
                            groupCount, phraseCount, seconds, published, updated, bundleSHA256, bundleBytes)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        entry.id, CatalogText.shortID(for: entry.id, length: 10), entry.authorKey, entry.revision,
                        entry.title,
                        entry.language, entry.translationLanguage, try Self.json(entry.tags),
                        CatalogText.tagKeys(entry.tags),
                        entry.groupCount, entry.phraseCount, entry.seconds, stamp, stamp, entry.bundleSHA256,
                        entry.bundleBytes,
                    ])
                try Self.insertText(db, entry)
            }
        }
    }

    private static func json(_ tags: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(tags), as: UTF8.self)
    }

    private static func summary(_ row: Row) throws -> CatalogLoop {
        let tags = try CatalogText.decoder.decode([String].self, from: Data((row["tags"] as String).utf8))
        return CatalogLoop(
            id: row["id"], shortID: row["shortID"], title: row["title"], language: row["language"],
            translationLanguage: row["translationLanguage"],
            tags: tags, revision: row["revision"], author: row["authorName"], authorFingerprint: row["fingerprint"],
            groupCount: row["groupCount"], phraseCount: row["phraseCount"], seconds: row["seconds"],
            published: CatalogText.iso8601(row["published"]), updated: CatalogText.iso8601(row["updated"]),
            recentDownloads: row["recent"], featured: row["featured"])
    }
}
