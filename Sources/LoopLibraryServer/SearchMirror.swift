import Foundation
import LoopFoundation
import Metrics
import Synchronization

/// A shared catalog's search, mirrored in a ``SQLiteCatalog`` of this server's own (in a folder
/// of the temporary folder, `loop-search-*`, removed when the server stops): a search then reads SQLite's
/// full-text indexes on this machine as a one-machine library does, not PostgreSQL's (three
/// statements of 2-3 ms each at 100,000 loops), and gives the same answers, since it runs the
/// same code on the same loops, numbered as the shared catalog numbers them.
///
/// The mirror follows the shared catalog by what it announces: before each search, a change
/// stamp newer than the one it holds has it read the loops changed since (``Source``); the
/// downloads Hot counts are read again as the catalog's hot loops are (at a change, and after a
/// minute at most; a loop downloaded here, at once). A server reads it whole as it starts,
/// while it answers; until that reading is done, and whenever one fails, the searches ask the
/// shared catalog itself.
final class SearchMirror: Sendable {
    /// Where the mirror reads the shared catalog.
    protocol Source: Sendable {
        /// The oldest transaction that may not be read yet (the next reading starts there).
        func unfinishedTransactions() async throws -> String
        /// Writes into `mirror` every loop changed by the transactions from `transaction` on.
        func mirrorChanges(from transaction: String, into mirror: SQLiteCatalog) async throws
        /// Each loop's downloads since the day `since`: every loop downloaded (`loopIDs` nil),
        /// or those of `loopIDs` (0 for one with none).
        func recentDownloads(since: Int64, of loopIDs: [String]?) async throws -> [(loopID: String, count: Int)]
        /// The shared catalog's change stamp.
        func changeStamp() async throws -> Int64
    }

    let catalog: SQLiteCatalog
    /// The folder of its files, removed with it (or, if the server is killed, by the next one).
    private let folder: ScratchFolder

    private struct State {
        /// Whether the first reading is done.
        var ready = false
        /// The change stamp every change up to which is in the mirror.
        var stamp: Int64 = .min
        /// The oldest transaction of the shared catalog that may not be read yet.
        var from = "0"
        /// The first day the downloads written count from, and when they were read.
        var downloadsSince: Int64 = .min
        var downloadsRead: UInt64 = 0
        /// Loops downloaded through this server since.
        var downloaded: Set<String> = []
        /// The reading under way, which every search that needs one waits for.
        var reading: Task<Void, any Error>?
        /// The first reading, tried until it is done.
        var filling: Task<Void, Never>?
    }
    private let state = Mutex(State())
    /// 1 once the first reading is done (`/metrics`): the searches are answered here from then on.
    private let readyGauge = Metrics.Gauge(label: "loop_library_search_mirror_ready")

    /// Opens a new mirror in the temporary folder.
    init() async throws {
        folder = try ScratchFolder(in: TemporaryFolder.path, prefix: "loop-search-")
        // Four readers a pool, not eight: each connection holds its cache (at 100,000 loops on two
        // cores, in Hot's order 1,395-1,472 searches a second with 71-72 MiB, against 1,592-1,638
        // with 83 MiB; two readers, 1,129-1,219 with 65 MiB).
        catalog = try SQLiteCatalog(path: folder.path + "/search.sqlite", readers: 4, durable: false)
        try await catalog.prepare()
        readyGauge.record(0)
    }

    /// Reads the shared catalog whole, in the background, until it is done: `done` is told how
    /// long it took; `failed`, each failure and the wait before the next try (5 s, doubled each
    /// time up to 5 minutes: a full disk must not have a whole read made again and again).
    func fill(
        from source: some Source, done: @escaping @Sendable (Duration) -> Void,
        failed: @escaping @Sendable (any Error, Duration) -> Void
    ) {
        let task = Task {
            let clock = ContinuousClock()
            let start = clock.now
            var wait = Duration.seconds(5)
            while !Task.isCancelled {
                do {
                    try await catchUp(stamp: try await source.changeStamp(), now: Date(), source: source)
                    // (Searches read the mirror meanwhile: its readers do not wait for a write.)
                    try await catalog.mergeSearchIndexes()
                    readyGauge.record(1)
                    done(clock.now - start)
                    return
                } catch {
                    if Task.isCancelled { return }
                    failed(error, wait)
                    try? await Task.sleep(for: wait)
                    wait = min(wait * 2, .seconds(300))
                }
            }
        }
        state.withLock { $0.filling = task }
    }

    /// Whether its first reading is done: until then the searches ask the shared catalog.
    var isReady: Bool { state.withLock { $0.ready } }

    /// Brings the mirror up to the change stamp `stamp` (read before this call) and to the
    /// downloads as Hot counts them on the day of `now`, reading from `source` what it lacks.
    func catchUp(stamp: Int64, now: Date, source: some Source) async throws {
        let since = CatalogText.recentSince(now)
        while true {
            let reading: Task<Void, any Error>? = state.withLock { state in
                if let reading = state.reading { return reading }
                let clock = DispatchTime.now().uptimeNanoseconds
                let changes = state.stamp < stamp
                // As the catalog's hot loops are kept: read again at a change, a new day or
                // after a minute.
                let allDownloads =
                    changes || state.downloadsSince != since || clock &- state.downloadsRead >= HotList.maximumAge
                guard changes || allDownloads || !state.downloaded.isEmpty else { return nil }
                let downloaded = allDownloads ? nil : Array(state.downloaded)
                state.downloaded = []
                let from = state.from
                let task = Task {
                    do {
                        try await self.read(
                            changesFrom: changes ? from : nil, stamp: stamp, downloadsSince: since,
                            downloaded: downloaded, clock: clock, now: now, source: source)
                    } catch {
                        self.state.withLock { state in
                            // Read again next time.
                            state.downloaded.formUnion(downloaded ?? [])
                            state.downloadsSince = .min
                            state.reading = nil
                        }
                        throw error
                    }
                }
                state.reading = task
                return task
            }
            guard let reading else { return }
            try await reading.value
        }
    }

    private func read(
        changesFrom from: String?, stamp: Int64, downloadsSince since: Int64, downloaded: [String]?, clock: UInt64,
        now: Date, source: some Source
    ) async throws {
        var next: String?
        if let from {
            // Taken first: a transaction not finished by then is read again next time.
            next = try await source.unfinishedTransactions()
            try await source.mirrorChanges(from: from, into: catalog)
        }
        let sums = try await source.recentDownloads(since: since, of: downloaded)
        try await catalog.mirrorDownloads(sums, day: CatalogText.day(now), replacingAll: downloaded == nil)
        state.withLock { state in
            if let next {
                state.from = next
                state.stamp = max(state.stamp, stamp)
            }
            if downloaded == nil {
                state.downloadsSince = since
                state.downloadsRead = clock
            }
            state.ready = true
            state.reading = nil
        }
    }

    /// Counts a download made through this server: the next search reads that loop's downloads.
    func downloadCounted(loopID: String) {
        state.withLock { _ = $0.downloaded.insert(loopID) }
    }

    /// Closes the mirror (its files go with it).
    func close() async throws {
        let (filling, reading) = state.withLock { ($0.filling, $0.reading) }
        filling?.cancel()
        await filling?.value
        reading?.cancel()
        _ = try? await reading?.value
        try await catalog.close()
        try? FileManager.default.removeItem(atPath: folder.path)
    }
}
