import Foundation
import Logging
import LoopFoundation
import LoopLibraryAPI
import PostgresNIO
import Synchronization

/// The catalog in PostgreSQL, for a Loop Library served by several `loop serve` processes
/// (behind a proxy, sharing one blob folder). The same rules as ``SQLiteCatalog``: publishes of
/// one loop are serialized by a transaction-scoped advisory lock on its id.
///
/// Connects without TLS: run it on a private network or a Unix socket.
public final class PostgresCatalog: Catalog, BenchmarkSeeding {
    let client: PostgresClient
    /// Whether PostgreSQL answers, as last found (``pool`` refuses at once while it does not).
    let reachability = CatalogReachability()
    /// A connection of its own, to check PostgreSQL answers (``probe(_:)``).
    private let probeConfiguration: PostgresConnection.Configuration
    /// The address, without its password: what a message names.
    let address: String
    private let running: Task<Void, Never>
    let logger: Logger
    /// Whether ``prepare()`` mirrors the search on this server (``SearchMirror``): a server's
    /// catalog does, an operator's command does not.
    private let mirroringSearch: Bool
    /// The search mirrored here, once ``prepare()`` made it.
    private let searchMirror = Mutex<SearchMirror?>(nil)
    /// The search mirror, once made.
    var currentSearchMirror: SearchMirror? { searchMirror.withLock { $0 } }
    /// Keeps `mirror` as the search mirror, unless one is kept already (then false).
    func keepSearchMirror(_ mirror: SearchMirror) -> Bool {
        searchMirror.withLock { kept in
            guard kept == nil else { return false }
            kept = mirror
            return true
        }
    }
    /// The change stamp as PostgreSQL last announced it to this server.
    private let announcedStamp = AnnouncedStamp()
    /// The loops downloaded in the last days with their words, kept for the searches in Hot's
    /// order (downloads counted by the other servers show within the minute a list is kept,
    /// as in the searches each server keeps).
    private let hotList = HotList()
    /// The task that listens for the catalog's changes, once ``prepare()`` started it.
    private let watching = Mutex<Task<Void, Never>?>(nil)

    /// The channel each change to the catalog is announced on, with the new change stamp.
    static let changeChannel = "loop_catalog_change"

    /// The fewest connections a catalog works with: one listens for changes, one answers.
    public static let fewestConnections = 2
    /// Seconds a connection to PostgreSQL stays open unused (PostgresNIO's default is 60).
    public static let idleSeconds: Int64 = 15

    /// Connections a catalog opens at most unless told: six a core, at least twelve. Each one
    /// open holds its buffers in this process and a backend in PostgreSQL's, and more than the
    /// cores can keep busy answer no faster (at 100,000 loops on two cores the server's peak
    /// was 179 MiB with 20, 116 MiB with 12, 110 MiB with 8; searches asked once 289, 298 and
    /// 217 a second).
    public static var defaultConnections: Int { max(12, 6 * ProcessInfo.processInfo.activeProcessorCount) }

