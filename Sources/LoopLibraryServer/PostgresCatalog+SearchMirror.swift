import Foundation
import LoopLibraryAPI
import PostgresNIO

extension PostgresCatalog: SearchMirror.Source {
    /// Makes this server's search mirror, and reads the catalog into it in the background:
    /// searches ask PostgreSQL until it is read, or where it cannot be made.
    func startSearchMirror() async {
        let mirror: SearchMirror
        do {
            mirror = try await SearchMirror()
        } catch {
            logger.warning("no search mirror on this server (\(error)): searching PostgreSQL")
            return
        }
        guard keepSearchMirror(mirror) else {
            try? await mirror.close()
            return
        }
        mirror.fill(
            from: self,
            done: { [logger] took in logger.info("the search is mirrored on this server (read in \(took))") },
            failed: { [logger] error, wait in
                logger.warning(
                    "the search mirror was not read (\(error)): searching PostgreSQL; trying again in \(wait)")
            })
    }

    /// A search read from this server's mirror, brought up to the catalog's change stamp
    /// first; nil where there is no mirror yet or it fails (the search then asks PostgreSQL).
    func searchedInMirror(_ query: CatalogQuery, now: Date) async -> CatalogPage? {
        guard let mirror = currentSearchMirror, mirror.isReady else { return nil }
        do {
            try await mirror.catchUp(stamp: try await changeStamp(), now: now, source: self)
            return try await mirror.catalog.search(query, now: now)
        } catch {
            logger.warning("the search mirror failed (\(error)): searching PostgreSQL")
            return nil
        }
    }

    func unfinishedTransactions() async throws -> String {
        try await client.query("SELECT pg_snapshot_xmin(pg_current_snapshot())::text", logger: logger)
            .decode(String.self).first { _ in true } ?? "0"
    }

    /// The loops changed by transactions from `transaction` on, a thousand a statement, in the
    /// order of the transactions (then of their ids), each with its author and its place.
    func mirrorChanges(from transaction: String, into mirror: SQLiteCatalog) async throws {
        var after = (transaction: transaction, id: "")
        while true {
            var loops: [MirroredLoop] = []
            let rows = try await client.query(
                PostgresQuery(
                    unsafeSQL: Self.selectChanged, binds: Self.bindings(after.transaction, after.id)),
                logger: logger)
            for try await row in rows {
                let cells = row.makeRandomAccess()
                loops.append(
                    MirroredLoop(
                        id: try cells[0].decode(String.self), shortID: try cells[1].decode(String.self),
                        authorKey: try cells[2].decode(String.self), revision: try cells[3].decode(Int.self),
                        title: try cells[4].decode(String.self), language: try cells[5].decode(String?.self),
                        translationLanguage: try cells[6].decode(String?.self), tags: try cells[7].decode(String.self),
                        tagKeys: try cells[8].decode(String.self), groupCount: try cells[9].decode(Int.self),
                        phraseCount: try cells[10].decode(Int.self), seconds: try cells[11].decode(Double.self),
                        published: try cells[12].decode(Int64.self), updated: try cells[13].decode(Int64.self),
                        featured: try cells[14].decode(Bool.self), listed: try cells[15].decode(Bool.self),
                        bundleSHA256: try cells[16].decode(String.self), bundleBytes: try cells[17].decode(Int.self),
                        searchTitle: try cells[18].decode(String.self), searchText: try cells[19].decode(String.self),
                        authorFingerprint: try cells[20].decode(String.self),
                        authorName: try cells[21].decode(String?.self),
                        authorNameKey: try cells[22].decode(String?.self),
                        authorNameWords: try cells[23].decode(String.self), position: try cells[24].decode(Int64?.self))
                )
                after = (try cells[25].decode(String.self), loops[loops.count - 1].id)
            }
            try await mirror.mirror(loops)
            if loops.count < Self.changesRead { return }
        }
    }

    func recentDownloads(since: Int64, of loopIDs: [String]?) async throws -> [(loopID: String, count: Int)] {
        var sums: [(loopID: String, count: Int)] = []
        let rows =
            if let loopIDs {
                try await client.query(
                    """
                    SELECT loopId, SUM(count)::BIGINT FROM download WHERE day > \(since) AND loopId = ANY(\(loopIDs))
                    GROUP BY loopId
                    """, logger: logger)
            } else {
                try await client.query(
                    """
                    SELECT loopId, SUM(count)::BIGINT FROM download WHERE day > \(since)
                    GROUP BY loopId HAVING SUM(count) > 0
                    """, logger: logger)
            }
        for try await (loopID, count) in rows.decode((String, Int).self) { sums.append((loopID, count)) }
        if let loopIDs {
            // Those with no downloads left in the days counted: none.
            let found = Set(sums.map(\.loopID))
            sums += loopIDs.filter { !found.contains($0) }.map { ($0, 0) }
        }
        return sums
    }

    /// Loops read a statement.
    private static let changesRead = 1_000

    private static let selectChanged = """
        SELECT loop.id, loop.shortID, loop.authorKey, loop.revision, loop.title, loop.language, loop.translationLanguage,
            loop.tags, loop.tagKeys, loop.groupCount, loop.phraseCount, loop.seconds, loop.published, loop.updated,
            loop.featured, loop.listed, loop.bundleSHA256, loop.bundleBytes, loop.searchTitle, loop.searchText,
            author.fingerprint, author.name, author.nameKey, author.nameWords, search_entry.position, loop.changedBy::text
        FROM loop JOIN author ON author.key = loop.authorKey LEFT JOIN search_entry ON search_entry.loopId = loop.id
        WHERE (loop.changedBy, loop.id) > ($1::text::xid8, $2) ORDER BY loop.changedBy, loop.id LIMIT \(changesRead)
        """

    private static func bindings(_ values: String...) -> PostgresBindings {
        var bindings = PostgresBindings()
        for value in values { bindings.append(value) }
        return bindings
    }
}
