import CSQLiteExtensions
import Foundation
import GRDB
import LoopFoundation
import LoopLibraryAPI

/// The catalog in one SQLite file (WAL: readers never wait for a publish), for a Loop Library
/// served from one machine.
public final class SQLiteCatalog: Catalog, BenchmarkSeeding {
    let pool: DatabasePool
    /// Read-only connections for the reads made on the calling thread (``readHere(transaction:_:)``),
    /// apart from `pool`: a thread of Swift's cooperative pool blocked waiting for one of
    /// `pool`'s readers could wait forever, since an async read gives its reader back only on
    /// a cooperative thread (with two cores, both were blocked so, and the server hung).
    private let hereReaders: DatabasePool
    /// The loops downloaded in the last days with their words, kept for the searches in Hot's
    /// order.
    let hotList = HotList()

    /// SQLite's statistics of its memory turned off, once, before the first database opens.
    private static let memoryStatisticsStopped: Void = { _ = loop_sqlite_stop_memory_statistics() }()

    /// Opens (creating) the catalog at `path`, with up to `readers` connections reading in each
    /// of its two pools; a catalog not `durable` (a mirror, made again when lost) does not wait
    /// for its writes to reach the disk.
    public init(path: String, readers: Int = 8, durable: Bool = true) throws {
        Self.memoryStatisticsStopped
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        // Readers as the server has request threads; WAL lets them read while a publish writes.
        configuration.maximumReaderCount = readers
        // Each connection keeps its own copy of the pages it read, so a small cache a reader:
        // with up to 16 connections, 8 MiB each held 128 MiB at 100,000 loops (the server's peak
        // 243 MiB), and a page not cached comes from the system's file cache as fast (at 100,000
        // loops, 512 KiB a reader against SQLite's default 2 MiB: searches, details and pages as
        // fast, about 15 MiB less). The writer keeps 2 MiB, for a publish's changes.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = -\(db.configuration.readonly ? 512 : 2048)")
            if !durable { try db.execute(sql: "PRAGMA synchronous = OFF") }
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            var readOnly = configuration
            readOnly.readonly = true
            hereReaders = try DatabasePool(path: path, configuration: readOnly)
        } catch {
            throw CatalogError(.database, "\(path): cannot open the catalog (\(error))")
        }
    }

    /// False: one server process owns it.
    public var isShared: Bool { false }

    /// See ``Catalog/prepare()``.
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
        // Search by words, ranked: a loop's words (``CatalogText/searchWords(_:)``) in a
        // full-text index of listed loops only, its title apart, in the order they were last
        // published (`position`), so a page of the newest matches is read off the index's end
        // without sorting every match. Replaces the trigram index, which matched parts of words
        // and made each search read thousands of loops.
        migrator.registerMigration("v7 search by words, ranked") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER loop_search_insert;
                    DROP TRIGGER loop_search_delete;
                    DROP TRIGGER loop_search_update;
                    DROP TABLE loopSearch;
                    ALTER TABLE loopText ADD COLUMN searchTitle TEXT NOT NULL DEFAULT '';
                    ALTER TABLE author ADD COLUMN nameWords TEXT NOT NULL DEFAULT '';
                    CREATE TABLE searchEntry (
                        position INTEGER PRIMARY KEY,
                        loopRowid INTEGER NOT NULL UNIQUE,
                        title TEXT NOT NULL,
                        body TEXT NOT NULL
                    );
                    -- Two indexes of the words, the title's and all of them, each holding only which
                    -- loops have a word (no positions: the smallest index, the fastest to read).
                    -- The words are parted by spaces already: the ascii tokenizer parts them there
                    -- and nowhere else, as PostgreSQL's catalog takes them. A word's first 1 to 6
                    -- letters are indexed too, so most terms are read as one list.
                    CREATE VIRTUAL TABLE titleIndex USING fts5(
                        words, content='', tokenize='ascii', prefix='1 2 3 4 5 6', detail='none');
                    CREATE VIRTUAL TABLE wordIndex USING fts5(
                        words, content='', tokenize='ascii', prefix='1 2 3 4 5 6', detail='none');
                    CREATE TRIGGER search_entry_insert AFTER INSERT ON searchEntry BEGIN
                        INSERT INTO titleIndex(rowid, words) VALUES (new.position, new.title);
                        INSERT INTO wordIndex(rowid, words) VALUES (new.position, new.title || ' ' || new.body);
                    END;
                    CREATE TRIGGER search_entry_delete AFTER DELETE ON searchEntry BEGIN
                        INSERT INTO titleIndex(titleIndex, rowid, words) VALUES ('delete', old.position, old.title);
                        INSERT INTO wordIndex(wordIndex, rowid, words) VALUES ('delete', old.position, old.title || ' ' || old.body);
                    END;
                    CREATE TRIGGER search_entry_update AFTER UPDATE ON searchEntry BEGIN
                        INSERT INTO titleIndex(titleIndex, rowid, words) VALUES ('delete', old.position, old.title);
                        INSERT INTO wordIndex(wordIndex, rowid, words) VALUES ('delete', old.position, old.title || ' ' || old.body);
                        INSERT INTO titleIndex(rowid, words) VALUES (new.position, new.title);
                        INSERT INTO wordIndex(rowid, words) VALUES (new.position, new.title || ' ' || new.body);
                    END;
                    -- A loop unpublished or taken down leaves the index at once.
                    CREATE TRIGGER loop_unlisted AFTER UPDATE OF listed ON loop WHEN NOT new.listed BEGIN
                        DELETE FROM searchEntry WHERE loopRowid = new.rowid;
                    END;
                    -- An author's name is searched with each of their loops.
                    CREATE TRIGGER author_renamed AFTER UPDATE OF nameWords ON author BEGIN
                        UPDATE searchEntry SET body = (
                            SELECT loopText.searchText || ' ' || new.nameWords FROM loopText WHERE loopText.loopRowid = searchEntry.loopRowid)
                        WHERE loopRowid IN (SELECT rowid FROM loop WHERE authorKey = new.key);
                    END;
                    """)
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT loop.rowid, loop.title, loopText.searchText FROM loop JOIN loopText ON loopText.loopRowid = loop.rowid"
            ) {
                try db.execute(
                    sql: "UPDATE loopText SET searchTitle = ?, searchText = ? WHERE loopRowid = ?",
                    arguments: [
                        CatalogText.searchField([row[1]]), CatalogText.searchField([row[1], row[2]]), row[0] as Int64,
                    ])
            }
            for row in try Row.fetchAll(db, sql: "SELECT key, name FROM author WHERE name IS NOT NULL") {
                try db.execute(
                    sql: "UPDATE author SET nameWords = ? WHERE key = ?",
                    arguments: [CatalogText.searchField([row[1]]), row[0] as String])
            }
            for id in try String.fetchAll(db, sql: "SELECT id FROM loop WHERE listed ORDER BY updated, id DESC") {
                try Self.index(db, loopID: id, rememberingLongWords: false)
            }
        }
        // The words longer than the longest prefix the indexes keep, so that a search term
        // that long is read as the few whole words it starts (each one list, read lazily)
        // rather than as a prefix FTS5 must gather from every loop that has it (1.3 ms at
        // 10,000 loops, ten times that at 100,000). A word no loop has any longer stays and
        // finds nothing.
        migrator.registerMigration("v8 long words, indexes kept merged") { db in
            try db.execute(sql: "CREATE TABLE longWord (word TEXT PRIMARY KEY) WITHOUT ROWID")
            // Each publish wrote a small segment of its own to each index, and FTS5 merged them
            // only as fast as it wrote: a catalog published one loop at a time held 21 segments
            // (15 of one page), each read by every search (0.47 ms of a search's reads at 10,000
            // loops; 0.22 with one segment). Now two segments of a size are merged into one as
            // soon as there are two (`usermerge` 2), a few pages at each change, so an index
            // holds about one segment of each size (7 at 10,000 loops; 0.29 ms); and the whole
            // index is merged into one segment again once the changes since it last was reach
            // an eighth of its entries (``optimizeSearchIndexesIfDue(_:)``). `searchIndexState`
            // counts both.
            try db.execute(
                sql: """
                    DROP TRIGGER search_entry_insert;
                    DROP TRIGGER search_entry_delete;
                    DROP TRIGGER search_entry_update;
                    INSERT INTO titleIndex(titleIndex, rank) VALUES ('usermerge', 2);
                    INSERT INTO wordIndex(wordIndex, rank) VALUES ('usermerge', 2);
                    CREATE TABLE searchIndexState (entries INTEGER NOT NULL, changes INTEGER NOT NULL);
                    INSERT INTO searchIndexState (entries, changes) SELECT COUNT(*), 0 FROM searchEntry;
                    CREATE TRIGGER search_entry_insert AFTER INSERT ON searchEntry BEGIN
                        INSERT INTO titleIndex(rowid, words) VALUES (new.position, new.title);
                        INSERT INTO wordIndex(rowid, words) VALUES (new.position, new.title || ' ' || new.body);
                        INSERT INTO titleIndex(titleIndex, rank) VALUES ('merge', 16);
                        INSERT INTO wordIndex(wordIndex, rank) VALUES ('merge', 16);
                        UPDATE searchIndexState SET entries = entries + 1, changes = changes + 1;
                    END;
                    CREATE TRIGGER search_entry_delete AFTER DELETE ON searchEntry BEGIN
                        INSERT INTO titleIndex(titleIndex, rowid, words) VALUES ('delete', old.position, old.title);
                        INSERT INTO wordIndex(wordIndex, rowid, words) VALUES ('delete', old.position, old.title || ' ' || old.body);
                        INSERT INTO titleIndex(titleIndex, rank) VALUES ('merge', 16);
                        INSERT INTO wordIndex(wordIndex, rank) VALUES ('merge', 16);
                        UPDATE searchIndexState SET entries = entries - 1, changes = changes + 1;
                    END;
                    CREATE TRIGGER search_entry_update AFTER UPDATE ON searchEntry BEGIN
                        INSERT INTO titleIndex(titleIndex, rowid, words) VALUES ('delete', old.position, old.title);
                        INSERT INTO wordIndex(wordIndex, rowid, words) VALUES ('delete', old.position, old.title || ' ' || old.body);
                        INSERT INTO titleIndex(rowid, words) VALUES (new.position, new.title);
                        INSERT INTO wordIndex(rowid, words) VALUES (new.position, new.title || ' ' || new.body);
                        INSERT INTO titleIndex(titleIndex, rank) VALUES ('merge', 16);
                        INSERT INTO wordIndex(wordIndex, rank) VALUES ('merge', 16);
                        UPDATE searchIndexState SET changes = changes + 1;
                    END;
                    """)
            for words in try String.fetchAll(db, sql: "SELECT title || ' ' || body FROM searchEntry") {
                try Self.rememberLongWords(db, words)
            }
            // The segments a catalog holds already, merged into one (a second at 100,000 loops).
            try Self.optimizeSearchIndexes(db)
        }
        // The front page's lists read no more loops than they show: Hot the last days'
        // downloads (by day), Featured the featured loops (a few; 110 ms to walk every loop of
        // 100,000 to find none), a language its loops.
        migrator.registerMigration("v9 downloads by day, featured loops, languages") { db in
            try db.execute(
                sql: """
                    CREATE INDEX downloadByDay ON download (day, loopId, count);
                    CREATE INDEX loopFeatured ON loop (featured) WHERE featured;
                    CREATE INDEX loopLanguage ON loop (language COLLATE NOCASE, listed);
                    CREATE INDEX loopTranslationLanguage ON loop (translationLanguage COLLATE NOCASE, listed);
                    """)
        }
        // The part of each loop's page its revision alone decides, rendered when it is
        // published (loops published before it render theirs on each first visit, as before).
        migrator.registerMigration("v10 loop pages rendered ahead") { db in
            try db.execute(sql: "ALTER TABLE loopText ADD COLUMN pagePart BLOB")
        }
        try migrator.migrate(pool)
    }

    /// See ``Catalog/changeStamp()``.
    public func changeStamp() async throws -> Int64 {
        // On the calling thread, as `loop(_:now:)` reads: this runs for every page served.
        try readHere(transaction: false) { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM catalogChange")) ?? 0
        }
    }

    /// See ``Catalog/publish(_:authorName:now:)``.
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
                let revision = stored.revision
                let listed = stored.listed
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
                    sql: """
                        UPDATE loopText SET content = ?, searchTitle = ?, searchText = ?, pagePart = NULL
                        WHERE loopRowid = (SELECT rowid FROM loop WHERE id = ?)
                        """,
                    arguments: [entry.content, entry.searchTitle, entry.searchText, entry.id])
                try Self.index(db, loopID: entry.id)
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
            try Self.index(db, loopID: entry.id)
            try Self.insertBlobRefs(
                db, id: entry.id, hashes: CatalogBlobs.hashes(bundleSHA256: entry.bundleSHA256, content: entry.content))
            return PublishResult(id: entry.id, shortID: shortID, revision: entry.revision, previousRevision: nil)
        }
    }

    /// See ``Catalog/judge(publishOf:revision:authorKey:)``.
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

    /// See ``Catalog/usage(ofKey:loop:now:)``.
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

    /// See ``Catalog/listedBlobs()``.
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

    /// See ``Catalog/takeDown(_:reason:now:)``.
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

    /// See ``Catalog/blockKey(_:reason:now:)``.
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

    /// See ``Catalog/servesBlob(_:)``.
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

    /// The loop's phrases and search words, beside the row just inserted.
    private static func insertText(_ db: Database, _ entry: CatalogEntry) throws {
        try db.execute(
            sql: "INSERT INTO loopText (loopRowid, content, searchTitle, searchText) VALUES (?, ?, ?, ?)",
            arguments: [db.lastInsertedRowID, entry.content, entry.searchTitle, entry.searchText])
    }

    /// Puts a listed loop's words in the search index as the newest (a loop not listed is
    /// left out): called when it is published. `rememberingLongWords` is false only in the
    /// migration that made the index, before the list of long words was kept.
    private static func index(_ db: Database, loopID: String, rememberingLongWords: Bool = true) throws {
        try db.execute(
            sql: "DELETE FROM searchEntry WHERE loopRowid = (SELECT rowid FROM loop WHERE id = ?)", arguments: [loopID])
        try db.execute(
            sql: """
                INSERT INTO searchEntry (loopRowid, title, body)
                SELECT loop.rowid, loopText.searchTitle, loopText.searchText || ' ' || author.nameWords
                FROM loop JOIN loopText ON loopText.loopRowid = loop.rowid JOIN author ON author.key = loop.authorKey
                WHERE loop.id = ? AND loop.listed
                """, arguments: [loopID])
        guard rememberingLongWords, db.changesCount > 0 else { return }
        let words = try String.fetchOne(
            db, sql: "SELECT title || ' ' || body FROM searchEntry WHERE position = ?",
            arguments: [db.lastInsertedRowID])
        try rememberLongWords(db, words ?? "")
        try optimizeSearchIndexesIfDue(db)
    }

    /// Merges each search index into one segment when the changes since it last was reach an
    /// eighth of its entries (and at least 256): a search reads every segment, and at 100,000
    /// loops the segments the changes leave (one of each size) made searches a third slower.
    /// Merging costs about 10 µs an entry (a second at 100,000 loops, in the publish that
    /// makes it due), so about 80 µs a change.
    static func optimizeSearchIndexesIfDue(_ db: Database) throws {
        guard
            let state = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT entries, changes FROM searchIndexState")),
            (state["changes"] as Int) >= max(256, (state["entries"] as Int) / 8)
        else { return }
        try optimizeSearchIndexes(db)
    }

    /// Merges each search index into one segment.
    static func optimizeSearchIndexes(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO titleIndex(titleIndex) VALUES ('optimize');
                INSERT INTO wordIndex(wordIndex) VALUES ('optimize');
                UPDATE searchIndexState SET changes = 0;
                """)
    }

    /// The prefixes the search indexes keep are 1 to this many characters long.
    static let longestIndexedPrefix = 6

    /// Adds to `longWord` the words of `words` (parted by spaces, as the indexes take them)
    /// longer than ``longestIndexedPrefix``. An author's new name comes with the loop they
    /// publish under it, whose words are remembered here.
    static func rememberLongWords(_ db: Database, _ words: String) throws {
        try rememberLongWords(db, longWords(in: words))
    }

    static func rememberLongWords(_ db: Database, _ words: some Sequence<Substring>) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO longWord (word) VALUES (?)")
        for word in words { try statement.execute(arguments: [String(word)]) }
    }

    /// The words of `words` (parted by spaces) longer than ``longestIndexedPrefix``.
    static func longWords(in words: String) -> [Substring] {
        words.split(separator: " ").filter { $0.unicodeScalars.count > longestIndexedPrefix }
    }

    /// The FTS5 query that finds every term, each the start of a word; nil when a term starts
    /// no word of any loop. A term longer than the indexes' prefixes is read as the whole
    /// words it starts (up to 32 of them; more, and as a prefix).
    private static func matchExpression(_ db: Database, terms: [String]) throws -> String? {
        var parts: [String] = []
        for term in terms {
            guard term.unicodeScalars.count > longestIndexedPrefix else {
                parts.append("\"\(term)\"*")
                continue
            }
            let words = try String.fetchAll(
                db.cachedStatement(sql: "SELECT word FROM longWord WHERE word >= ? ORDER BY word LIMIT 33"),
                arguments: [term]
            ).prefix { $0.utf8.starts(with: term.utf8) }
            if words.isEmpty { return nil }
            let eachWord = words.map { "\"\($0)\"" }.joined(separator: " OR ")
            parts.append(words.count > 32 ? "\"\(term)\"*" : "(" + eachWord + ")")
        }
        // FTS5 takes no implicit AND after a parenthesis.
        return parts.joined(separator: " AND ")
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
        try db.execute(
            sql: "UPDATE author SET name = ?, nameKey = ?, nameWords = ? WHERE key = ?",
            arguments: [name, nameKey, CatalogText.searchField([name]), key])
    }

    /// See ``Catalog/unpublish(id:authorKey:now:)``.
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

    /// See ``Catalog/useNonce(_:expires:now:)``.
    public func useNonce(_ nonce: String, expires: Date, now: Date) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM nonce WHERE expires < ?", arguments: [Int64(now.timeIntervalSince1970)])
            try db.execute(
                sql: "INSERT OR IGNORE INTO nonce (nonce, expires) VALUES (?, ?)",
                arguments: [nonce, Int64(expires.timeIntervalSince1970)])
            return db.changesCount == 1
        }
    }

    /// The columns of a listed loop, with its author's name and its recent downloads, in the
    /// order ``summary(_:)`` reads them.
    private static let selectLoop = """
        SELECT loop.id, loop.shortID, loop.title, loop.language, loop.translationLanguage, loop.tags, loop.revision,
            author.name AS authorName, author.fingerprint, loop.groupCount, loop.phraseCount, loop.seconds, loop.published,
            loop.updated, loop.featured, loop.authorKey, loop.bundleSHA256, loop.bundleBytes,
            (SELECT COALESCE(SUM(count), 0) FROM download WHERE download.loopId = loop.id AND download.day > :since) AS recent
        """
    private static let fromLoop = " FROM loop JOIN author ON author.key = loop.authorKey"

    /// The listed loops downloaded in the last days, with their downloads (`hot.recent`): read
    /// from the downloads by day, so Hot reads the loops people took lately, not every loop's
    /// downloads (SQLite's planner, for its grouping, walked every day's downloads ever kept).
    private static let fromRecentlyDownloaded = """
         FROM (SELECT loopId, SUM(count) AS recent FROM download INDEXED BY downloadByDay WHERE day > :since GROUP BY loopId HAVING SUM(count) > 0) AS hot
         JOIN loop ON loop.id = hot.loopId JOIN searchEntry ON searchEntry.loopRowid = loop.rowid
         JOIN author ON author.key = loop.authorKey
        """
    /// A loop downloaded in the last days: its place in the newest-first order and its downloads.
    private struct HotEntry {
        var position: Int64
        var recent: Int
    }

    /// A loop no one downloaded in the last days (the rest of a list in Hot's order).
    private static let notRecentlyDownloaded =
        "NOT EXISTS (SELECT 1 FROM download WHERE download.loopId = loop.id AND download.day > :since AND download.count > 0)"

    /// A read on the calling thread (GRDB's synchronous read), in a transaction unless the
    /// body is one statement.
    private func readHere<T>(transaction: Bool = true, _ body: (Database) throws -> T) throws -> T {
        transaction ? try hereReaders.read(body) : try hereReaders.unsafeRead(body)
    }

    // Reads run on the calling thread (a short indexed read in WAL mode never waits on a
    // writer): a hop to GRDB's queue and back cost more than the read itself, and halved the
    // requests a second the server answers.
    /// See ``Catalog/loop(_:now:)``.
    public func loop(_ ref: String, now: Date) async throws -> StoredLoop? {
        // One statement: consistent without the transaction a read wraps around it.
        try readHere(transaction: false) { db in
            let arguments: StatementArguments = ["ref": ref, "since": CatalogText.recentSince(now)]
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: Self.selectLoop + ", loopText.content AS content, loopText.pagePart AS pagePart"
                            + Self.fromLoop
                            + " JOIN loopText ON loopText.loopRowid = loop.rowid WHERE (loop.id = :ref OR loop.shortID = :ref) AND loop.listed"
                    ),
                    arguments: arguments)
            else { return nil }
            return StoredLoop(
                summary: try Self.summary(row), authorKey: row["authorKey"], content: row["content"],
                bundleSHA256: row["bundleSHA256"], bundleBytes: row["bundleBytes"], pagePart: row["pagePart"])
        }
    }

    /// See ``Catalog/listedLoopIDs()``.
    public func listedLoopIDs() async throws -> [String] {
        try await pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM loop WHERE listed") }
    }

    /// See ``Catalog/keepPagePart(_:id:revision:)``.
    public func keepPagePart(_ part: Data, id: String, revision: Int) async throws -> Bool {
        try await pool.write { db in
            // (Not a change the pages' stamp counts: the page it renders is the same.)
            try db.execute(
                sql: """
                    UPDATE loopText SET pagePart = ?
                    WHERE loopRowid = (SELECT rowid FROM loop WHERE id = ? AND revision = ? AND listed)
                    """,
                arguments: [part, id, revision])
            return db.changesCount > 0
        }
    }

    // A search by words alone reads a bounded number of rows (the counts stop, the page is
    // read off the indexes' end, and in Hot's order the hot loops are told from the list kept
    // in memory): well under a millisecond, on the calling thread, since the hop to GRDB's
    // queue and back cost the server more than the reads (in Hot's order at 100,000 loops,
    // 0.38-0.45 ms a search against 0.45-0.52). Browsing (every loop counted), a filter
    // (matches walked until enough pass it, the hot loops read in SQL) and Hot with no list
    // kept (the hot loops read, 5-7 ms at 100,000 loops, after each download) may take
    // milliseconds: on GRDB's reader queues, so as not to hold up the threads that answer
    // every other request.
    /// See ``Catalog/search(_:now:)``.
    public func search(_ query: CatalogQuery, now: Date) async throws -> CatalogPage {
        let wordsAlone =
            query.language == nil && query.translationLanguage == nil && query.tag == nil && query.author == nil
            && !query.featuredOnly
        let hotList = self.hotList
        // Taken before the read begins: a download counted after it leaves no list read
        // before it kept.
        let downloads = hotList.downloads
        if wordsAlone, query.sort == .latest || hotList.holdsList, !CatalogText.searchTerms(query.text).isEmpty {
            return try readHere { db in try Self.search(db, query, now: now, hotList: hotList, downloads: downloads) }
        }
        return try await pool.read { db in
            try Self.search(db, query, now: now, hotList: hotList, downloads: downloads)
        }
    }

    /// The loops downloaded since the day `since`, most downloaded first (newest first among
    /// equals), with their words: as kept in `hotList`, or read now and kept; nil when they
    /// are too many to keep (their words past ``HotList/byteLimit``).
    private static func hotLoops(
        _ db: Database, since: Int64, hotList: HotList, downloads: Int
    ) throws -> [HotList.Loop]? {
        let key = HotList.Key(
            stamp: try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM catalogChange")) ?? 0, since: since)
        if let kept = hotList.kept(for: key, downloads: downloads) { return kept }
        let read = DispatchTime.now().uptimeNanoseconds
        var list = HotList.Reading()
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT searchEntry.position, hot.recent, searchEntry.title, searchEntry.body"
                    + Self.fromRecentlyDownloaded + " ORDER BY hot.recent DESC, searchEntry.position DESC"),
            arguments: ["since": since])
        while let row = try rows.next(), list.add(position: row[0], recent: row[1], title: row[2], rest: row[3]) {}
        hotList.keep(list.loops, for: key, downloads: downloads, read: read)
        return list.loops
    }

    private static func search(
        _ db: Database, _ query: CatalogQuery, now: Date, hotList: HotList, downloads: Int
    ) throws -> CatalogPage {
        var filters: [String] = []
        let since = CatalogText.recentSince(now)
        var arguments: [String: (any DatabaseValueConvertible)?] = ["since": since]
        if let language = query.language {
            filters.append("loop.language = :language COLLATE NOCASE")
            arguments["language"] = language
        }
        if let translation = query.translationLanguage {
            filters.append("loop.translationLanguage = :translation COLLATE NOCASE")
            arguments["translation"] = translation
        }
        if let tag = query.tag {
            filters.append("loop.tagKeys LIKE :tag ESCAPE '\\'")
            arguments["tag"] = CatalogText.likePattern("|" + CatalogText.fold(tag) + "|")
        }
        if let author = query.author {
            filters.append("(author.nameKey = :author OR author.fingerprint = :fingerprint)")
            arguments["author"] = CatalogText.fold(author)
            arguments["fingerprint"] = author.lowercased()
        }
        if query.featuredOnly { filters.append("loop.featured") }
        let joined =
            " JOIN loop ON loop.rowid = searchEntry.loopRowid JOIN author ON author.key = loop.authorKey"
        let hotFirst = query.sort == .hot
        // The statements are kept prepared (their limits are arguments): preparing each
        // afresh cost about as much as a search's reads.
        arguments["countLimit"] = CatalogPage.countLimit + 1
        /// A list's loops from `offset`, newest first off `source` (which joins `searchEntry`)
        /// where `conditions` hold; in Hot's order when asked, its loops downloaded in the last
        /// days first (`hot`, as ``hotEntries(_:)`` read them).
        func list(
            _ source: String, newest: String, conditions: [String], hot: [HotEntry], offset: Int, limit: Int
        ) throws -> [CatalogLoop] {
            func rows(_ sql: String, offset: Int, limit: Int) throws -> [CatalogLoop] {
                arguments["limit"] = limit
                arguments["offset"] = offset
                return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
                    .map(Self.summary)
            }
            func whereClause(_ conditions: [String]) -> String {
                conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            }
            guard hotFirst else {
                return try rows(
                    Self.selectLoop + source + whereClause(conditions)
                        + " ORDER BY \(newest) DESC LIMIT :limit OFFSET :offset",
                    offset: offset, limit: limit)
            }
            let parts = CatalogPage.hotParts(offset: offset, limit: limit, hot: hot.count)
            var loops: [CatalogLoop] = []
            if let part = parts.hot {
                // The page's hot loops by their positions (numbers the catalog made), in order.
                // (One statement kept prepared, the positions bound as a JSON array: preparing it
                // afresh for each list of positions was 2.4% of the server's time for such searches.)
                let positions = hot[part.offset..<(part.offset + part.limit)].map(\.position)
                arguments["positions"] = "[" + positions.map(String.init).joined(separator: ",") + "]"
                let found = try Row.fetchAll(
                    db.cachedStatement(
                        sql: Self.selectLoop + ", searchEntry.position" + " FROM searchEntry" + joined
                            + " WHERE searchEntry.position IN (SELECT value FROM json_each(:positions))"),
                    arguments: StatementArguments(arguments))
                var byPosition: [Int64: CatalogLoop] = [:]
                for row in found { byPosition[row[19]] = try Self.summary(row) }
                loops += positions.compactMap { byPosition[$0] }
            }
            if let part = parts.rest {
                loops += try rows(
                    Self.selectLoop + source + whereClause(conditions + [Self.notRecentlyDownloaded])
                        + " ORDER BY \(newest) DESC LIMIT :limit OFFSET :offset",
                    offset: part.offset, limit: part.limit)
            }
            return loops
        }
        /// The loops downloaded in the last days where `filters` hold, for each of `ranks` (a
        /// condition that sorts them into one rank of a search; `kept`, the same told from the
        /// kept loops' words) those of that rank, most downloaded first (newest first among
        /// equals): every hot loop read once, however many ranks and parts of a page want
        /// them, or none read where no filter narrows them (kept in `hotList`).
        func hotEntries(_ ranks: [String], kept: ([HotList.Loop]) -> [[HotList.Loop]]) throws -> [[HotEntry]] {
            guard hotFirst else { return ranks.map { _ in [] } }
            if filters.isEmpty, let loops = try hotLoops(db, since: since, hotList: hotList, downloads: downloads) {
                return kept(loops).map { rank in rank.map { HotEntry(position: $0.position, recent: $0.recent) } }
            }
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT searchEntry.position, hot.recent"
                        + ranks.map { ", (" + $0 + ")" }.joined() + Self.fromRecentlyDownloaded
                        + (filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND "))
                        + " ORDER BY hot.recent DESC, searchEntry.position DESC"),
                arguments: StatementArguments(arguments))
            return ranks.indices.map { rank in
                rows.filter { $0[2 + rank] as Bool }.map { HotEntry(position: $0[0], recent: $0[1]) }
            }
        }
        let terms = CatalogText.searchTerms(query.text)
        guard !terms.isEmpty else {
            // Counted from the loops alone (the listed ones: those the search indexes hold), a
            // language off its index: joined with the indexes' entries, every loop was read
            // (35-130 ms at 100,000 loops for a language, a tag, the featured).
            let total =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: filters.isEmpty
                            ? "SELECT COUNT(*) FROM searchEntry"
                            : "SELECT COUNT(*) FROM loop"
                                + (query.author == nil ? "" : " JOIN author ON author.key = loop.authorKey")
                                + " WHERE " + (["loop.listed"] + filters).joined(separator: " AND ")),
                    arguments: StatementArguments(arguments)) ?? 0
            // Where many loops match, a page is read off the newest-first index until it is
            // full; where few do (the featured, a rare language), the matching loops are read
            // off their own indexes and sorted (SQLite's planner, not knowing how few, walked
            // every loop newest first to fill the page).
            let source =
                filters.isEmpty || total > CatalogPage.countLimit
                ? " FROM searchEntry CROSS JOIN loop ON loop.rowid = searchEntry.loopRowid"
                    + " JOIN author ON author.key = loop.authorKey"
                : " FROM loop CROSS JOIN searchEntry ON searchEntry.loopRowid = loop.rowid"
                    + " JOIN author ON author.key = loop.authorKey"
            let hot = try hotEntries(["1"], kept: { [$0] })[0]
            let loops = try list(
                source, newest: "searchEntry.position", conditions: filters, hot: hot, offset: query.offset,
                limit: query.limit)
            return CatalogPage(loops: loops, total: total, offset: query.offset, limit: query.limit)
        }
        // Two ranks, each read off an index newest first: the loops whose title holds every
        // term (each the start of a word), then the rest. Each count stops past
        // ``CatalogPage/countLimit`` (a word in every loop would have it count them all).
        guard let match = try Self.matchExpression(db, terms: terms) else {
            return CatalogPage(loops: [], total: 0, offset: query.offset, limit: query.limit)
        }
        arguments["match"] = match
        let ranks = [
            (index: "titleIndex", condition: "titleIndex MATCH :match"),
            (
                index: "wordIndex",
                condition:
                    "wordIndex MATCH :match AND wordIndex.rowid NOT IN (SELECT rowid FROM titleIndex WHERE titleIndex MATCH :match)"
            ),
        ]
        // Counted in one statement: the title's matches, and all matches (a title's words
        // are among all its words).
        let counted = [ranks[0], (index: "wordIndex", condition: "wordIndex MATCH :match")].map {
            index, condition in
            let from =
                " FROM \(index)"
                + (filters.isEmpty ? "" : " JOIN searchEntry ON searchEntry.position = \(index).rowid" + joined)
            return "(SELECT COUNT(*) FROM (SELECT 1" + from + " WHERE "
                + ([condition] + filters).joined(separator: " AND ") + " LIMIT :countLimit))"
        }
        let matches = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT " + counted.joined(separator: ", ")),
            arguments: StatementArguments(arguments))
        let page = CatalogPage.Ranked(title: matches?[0] ?? 0, all: matches?[1] ?? 0)
        // The hot loops of each rank, told by their own words (each term the start of one, as
        // the indexes match it; both folded alike, so compared byte for byte): asking the
        // indexes about each loop took 70 µs a loop.
        if hotFirst { for (number, term) in terms.enumerated() { arguments["start\(number)"] = " " + term } }
        func holds(_ words: String) -> String {
            "(" + terms.indices.map { "instr(' ' || \(words), :start\($0)) > 0" }.joined(separator: " AND ") + ")"
        }
        let inTitle = holds("searchEntry.title")
        let inWords = holds("searchEntry.title || ' ' || searchEntry.body")
        let hot = try hotEntries([inTitle, inWords + " AND NOT " + inTitle]) { HotList.ranks(of: $0, terms: terms) }
        var loops: [CatalogLoop] = []
        for slice in page.slices(offset: query.offset, limit: query.limit) {
            let index = ranks[slice.rank].index
            loops += try list(
                " FROM \(index) JOIN searchEntry ON searchEntry.position = \(index).rowid" + joined,
                newest: "\(index).rowid", conditions: [ranks[slice.rank].condition] + filters, hot: hot[slice.rank],
                offset: slice.offset, limit: slice.limit)
        }
        return page.page(loops, offset: query.offset, limit: query.limit)
    }

    /// See ``Catalog/countDownload(id:client:now:)``.
    public func countDownload(id: String, client: String, now: Date) async throws -> Bool {
        let day = CatalogText.day(now)
        let counted = try await pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO downloadSeen (loopId, day, client) VALUES (?, ?, ?)",
                arguments: [id, day, client])
            guard db.changesCount > 0 else { return false }
            try db.execute(
                sql: """
                    INSERT INTO download (loopId, day, count) VALUES (?, ?, 1)
                    ON CONFLICT (loopId, day) DO UPDATE SET count = count + 1
                    """, arguments: [id, day])
            try db.execute(
                sql: "DELETE FROM downloadSeen WHERE loopId = ? AND day < ?",
                arguments: [id, day - CatalogText.recentDays])
            return true
        }
        // After its commit: a search that begins from now on reads the download.
        if counted { hotList.downloadCounted() }
        return counted
    }

    /// See ``Catalog/setFeatured(_:featured:)``.
    public func setFeatured(_ ref: String, featured: Bool) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE loop SET featured = ? WHERE (id = ? OR shortID = ?) AND listed",
                arguments: [featured, ref, ref])
            return db.changesCount > 0
        }
    }

    /// See ``Catalog/close()``.
    public func close() async throws {
        try hereReaders.close()
        try pool.close()
    }

    /// See ``BenchmarkSeeding/insertForBenchmark(_:now:)``.
    public func insertForBenchmark(_ entries: [CatalogEntry], now: Date) async throws {
        try await pool.write { db in
            for (index, entry) in entries.enumerated() {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO author (key, fingerprint) VALUES (?, ?)",
                    arguments: [entry.authorKey, entry.authorFingerprint])
                let stamp = CatalogText.milliseconds(now) - Int64(entries.count - index) * 20_000
                try db.execute(
                    sql: """
                        INSERT INTO loop (id, shortID, authorKey, revision, title, language, translationLanguage, tags, tagKeys,
                            groupCount, phraseCount, seconds, published, updated, bundleSHA256, bundleBytes)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        entry.id, CatalogText.seededShortID(for: entry.id), entry.authorKey, entry.revision,
                        entry.title,
                        entry.language, entry.translationLanguage, try Self.json(entry.tags),
                        CatalogText.tagKeys(entry.tags),
                        entry.groupCount, entry.phraseCount, entry.seconds, stamp, stamp, entry.bundleSHA256,
                        entry.bundleBytes,
                    ])
                try Self.insertText(db, entry)
                try Self.index(db, loopID: entry.id)
            }
        }
    }

    private static func json(_ tags: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(tags), as: UTF8.self)
    }

    /// A loop's summary from the first columns of a row of ``selectLoop``, read by their places
    /// (looking each up by its name cost more than reading all of them).
    private static func summary(_ row: Row) throws -> CatalogLoop {
        CatalogLoop(
            authored: CatalogLoop.Authored(
                id: row[0], revision: row[6], authorFingerprint: row[8], title: row[2], language: row[3],
                translationLanguage: row[4], tags: try CatalogText.tags(fromJSON: row[5]), groupCount: row[9],
                phraseCount: row[10], seconds: row[11]),
            shortID: row[1], author: row[7], published: CatalogText.iso8601(row[12]),
            updated: CatalogText.iso8601(row[13]), recentDownloads: row[18], featured: row[14])
    }
}