    /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`) with at most
    /// `connections` open at once (at least ``fewestConnections``); `mirroringSearch`: searches
    /// read a mirror on this machine (a server's catalog), not PostgreSQL's indexes.
    public init(
        url: String, connections: Int = PostgresCatalog.defaultConnections, mirroringSearch: Bool = false,
        logger: Logger
    ) throws {
        guard let components = URLComponents(string: url),
            ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let user = components.user, !user.isEmpty
        else {
            throw CatalogError(
                .database, "\(url): not a PostgreSQL address (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)")
        }
        let database = String(components.path.drop { $0 == "/" })
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        let (username, password) = (user.removingPercentEncoding ?? user, components.password?.removingPercentEncoding)
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: username, password: password,
            database: database.isEmpty ? nil : database, tls: .disable)
        configuration.options.connectTimeout = .seconds(Self.connectSeconds)
        var probe = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: username, password: password,
            database: database.isEmpty ? nil : database, tls: .disable)
        probe.options.connectTimeout = .seconds(Self.connectSeconds)
        probeConfiguration = probe
        var shown = components
        shown.password = nil
        address = shown.string ?? url
        configuration.options.maximumConnections = max(connections, Self.fewestConnections)
        // Every time a connection goes back to the pool, PostgresNIO starts a keep-alive timer
        // (30 s) and an idle timer (60 s), and a timer cancelled when the connection is taken
        // again keeps its memory until it would have fired: at thousands of requests a second,
        // a third of the server's peak memory. So no keep-alive queries (the pool keeps no
        // connection open when idle, none being a minimum one, so there is none to keep
        // alive), and a connection idle for ``idleSeconds`` is closed, not after a minute.
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectionIdleTimeout = .seconds(Self.idleSeconds)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.mirroringSearch = mirroringSearch
        running = Task { await client.run() }
    }

    private static let migrations: [String] = [
        """
        CREATE TABLE author (
            key TEXT PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            name TEXT,
            nameKey TEXT UNIQUE
        );
        CREATE TABLE loop (
            id TEXT PRIMARY KEY,
            shortID TEXT NOT NULL UNIQUE,
            authorKey TEXT NOT NULL REFERENCES author(key),
            revision BIGINT NOT NULL,
            title TEXT NOT NULL,
            language TEXT,
            translationLanguage TEXT,
            tags TEXT NOT NULL,
            tagKeys TEXT NOT NULL,
            groupCount BIGINT NOT NULL,
            phraseCount BIGINT NOT NULL,
            seconds DOUBLE PRECISION NOT NULL,
            published BIGINT NOT NULL,
            updated BIGINT NOT NULL,
            featured BOOLEAN NOT NULL DEFAULT false,
            listed BOOLEAN NOT NULL DEFAULT true,
            bundleSHA256 TEXT NOT NULL,
            bundleBytes BIGINT NOT NULL,
            content BYTEA NOT NULL,
            searchText TEXT NOT NULL
        );
        CREATE INDEX loop_latest ON loop(listed, updated DESC);
        CREATE INDEX loop_author ON loop(authorKey);
        CREATE TABLE download (
            loopId TEXT NOT NULL,
            day BIGINT NOT NULL,
            count BIGINT NOT NULL,
            PRIMARY KEY (loopId, day)
        );
        CREATE TABLE nonce (
            nonce TEXT PRIMARY KEY,
            expires BIGINT NOT NULL
        );
        """,
        // Search matches parts of words: a trigram index (pg_trgm, a trusted extension of
        // PostgreSQL's own) finds them without reading every loop's text.
        """
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
        CREATE INDEX loop_search ON loop USING gin (searchText gin_trgm_ops);
        """,
        // A number that grows with every change to what the pages show (a publish, an
        // unpublish, a feature, an author's name): the web pages' cache compares it.
        """
        CREATE TABLE catalog_change (version BIGINT NOT NULL);
        INSERT INTO catalog_change (version) VALUES (0);
        CREATE FUNCTION catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE catalog_change SET version = version + 1; RETURN NULL; END $$;
        CREATE TRIGGER loop_changed AFTER INSERT OR UPDATE ON loop FOR EACH STATEMENT EXECUTE FUNCTION catalog_changed();
        CREATE TRIGGER author_changed AFTER UPDATE ON author FOR EACH STATEMENT EXECUTE FUNCTION catalog_changed();
        """,
        // Hot counts one download per client address per loop per day (a hash of the
        // address, kept for the days Hot looks at).
        """
        CREATE TABLE download_seen (
            loopId TEXT NOT NULL,
            day BIGINT NOT NULL,
            client TEXT NOT NULL,
            PRIMARY KEY (loopId, day, client)
        );
        """,
        // Only blobs a listed loop refers to are served: which loop refers to which blob (its
        // bundle, its takes, its pictures), filled in for the loops already published.
        """
        CREATE TABLE blob_ref (
            sha256 TEXT NOT NULL,
            loopId TEXT NOT NULL,
            PRIMARY KEY (sha256, loopId)
        );
        CREATE INDEX blob_ref_loop ON blob_ref(loopId);
        INSERT INTO blob_ref (sha256, loopId)
            SELECT bundleSHA256, id FROM loop
            UNION SELECT take ->> 'sha256', id FROM loop, jsonb_array_elements(convert_from(content, 'UTF8')::jsonb -> 'takes') AS take
            UNION SELECT split_part(blob #>> '{}', '.', 1), id FROM loop, jsonb_path_query(convert_from(content, 'UTF8')::jsonb, 'lax $.pictures.**.blob') AS blob
        ON CONFLICT DO NOTHING;
        """,
        // The operator's takedowns and blocked keys.
        """
        ALTER TABLE loop ADD COLUMN takenDown TEXT;
        CREATE TABLE blocked_key (key TEXT PRIMARY KEY, reason TEXT NOT NULL, since BIGINT NOT NULL);
        """,
        // The bytes each key published each day (UTC): its daily quota.
        """
        CREATE TABLE upload_day (
            authorKey TEXT NOT NULL,
            day BIGINT NOT NULL,
            bytes BIGINT NOT NULL,
            PRIMARY KEY (authorKey, day)
        );
        """,
        searchByWords,
        // Each change is announced to the servers listening, with the new stamp: they keep
        // their pages without asking for the stamp at every request.
        """
        CREATE OR REPLACE FUNCTION catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE changed BIGINT; BEGIN UPDATE catalog_change SET version = version + 1 RETURNING version INTO changed; PERFORM pg_notify('\(changeChannel)', changed::text); RETURN NULL; END $$;
        """,
        wordStarts,
        // The front page's lists read no more loops than they show: Hot the last days'
        // downloads (by day), Featured the featured loops (a few).
        """
        CREATE INDEX download_by_day ON download (day) INCLUDE (loopId, count);
        CREATE INDEX loop_featured ON loop (id) WHERE featured;
        """,
        // The part of each loop's page its revision alone decides, rendered when it is
        // published: a table of its own, as keeping it is no change the pages' stamp counts.
        """
        CREATE TABLE loop_page_part (
            loopId TEXT PRIMARY KEY REFERENCES loop (id) ON DELETE CASCADE,
            part BYTEA NOT NULL
        );
        """,
        changesByTransaction,
    ]

    /// Each loop marked with the transaction that last changed it: what the servers' search
    /// mirrors read (``SearchMirror``), from the oldest transaction unfinished when they last
    /// read on. (An author's name comes with each of their loops read: it changes only as they
    /// publish one.)
    private static let changesByTransaction = """
        ALTER TABLE loop ADD COLUMN changedBy xid8 NOT NULL DEFAULT '0';
        CREATE INDEX loop_changed_by ON loop (changedBy, id);
        CREATE FUNCTION loop_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.changedBy := pg_current_xact_id(); RETURN NEW; END $$;
        CREATE TRIGGER loop_row_changed BEFORE INSERT OR UPDATE ON loop FOR EACH ROW EXECUTE FUNCTION loop_row_changed();
        """

    /// Every start of each word kept as a lexeme of its own (`b`, `bo`, `bon`, ... `bonjour`:
    /// 4% more bytes than the first 6 alone in the benchmark's catalog), so a term is one
    /// lexeme of the index (``lexeme(_:)``), never the start of others (`'bon':*`), which GIN
    /// reads as a bitmap of every loop each word it starts is in (15-36 ms a count for a word in
    /// all 100,000 loops), and PostgreSQL's statistics of each lexeme tell its planner how many
    /// loops a term finds: one found in most is read by a scan that stops at the count's limit.
    /// The words of loops already here are indexed again.
    private static let wordStarts = """
        CREATE OR REPLACE FUNCTION search_words(words TEXT) RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$ SELECT array_to_tsvector(ARRAY(SELECT DISTINCT left(word, n) FROM unnest(string_to_array(words, ' ')) AS word, generate_series(1, length(word)) AS n)) $$;
        UPDATE search_entry SET title_words = search_words(loop.searchTitle), all_words = search_words(loop.searchTitle || ' ' || loop.searchText || ' ' || author.nameWords) FROM loop JOIN author ON author.key = loop.authorKey WHERE loop.id = search_entry.loopId;
        ANALYZE search_entry;
        """

    /// A search term as a query of the one lexeme that is its start (``wordStarts``): quoted,
    /// as tsquery reads a lexeme whatever it holds.
    private static func lexeme(_ term: String) -> String {
        "'" + term.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Search by words, ranked (as ``SQLiteCatalog``'s "v7"): each listed loop's words as
    /// lexemes taken as they are (no parser, no dictionary), its title's apart, numbered in
    /// the order loops were last published. The words of loops already here are filled in by
    /// ``fillSearchWords(_:)``.
    private static let searchByWords = """
        DROP INDEX loop_search;
        ALTER TABLE loop ADD COLUMN searchTitle TEXT NOT NULL DEFAULT '';
        ALTER TABLE author ADD COLUMN nameWords TEXT NOT NULL DEFAULT '';
        CREATE SEQUENCE search_position;
        CREATE TABLE search_entry (
            position BIGINT PRIMARY KEY,
            loopId TEXT NOT NULL UNIQUE,
            title_words tsvector NOT NULL,
            all_words tsvector NOT NULL
        );
        CREATE INDEX search_entry_title ON search_entry USING gin (title_words);
        CREATE INDEX search_entry_all ON search_entry USING gin (all_words);
        CREATE FUNCTION search_words(words TEXT) RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$ SELECT array_to_tsvector(array_remove(string_to_array(words, ' '), '')) $$;
        CREATE FUNCTION loop_unlisted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM search_entry WHERE loopId = NEW.id; RETURN NULL; END $$;
        CREATE TRIGGER loop_unlisted AFTER UPDATE OF listed ON loop FOR EACH ROW WHEN (NOT NEW.listed) EXECUTE FUNCTION loop_unlisted();
        CREATE FUNCTION author_renamed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE search_entry SET all_words = search_words(loop.searchTitle || ' ' || loop.searchText || ' ' || NEW.nameWords) FROM loop WHERE loop.id = search_entry.loopId AND loop.authorKey = NEW.key; RETURN NULL; END $$;
        CREATE TRIGGER author_renamed AFTER UPDATE OF nameWords ON author FOR EACH ROW EXECUTE FUNCTION author_renamed();
        """

    /// True: several servers share it.
    public var isShared: Bool { true }

    /// See ``Catalog/prepare()``.
    public func prepare() async throws {
        // PostgreSQL absent, or the user or database missing: said at once, in one line.
        if let reason = await Self.probe(probeConfiguration) {
            throw CatalogError(.unavailable, "--database \(address): cannot connect to PostgreSQL (\(reason))")
        }
        try await transaction { connection in
            // One server migrates; the others wait for it and find nothing left to do.
            try await connection.query("SELECT pg_advisory_xact_lock(7340041)", logger: self.logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS loop_catalog_schema (version BIGINT NOT NULL)", logger: self.logger)
            var version = 0
            for try await (applied) in try await connection.query(
                "SELECT COALESCE(MAX(version), 0) FROM loop_catalog_schema", logger: self.logger
            )
            .decode(Int.self) {
                version = applied
            }
            for (index, migration) in Self.migrations.enumerated() where index + 1 > version {
                // Statements end a line with `;` (a function's body keeps its own on one line).
                let statements = migration.components(separatedBy: ";\n").map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(
                        in: CharacterSet(charactersIn: ";"))
                }
                for statement in statements where !statement.isEmpty {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
                if migration == Self.searchByWords { try await self.fillSearchWords(connection) }
                try await connection.query(
                    "INSERT INTO loop_catalog_schema (version) VALUES (\(index + 1))", logger: self.logger)
            }
        }
        watching.withLock { watching in
            guard watching == nil else { return }
            watching = Task { [client, logger, announcedStamp, reachability, probeConfiguration] in
                await Self.watchChanges(
                    client: client, logger: logger, announced: announcedStamp, reachability: reachability,
                    probe: probeConfiguration)
            }
        }
        if mirroringSearch, currentSearchMirror == nil { await startSearchMirror() }
    }

    /// Listens for the catalog's changes (``changeChannel``) on a connection of its own for as
    /// long as the catalog is open, and keeps the last stamp announced in `announced`; while
    /// the connection is lost, `announced` is nil and every stamp is read from the database.
    /// Each time it starts listening it reads the stamp once, after `LISTEN` has taken effect
    /// (on any connection: a change committed after it is announced), so no change falls
    /// between the two. The same connection tells whether PostgreSQL answers (`reachability`):
    /// once it is lost, a connection of its own is tried each second until one is made.
    private static func watchChanges(
        client: PostgresClient, logger: Logger, announced: AnnouncedStamp, reachability: CatalogReachability,
        probe configuration: PostgresConnection.Configuration
    ) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: changeChannel) { notifications in
                        announced.listening(from: try await readStamp(client, logger: logger))
                        if reachability.found(nil) { logger.warning("the catalog's database answers again") }
                        for try await notification in notifications {
                            guard let stamp = Int64(notification.payload) else { continue }
                            await TestStop.reachedWithoutBlocking("catalog.announced")
                            announced.heard(stamp)
                        }
                    }
                }
            } catch {
                if !Task.isCancelled {
                    logger.warning(
                        "the catalog's changes are not heard (\(reason(error))): reading its stamp at each request"
                    )
                }
            }
            announced.lost()
            // At once, so that no request is left in the pool's wait for a connection (a
            // minute long); then each second until a connection of its own is made.
            var answered = true
            while !Task.isCancelled, let unreachable = await probe(configuration) {
                answered = false
                if reachability.found(unreachable) {
                    logger.error(
                        "the catalog's database cannot be reached (\(unreachable)): requests are refused (503)")
                }
                try? await Task.sleep(for: .seconds(1))
            }
            // PostgreSQL answers but the listening failed: tried again in a second, not at once.
            if answered { try? await Task.sleep(for: .seconds(1)) }
        }
    }

    private static func readStamp(_ client: PostgresClient, logger: Logger) async throws -> Int64 {
        try await client.query("SELECT version FROM catalog_change", logger: logger).decode(Int64.self).first {
            _ in true
        } ?? 0
    }

    /// Runs `body` in a transaction that changes what the pages show, then takes the new stamp
    /// at once: this server's own change is on its next page, before PostgreSQL announces it.
    private func changing<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws
        -> Result
    {
        let result = try await transaction(body)
        await learnOwnChange()
        return result
    }

    /// Reads the stamp after a change made here, where the announced one may not have come yet.
    private func learnOwnChange() async {
        guard let stamp = try? await Self.readStamp(try pool, logger: logger) else { return }
        announcedStamp.heard(stamp)
    }

    /// The search words of the loops and authors already in the catalog (as a publish now
    /// stores them), and the listed loops in the index, the last published newest.
    private func fillSearchWords(_ connection: PostgresConnection) async throws {
        var loops: [(String, String, String)] = []
        for try await row in try await connection.query(
            "SELECT id, title, searchText FROM loop ORDER BY updated, id DESC", logger: logger
        ).decode((String, String, String).self) {
            loops.append(row)
        }
        var authors: [(String, String)] = []
        for try await row in try await connection.query(
            "SELECT key, name FROM author WHERE name IS NOT NULL", logger: logger
        ).decode((String, String).self) {
            authors.append(row)
        }
        for (key, name) in authors {
            try await connection.query(
                "UPDATE author SET nameWords = \(CatalogText.searchField([name])) WHERE key = \(key)", logger: logger)
        }
        for (id, title, text) in loops {
            try await connection.query(
                """
                UPDATE loop SET searchTitle = \(CatalogText.searchField([title])), searchText = \(CatalogText.searchField([title, text]))
                WHERE id = \(id)
                """, logger: logger)
            try await index(connection, loopID: id)
        }
    }

    /// Puts a listed loop's words in the search index as the newest (a loop not listed is
    /// left out): called when it is published.
    private func index(_ connection: PostgresConnection, loopID: String) async throws {
        try await connection.query("DELETE FROM search_entry WHERE loopId = \(loopID)", logger: logger)
        try await connection.query(
            """
            INSERT INTO search_entry (position, loopId, title_words, all_words)
            SELECT nextval('search_position'), loop.id, search_words(loop.searchTitle),
                search_words(loop.searchTitle || ' ' || loop.searchText || ' ' || author.nameWords)
            FROM loop JOIN author ON author.key = loop.authorKey WHERE loop.id = \(loopID) AND loop.listed
            """, logger: logger)
    }

    /// See ``Catalog/publish(_:authorName:now:)``.
    public func publish(_ entry: CatalogEntry, authorName: String?, now: Date) async throws -> PublishResult {
        let stamp = CatalogText.milliseconds(now)
        let tags = String(decoding: try JSONEncoder().encode(entry.tags), as: UTF8.self)
        let tagKeys = CatalogText.tagKeys(entry.tags)
        return try await changing { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(entry.id)))", logger: self.logger)
            try await self.bindAuthor(
                connection, key: entry.authorKey, fingerprint: entry.authorFingerprint, name: authorName)
            try PublishRules.checkNotBlocked(reason: try await self.blockReason(entry.authorKey, connection))
            let existing = try await connection.query(
                "SELECT authorKey, revision, title, shortID, listed, takenDown FROM loop WHERE id = \(entry.id)",
                logger: self.logger
            )
            .decode((String, Int, String, String, Bool, String?).self).first { _ in true }
            if let (owner, revision, title, shortID, listed, takenDown) = existing {
                try PublishRules.check(
                    id: entry.id, revision: entry.revision, authorKey: entry.authorKey,
                    against: .init(
                        ownerKey: owner, revision: revision, title: title, listed: listed, takenDown: takenDown))
                // Judged, not yet written: where two publishes of one loop must not both pass.
                await TestStop.reachedWithoutBlocking("publish.transaction")
                try await self.countUpload(connection, entry, now: now)
                try await connection.query(
                    """
                    UPDATE loop SET revision = \(entry.revision), title = \(entry.title), language = \(entry.language),
                        translationLanguage = \(entry.translationLanguage), tags = \(tags), tagKeys = \(tagKeys),
                        groupCount = \(entry.groupCount), phraseCount = \(entry.phraseCount), seconds = \(entry.seconds), updated = \(stamp),
                        listed = true, bundleSHA256 = \(entry.bundleSHA256), bundleBytes = \(entry.bundleBytes), content = \(entry.content),
                        searchTitle = \(entry.searchTitle), searchText = \(entry.searchText)
                    WHERE id = \(entry.id)
                    """, logger: self.logger)
                try await self.index(connection, loopID: entry.id)
                try await connection.query("DELETE FROM blob_ref WHERE loopId = \(entry.id)", logger: self.logger)
                try await self.insertBlobRefs(connection, entry)
                return PublishResult(
                    id: entry.id, shortID: shortID, revision: entry.revision, previousRevision: listed ? revision : nil)
            }
            var length = 6
            while try await connection.query(
                "SELECT 1 FROM loop WHERE shortID = \(CatalogText.shortID(for: entry.id, length: length))",
                logger: self.logger
            )
            .decode(Int.self).first(where: { _ in true }) != nil {
                length += 2
            }
            let shortID = CatalogText.shortID(for: entry.id, length: length)
            try await self.countUpload(connection, entry, now: now)
            try await connection.query(
                """
                INSERT INTO loop (id, shortID, authorKey, revision, title, language, translationLanguage, tags, tagKeys,
                    groupCount, phraseCount, seconds, published, updated, bundleSHA256, bundleBytes, content, searchTitle, searchText)
                VALUES (\(entry.id), \(shortID), \(entry.authorKey), \(entry.revision), \(entry.title), \(entry.language),
                    \(entry.translationLanguage), \(tags), \(tagKeys), \(entry.groupCount), \(entry.phraseCount), \(entry.seconds),
                    \(stamp), \(stamp), \(entry.bundleSHA256), \(entry.bundleBytes), \(entry.content), \(entry.searchTitle),
                    \(entry.searchText))
                """, logger: self.logger)
            try await self.index(connection, loopID: entry.id)
            try await self.insertBlobRefs(connection, entry)
            return PublishResult(id: entry.id, shortID: shortID, revision: entry.revision, previousRevision: nil)
        }
    }

    /// See ``Catalog/judge(publishOf:revision:authorKey:)``.
    public func judge(publishOf id: String, revision: Int, authorKey: String) async throws {
        let blocked = try await pool.query("SELECT reason FROM blocked_key WHERE key = \(authorKey)", logger: logger)
            .decode(String.self).first { _ in true }
        try PublishRules.checkNotBlocked(reason: blocked)
        let rows = try await pool.query(
            "SELECT authorKey, revision, title, listed, takenDown FROM loop WHERE id = \(id)", logger: logger)
        guard
            let (owner, storedRevision, title, listed, takenDown) = try await rows.decode(
                (String, Int, String, Bool, String?).self
            ).first(where: { _ in true })
        else { return }
        try PublishRules.check(
            id: id, revision: revision, authorKey: authorKey,
            against: .init(
                ownerKey: owner, revision: storedRevision, title: title, listed: listed, takenDown: takenDown))
    }

    /// See ``Catalog/usage(ofKey:loop:now:)``.
    public func usage(ofKey authorKey: String, loop id: String, now: Date) async throws -> KeyUsage {
        let loops = try await pool.query(
            """
            SELECT COUNT(*) FILTER (WHERE listed), COUNT(*) FILTER (WHERE listed AND id = \(id)), MIN(published) FROM loop WHERE authorKey = \(authorKey)
            """, logger: logger
        ).decode((Int, Int, Int64?).self).first { _ in true }
        let bytes =
            try await pool.query(
                "SELECT bytes FROM upload_day WHERE authorKey = \(authorKey) AND day = \(CatalogText.day(now))",
                logger: logger
            )
            .decode(Int64.self).first { _ in true } ?? 0
        return KeyUsage(
            listedLoops: loops?.0 ?? 0, holdsLoop: (loops?.1 ?? 0) > 0, bytesToday: Int(bytes),
            firstPublished: loops?.2.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) })
    }

    /// See ``Catalog/listedBlobs()``.
    public func listedBlobs() async throws -> Set<String> {
        var hashes: Set<String> = []
        for try await hash in try await pool.query(
            "SELECT DISTINCT blob_ref.sha256 FROM blob_ref JOIN loop ON loop.id = blob_ref.loopId WHERE loop.listed",
            logger: logger
        ).decode(String.self) {
            hashes.insert(hash)
        }
        return hashes
    }

    private func blockReason(_ key: String, _ connection: PostgresConnection) async throws -> String? {
        try await connection.query("SELECT reason FROM blocked_key WHERE key = \(key)", logger: logger).decode(
            String.self
        ).first { _ in true }
    }

    /// See ``Catalog/takeDown(_:reason:now:)``.
    public func takeDown(_ ref: String, reason: String, now: Date) async throws -> String? {
        try await changing { connection in
            guard
                let id = try await connection.query(
                    "SELECT id FROM loop WHERE id = \(ref) OR shortID = \(ref) FOR UPDATE", logger: self.logger
                )
                .decode(String.self).first(where: { _ in true })
            else { return nil }
            try await connection.query(
                """
                UPDATE loop SET listed = false, featured = false, takenDown = \(reason), updated = \(CatalogText.milliseconds(now)) WHERE id = \(id)
                """, logger: self.logger)
            return id
        }
    }

    /// See ``Catalog/blockKey(_:reason:now:)``.
    public func blockKey(_ key: String, reason: String, now: Date) async throws -> Int? {
        try await changing { connection in
            guard
                let authorKey = try await connection.query(
                    "SELECT key FROM author WHERE key = \(key) OR fingerprint = \(key)", logger: self.logger
                )
                .decode(String.self).first(where: { _ in true })
            else { return nil }
            try await connection.query(
                """
                INSERT INTO blocked_key (key, reason, since) VALUES (\(authorKey), \(reason), \(Int64(now.timeIntervalSince1970)))
                ON CONFLICT (key) DO UPDATE SET reason = EXCLUDED.reason
                """, logger: self.logger)
            let taken = try await connection.query(
                """
                UPDATE loop SET listed = false, featured = false, takenDown = \("its author's key is blocked: " + reason),
                    updated = \(CatalogText.milliseconds(now)) WHERE authorKey = \(authorKey) AND listed RETURNING 1
                """, logger: self.logger)
            var count = 0
            for try await _ in taken.decode(Int.self) { count += 1 }
            return count
        }
    }

    private func insertBlobRefs(_ connection: PostgresConnection, _ entry: CatalogEntry) async throws {
        for hash in CatalogBlobs.hashes(bundleSHA256: entry.bundleSHA256, content: entry.content).sorted() {
            try await connection.query(
                "INSERT INTO blob_ref (sha256, loopId) VALUES (\(hash), \(entry.id)) ON CONFLICT DO NOTHING",
                logger: logger)
        }
    }

    /// See ``Catalog/servesBlob(_:)``.
    public func servesBlob(_ sha256: String) async throws -> Bool {
        try await pool.query(
            "SELECT 1 FROM blob_ref JOIN loop ON loop.id = blob_ref.loopId WHERE blob_ref.sha256 = \(sha256) AND loop.listed LIMIT 1",
            logger: logger
        ).decode(Int.self).first { _ in true } != nil
    }

    /// Adds the bundle to its author's bytes of the day (the daily quota). Done once the
    /// publish is judged: the row lock it takes is not what keeps two publishes of one loop
    /// apart (the loop's advisory lock is).
    private func countUpload(_ connection: PostgresConnection, _ entry: CatalogEntry, now: Date) async throws {
        try await connection.query(
            """
            INSERT INTO upload_day (authorKey, day, bytes) VALUES (\(entry.authorKey), \(CatalogText.day(now)), \(Int64(entry.bundleBytes)))
            ON CONFLICT (authorKey, day) DO UPDATE SET bytes = upload_day.bytes + excluded.bytes
            """, logger: logger)
    }

    private func bindAuthor(_ connection: PostgresConnection, key: String, fingerprint: String, name: String?)
        async throws
    {
        try await connection.query(
            "INSERT INTO author (key, fingerprint) VALUES (\(key), \(fingerprint)) ON CONFLICT (key) DO NOTHING",
            logger: logger)
        guard let name else { return }
        let nameKey = CatalogText.fold(name)
        let current =
            try await connection.query("SELECT name FROM author WHERE key = \(key)", logger: logger)
            .decode(String?.self).first { _ in true } ?? nil
        guard current != name else { return }
        if let holder = try await connection.query("SELECT key FROM author WHERE nameKey = \(nameKey)", logger: logger)
            .decode(String.self).first(where: { _ in true }), holder != key
        {
            throw CatalogError(.nameTaken, "the name '\(name)' belongs to another author")
        }
        do {
            try await connection.query(
                "UPDATE author SET name = \(name), nameKey = \(nameKey), nameWords = \(CatalogText.searchField([name])) WHERE key = \(key)",
                logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == PostgresError.Code.uniqueViolation.raw {
            throw CatalogError(.nameTaken, "the name '\(name)' belongs to another author")
        }
    }

    /// See ``Catalog/unpublish(id:authorKey:now:)``.
    public func unpublish(id: String, authorKey: String, now: Date) async throws {
        try await changing { connection in
            guard
                let owner = try await connection.query(
                    "SELECT authorKey FROM loop WHERE id = \(id) AND listed FOR UPDATE", logger: self.logger
                )
                .decode(String.self).first(where: { _ in true })
            else {
                throw CatalogError(.notFound, "no loop \(id) is published here")
            }
            guard owner == authorKey else {
                throw CatalogError(.notTheAuthor, "only its author can unpublish this loop")
            }
            try PublishRules.checkNotBlocked(reason: try await self.blockReason(authorKey, connection))
            try await connection.query(
                "UPDATE loop SET listed = false, featured = false, updated = \(CatalogText.milliseconds(now)) WHERE id = \(id)",
                logger: self.logger)
        }
    }

    /// See ``Catalog/useNonce(_:expires:now:)``.
    public func useNonce(_ nonce: String, expires: Date, now: Date) async throws -> Bool {
        try await pool.query("DELETE FROM nonce WHERE expires < \(Int64(now.timeIntervalSince1970))", logger: logger)
        let inserted = try await pool.query(
            "INSERT INTO nonce (nonce, expires) VALUES (\(nonce), \(Int64(expires.timeIntervalSince1970))) ON CONFLICT DO NOTHING RETURNING 1",
            logger: logger
        ).decode(Int.self).first { _ in true }
        return inserted != nil
    }

    private static let selectLoop = """
        SELECT loop.id, loop.shortID, loop.title, loop.language, loop.translationLanguage, loop.tags, loop.revision,
            author.name, author.fingerprint, loop.groupCount, loop.phraseCount, loop.seconds, loop.published,
            loop.updated, loop.featured, loop.authorKey, loop.bundleSHA256, loop.bundleBytes,
            (SELECT COALESCE(SUM(count), 0) FROM download WHERE download.loopId = loop.id AND download.day > $1)::BIGINT AS recent
        """

    /// See ``Catalog/loop(_:now:)``.
    public func loop(_ ref: String, now: Date) async throws -> StoredLoop? {
        for try await loop in try await client.execute(
            LoopByReference(recentSince: CatalogText.recentSince(now), ref: ref), logger: logger)
        {
            return loop
        }
        return nil
    }

    /// A listed loop by id or short id, with its content: a statement prepared once on each
    /// connection (a loop's page or details read the catalog this way on every first visit, and
    /// parsing and planning it each time cost PostgreSQL as much as running it).
    private struct LoopByReference: PostgresPreparedStatement {
        /// (Named here: the default, the type's full name, is cut to PostgreSQL's 63 bytes,
        /// where a private type's names all begin alike.)
        static let name = "loop_by_reference"
        static let sql =
            PostgresCatalog.selectLoop
            + ", loop.content, loop_page_part.part FROM loop JOIN author ON author.key = loop.authorKey"
            + " LEFT JOIN loop_page_part ON loop_page_part.loopId = loop.id"
            + " WHERE (loop.id = $2 OR loop.shortID = $2) AND loop.listed"
        let recentSince: Int64
        let ref: String

        func makeBindings() -> PostgresBindings {
            var binds = PostgresBindings()
            binds.append(recentSince)
            binds.append(ref)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws -> StoredLoop {
            let cells = row.makeRandomAccess()
            return StoredLoop(
                summary: try PostgresCatalog.summary(cells), authorKey: try cells[15].decode(String.self),
                content: try cells[19].decode(Data.self), bundleSHA256: try cells[16].decode(String.self),
                bundleBytes: try cells[17].decode(Int.self), pagePart: try cells[20].decode(Data?.self))
        }
    }

    /// See ``Catalog/listedLoopIDs()``.
    public func listedLoopIDs() async throws -> [String] {
        try await pool.query("SELECT id FROM loop WHERE listed", logger: logger).decode(String.self)
            .reduce(into: []) { $0.append($1) }
    }

    /// See ``Catalog/keepPagePart(_:id:revision:)``.
    public func keepPagePart(_ part: Data, id: String, revision: Int) async throws -> Bool {
        try await pool.query(
            """
            INSERT INTO loop_page_part (loopId, part)
            SELECT id, \(part) FROM loop WHERE id = \(id) AND revision = \(revision) AND listed
            ON CONFLICT (loopId) DO UPDATE SET part = excluded.part
            RETURNING 1
            """, logger: logger
        ).decode(Int.self).first(where: { _ in true }) != nil
    }

    /// The loops downloaded since the day `since`, most downloaded first (newest first among
    /// equals), with their words (as ``wordStarts`` reads them): as kept in `hotList`, or read
    /// now and kept; nil when they are too many to keep.
    private func hotLoops(since: Int64, downloads: Int) async throws -> [HotList.Loop]? {
        // The stamp before the list: a change between them reads the list again next time.
        let key = HotList.Key(stamp: try await changeStamp(), since: since)
        if let kept = hotList.kept(for: key, downloads: downloads) { return kept }
        let read = DispatchTime.now().uptimeNanoseconds
        var list = HotList.Reading()
        let rows = try await pool.query(
            """
            SELECT search_entry.position::BIGINT, hot.recent::BIGINT, loop.searchTitle, loop.searchText || ' ' || author.nameWords
            FROM (SELECT loopId, SUM(count) AS recent FROM download WHERE day > \(since) GROUP BY loopId HAVING SUM(count) > 0) AS hot
            JOIN search_entry ON search_entry.loopId = hot.loopId JOIN loop ON loop.id = hot.loopId
            JOIN author ON author.key = loop.authorKey
            ORDER BY hot.recent DESC, search_entry.position DESC
            """, logger: logger)
        for try await (position, recent, title, rest) in rows.decode((Int64, Int, String, String).self) {
            guard list.add(position: position, recent: recent, title: title, rest: rest) else { break }
        }
        hotList.keep(list.loops, for: key, downloads: downloads, read: read)
        return list.loops
    }

    /// See ``Catalog/search(_:now:)``.
    public func search(_ query: CatalogQuery, now: Date) async throws -> CatalogPage {
        if let page = await searchedInMirror(query, now: now) {
            LibraryMetrics.searched(inMirror: true)
            return page
        }
        LibraryMetrics.searched(inMirror: false)
        // Taken before any read: a download counted after it leaves no list read before it kept.
        let downloads = hotList.downloads
        var binds = PostgresBindings()
        binds.append(CatalogText.recentSince(now))
        var filters: [String] = []
        func bind(_ value: String) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        if let language = query.language { filters.append("lower(loop.language) = lower(\(bind(language)))") }
        if let translation = query.translationLanguage {
            filters.append("lower(loop.translationLanguage) = lower(\(bind(translation)))")
        }
        if let tag = query.tag {
            filters.append(
                "loop.tagKeys LIKE \(bind(CatalogText.likePattern("|" + CatalogText.fold(tag) + "|"))) ESCAPE '\\'")
        }
        if let author = query.author {
            filters.append(
                "(author.nameKey = \(bind(CatalogText.fold(author))) OR author.fingerprint = \(bind(author.lowercased())))"
            )
        }
        if query.featuredOnly { filters.append("loop.featured") }
        let joined = " JOIN loop ON loop.id = search_entry.loopId JOIN author ON author.key = loop.authorKey"
        let hotFirst = query.sort == .hot
        // Where no filter narrows them, the hot loops kept (their ranks told from their words).
        let kept =
            hotFirst && filters.isEmpty
            ? try await hotLoops(since: CatalogText.recentSince(now), downloads: downloads) : nil
        let terms = CatalogText.searchTerms(query.text)
        // The listed loops downloaded in the last days, with their downloads (`hot.recent`):
        // read from the downloads by day, so Hot reads the loops people took lately, not
        // every loop's downloads.
        let recentlyDownloaded =
            " FROM (SELECT loopId, SUM(count) AS recent FROM download WHERE day > $1 GROUP BY loopId HAVING SUM(count) > 0) AS hot"
            + " JOIN search_entry ON search_entry.loopId = hot.loopId"
        let notRecentlyDownloaded =
            "NOT EXISTS (SELECT 1 FROM download WHERE download.loopId = search_entry.loopId AND download.day > $1 AND download.count > 0)"
        // The counts have no use for the first bind (the day); it is kept so the numbering holds.
        func counted(_ conditions: [String], limit: Int?) -> String {
            "(SELECT COUNT(*) FROM (SELECT 1 FROM search_entry" + (filters.isEmpty ? "" : joined) + " WHERE "
                + (conditions + filters + ["$1::BIGINT IS NOT NULL"]).joined(separator: " AND ")
                + (limit.map { " LIMIT \($0)" } ?? "") + ") AS matching)::BIGINT"
        }
        /// How many of the loops downloaded in the last days `conditions` hold for (in Hot's
        /// order, they come first).
        func countedHot(_ conditions: [String]) -> String {
            "(SELECT COUNT(*)" + recentlyDownloaded + (filters.isEmpty ? "" : joined) + " WHERE "
                + (conditions + filters).joined(separator: " AND ") + ")::BIGINT"
        }
        /// The counts, in one statement (a round trip and a plan for them all).
        func counts(_ each: [String]) async throws -> [Int] {
            let row = try await pool.query(
                PostgresQuery(unsafeSQL: "SELECT " + each.joined(separator: ", "), binds: binds), logger: logger
            )
            .first { _ in true }
            let counts = try (row.map { Array($0.makeRandomAccess()) } ?? []).map { try $0.decode(Int.self) }
            guard counts.count == each.count else {
                throw CatalogError(.database, "a search's counts were not answered")
            }
            return counts
        }
        // The page's entries first, then their loops: joined before the page was cut, the
        // planner (which could not tell how many loops a word's start found) joined every match.
        // (`positions`: bound after the search's binds, as `page` names them.)
        func read(_ page: String, hot: Bool, positions: [Int64]? = nil) async throws -> [CatalogLoop] {
            var binds = binds
            if let positions { binds.append(positions) }
            let query = PostgresQuery(
                unsafeSQL: Self.selectLoop + " FROM (" + page + ") AS search_entry" + joined + " ORDER BY "
                    + (hot ? "search_entry.recent DESC, " : "") + "search_entry.position DESC",
                binds: binds)
            var loops: [CatalogLoop] = []
            for try await row in try await pool.query(query, logger: logger) {
                loops.append(try Self.summary(row.makeRandomAccess()))
            }
            return loops
        }
        /// A list's loops where `conditions` hold, from `offset`, newest first; in Hot's order
        /// when asked, its `hot` loops downloaded in the last days first (those `kept`, when
        /// they are).
        func loops(
            _ conditions: [String], hot: Int, kept: [HotList.Loop]?, offset: Int, limit: Int
        ) async throws -> [CatalogLoop] {
            // A word found in most loops is read off the positions' index, newest first, until
            // the page is full; a rare one off its words' index, then sorted. The planner tells
            // them apart by its statistics of each lexeme (``wordStarts``).
            func newest(_ conditions: [String], offset: Int, limit: Int) -> String {
                "SELECT search_entry.loopId, search_entry.position FROM search_entry" + (filters.isEmpty ? "" : joined)
                    + " WHERE " + (conditions + filters).joined(separator: " AND ")
                    + " ORDER BY search_entry.position DESC LIMIT \(limit) OFFSET \(offset)"
            }
            guard hotFirst else { return try await read(newest(conditions, offset: offset, limit: limit), hot: false) }
            let parts = CatalogPage.hotParts(offset: offset, limit: limit, hot: hot)
            var loops: [CatalogLoop] = []
            if let part = parts.hot, let kept {
                // The page's hot loops by their positions, with their downloads as kept (the
                // conditions checked again, and their binds read).
                let values = kept[part.offset..<(part.offset + part.limit)].map {
                    "(\($0.position)::BIGINT, \($0.recent)::BIGINT)"
                }
                loops += try await read(
                    "SELECT search_entry.loopId, search_entry.position, kept.recent FROM (VALUES "
                        + values.joined(separator: ", ")
                        + ") AS kept (position, recent) JOIN search_entry ON search_entry.position = kept.position WHERE "
                        + conditions.joined(separator: " AND "),
                    hot: true)
            } else if let part = parts.hot {
                loops += try await read(
                    "SELECT search_entry.loopId, search_entry.position, hot.recent" + recentlyDownloaded
                        + (filters.isEmpty ? "" : joined) + " WHERE "
                        + (conditions + filters).joined(separator: " AND ")
                        + " ORDER BY hot.recent DESC, search_entry.position DESC LIMIT \(part.limit) OFFSET \(part.offset)",
                    hot: true)
            }
            if let part = parts.rest, let kept {
                // Past the hot loops as kept, not as downloaded now: a loop first downloaded
                // through another server since the list was read would be in neither part.
                loops += try await read(
                    newest(
                        conditions + ["NOT (search_entry.position = ANY($\(binds.count + 1)::BIGINT[]))"],
                        offset: part.offset, limit: part.limit),
                    hot: false, positions: kept.map(\.position))
            } else if let part = parts.rest {
                loops += try await read(
                    newest(conditions + [notRecentlyDownloaded], offset: part.offset, limit: part.limit), hot: false)
            }
            return loops
        }
        guard !terms.isEmpty else {
            let counted = try await counts(
                [counted(["true"], limit: nil)] + (hotFirst && kept == nil ? [countedHot(["true"])] : []))
            return CatalogPage(
                loops: try await loops(
                    ["true"], hot: kept?.count ?? (hotFirst ? counted[1] : 0), kept: kept, offset: query.offset,
                    limit: query.limit),
                total: counted[0], offset: query.offset, limit: query.limit)
        }
        // Two ranks, as SQLiteCatalog's: the loops whose title holds every term (each the start
        // of a word: a lexeme of its own, ``wordStarts``), then the rest; each count stops past
        // the limit. Each term is a condition of its own, so the index is read by the rarest
        // and the others are checked in it (one query of them all read the index whole for
        // each: 10 ms for a title's number and a word in every loop of 100,000, 0.13 ms so).
        let lexemes = terms.map { bind(Self.lexeme($0)) + "::tsquery" }
        func every(_ column: String) -> String {
            lexemes.map { "search_entry.\(column) @@ \($0)" }.joined(separator: " AND ")
        }
        let ranks = [[every("title_words")], [every("all_words"), "NOT (" + every("title_words") + ")"]]
        let matches = try await counts(
            [
                counted(ranks[0], limit: CatalogPage.countLimit + 1),
                counted([every("all_words")], limit: CatalogPage.countLimit + 1),
            ] + (hotFirst && kept == nil ? ranks.map(countedHot) : []))
        let page = CatalogPage.Ranked(title: matches[0], all: matches[1])
        let keptRanks = kept.map { HotList.ranks(of: $0, terms: terms) }
        var found: [CatalogLoop] = []
        for slice in page.slices(offset: query.offset, limit: query.limit) {
            found += try await loops(
                ranks[slice.rank], hot: keptRanks?[slice.rank].count ?? (hotFirst ? matches[2 + slice.rank] : 0),
                kept: keptRanks?[slice.rank], offset: slice.offset, limit: slice.limit)
        }
        return page.page(found, offset: query.offset, limit: query.limit)
    }

    /// See ``BenchmarkSeeding/insertForBenchmark(_:now:)``.
    public func insertForBenchmark(_ entries: [CatalogEntry], now: Date) async throws {
        try await transaction { connection in
            for (index, entry) in entries.enumerated() {
                let stamp = CatalogText.milliseconds(now) - Int64(entries.count - index) * 20_000
                let tags = String(decoding: try JSONEncoder().encode(entry.tags), as: UTF8.self)
                try await connection.query(
                    """
                    INSERT INTO author (key, fingerprint) VALUES (\(entry.authorKey), \(entry.authorFingerprint))
                    ON CONFLICT (key) DO NOTHING
                    """, logger: self.logger)
                try await connection.query(
                    """
                    INSERT INTO loop (id, shortID, authorKey, revision, title, language, translationLanguage, tags, tagKeys,
                        groupCount, phraseCount, seconds, published, updated, bundleSHA256, bundleBytes, content, searchTitle, searchText)
                    VALUES (\(entry.id), \(CatalogText.seededShortID(for: entry.id)), \(entry.authorKey), \(entry.revision),
                        \(entry.title), \(entry.language), \(entry.translationLanguage), \(tags), \(CatalogText.tagKeys(entry.tags)),
                        \(entry.groupCount), \(entry.phraseCount), \(entry.seconds), \(stamp), \(stamp), \(entry.bundleSHA256),
                        \(entry.bundleBytes), \(entry.content), \(entry.searchTitle), \(entry.searchText))
                    """, logger: self.logger)
                try await self.index(connection, loopID: entry.id)
            }
        }
        try await pool.query("VACUUM ANALYZE", logger: logger)
    }

    /// See ``Catalog/countDownload(id:client:now:)``.
    public func countDownload(id: String, client address: String, now: Date) async throws -> Bool {
        let day = CatalogText.day(now)
        let counted =
            try await pool.query(
                """
                WITH seen AS (
                    INSERT INTO download_seen (loopId, day, client) VALUES (\(id), \(day), \(address)) ON CONFLICT DO NOTHING RETURNING 1
                )
                INSERT INTO download (loopId, day, count) SELECT \(id), \(day), 1 WHERE EXISTS (SELECT 1 FROM seen)
                ON CONFLICT (loopId, day) DO UPDATE SET count = download.count + 1
                RETURNING 1
                """, logger: logger
            ).decode(Int.self).first { _ in true } != nil
        // After its commit: a search that begins from now on reads the download.
        if counted {
            hotList.downloadCounted()
            searchMirror.withLock { $0 }?.downloadCounted(loopID: id)
        }
        try await pool.query(
            "DELETE FROM download_seen WHERE loopId = \(id) AND day < \(day - CatalogText.recentDays)", logger: logger)
        return counted
    }

    /// See ``Catalog/changeStamp()``.
    public func changeStamp() async throws -> Int64 {
        if let announced = announcedStamp.current { return announced }
        return try await Self.readStamp(try pool, logger: logger)
    }

    /// See ``Catalog/setFeatured(_:featured:)``.
    public func setFeatured(_ ref: String, featured: Bool) async throws -> Bool {
        let changed = try await pool.query(
            "UPDATE loop SET featured = \(featured) WHERE (id = \(ref) OR shortID = \(ref)) AND listed RETURNING 1",
            logger: logger
        )
        .decode(Int.self).first { _ in true }
        if changed != nil { await learnOwnChange() }
        return changed != nil
    }

    /// See ``Catalog/close()``.
    public func close() async throws {
        // (Its files are this server's alone: a failure to close them leaves the rest to close.)
        try? await searchMirror.withLock { $0 }?.close()
        if let watch = watching.withLock({ $0 }) {
            watch.cancel()
            await watch.value
        }
        running.cancel()
        await running.value
    }

    /// Runs `body` in one transaction, rethrowing the catalog's own refusals as they are.
    private func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws
        -> Result
    {
        do {
            return try await pool.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            if let refusal = error.closureError as? CatalogError { throw refusal }
            throw CatalogError(
                .database,
                "the catalog database failed (\(String(reflecting: error.closureError ?? error.beginError ?? error.commitError ?? error)))"
            )
        }
    }

    private static func summary(_ cells: PostgresRandomAccessRow) throws -> CatalogLoop {
        let tags = try CatalogText.tags(fromJSON: try cells[5].decode(String.self))
        return CatalogLoop(
            authored: CatalogLoop.Authored(
                id: try cells[0].decode(String.self), revision: try cells[6].decode(Int.self),
                authorFingerprint: try cells[8].decode(String.self), title: try cells[2].decode(String.self),
                language: try cells[3].decode(String?.self), translationLanguage: try cells[4].decode(String?.self),
                tags: tags, groupCount: try cells[9].decode(Int.self), phraseCount: try cells[10].decode(Int.self),
                seconds: try cells[11].decode(Double.self)),
            shortID: try cells[1].decode(String.self), author: try cells[7].decode(String?.self),
            published: CatalogText.iso8601(try cells[12].decode(Int64.self)),
            updated: CatalogText.iso8601(try cells[13].decode(Int64.self)),
            recentDownloads: try cells[18].decode(Int.self), featured: try cells[14].decode(Bool.self))
    }
}

/// The catalog's change stamp as PostgreSQL announces it (`NOTIFY`): nil while no connection
/// listens, when the stamp must be read from the database.
final class AnnouncedStamp: Sendable {
    private let stamp = Mutex<Int64?>(nil)

    /// The last stamp announced, if listening.
    var current: Int64? { stamp.withLock { $0 } }

    /// Listening, from `stamp` (read once `LISTEN` took effect).
    func listening(from stamp: Int64) { self.stamp.withLock { $0 = stamp } }

    /// A change announced (or made here): the stamp moves on, never back.
    func heard(_ stamp: Int64) { self.stamp.withLock { $0 = $0.map { max($0, stamp) } } }

    /// The listening connection is lost: changes may go unheard.
    func lost() { stamp.withLock { $0 = nil } }
}
