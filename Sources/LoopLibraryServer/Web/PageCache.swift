import Foundation
import Metrics
import Synchronization

/// Rendered pages, kept while the catalog has not changed since they were made.
///
/// A page is good while the catalog's change stamp (``Catalog/changeStamp()``) is the one it
/// was made at, which every server sharing a catalog reads, so a publish through any of them
/// renews every page at once; and for at most ``maximumAge``, since downloads (the Hot list,
/// the counts) change without a stamp. A page is rendered once however many requests want it
/// at the same moment. Bounded by the bytes it keeps: when full, it forgets its oldest pages
/// until a quarter of its room is free.
final class PageCache: Sendable {
    struct Page: Sendable {
        var status: Int
        /// The page with an empty `<style></style>` (the stylesheet is written in as it is
        /// sent); nil once it is kept deflated.
        var body: Data?
        /// Where in `body` the stylesheet goes, if the page has a `<style>`.
        var styleOffset: Int?
        /// The page deflated (its stylesheet joined in as it is sent): kept, in place of `body`,
        /// once a client that takes gzip (any browser) asked for the page; a client that never
        /// does costs no compression.
        var deflated: DeflatedPage?
        /// The whole page's length, its stylesheet in (what its gzipped form inflates to).
        var length = 0
        var eTag: String
        var stamp: Int64
        /// When the cache kept it, by its clock (set as it is kept).
        var made: UInt64 = 0

        /// What keeping it costs.
        var bytes: Int { (body?.count ?? 0) + (deflated?.bytes ?? 0) }
    }

    /// A page is made again after a minute (nanoseconds) at most: downloads change the Hot
    /// list and the counts without moving the stamp.
    static let maximumAge: UInt64 = 60_000_000_000

    /// What the server's caches keep, in bytes (docs/speed.md measured them): 40 MiB of pages,
    /// thousands of loops' pages (about 6 KB each; a third of that deflated) and the front
    /// pages; the peak memory goal (< 150 MiB) is met with it on SQLite at 100,000 loops.
    static let pagesBytes = 40 << 20
    /// 8 MiB of loops' details (the API's JSON, smaller and asked less than pages).
    static let detailsBytes = 8 << 20
    /// 4 MiB of searches' answers (each asked again is kept; most are asked once).
    static let searchesBytes = 4 << 20
    /// How long a stamp read is trusted by a server alone on its catalog (nanoseconds: 50 ms).
    /// Read for every page, the stamp cost more than the rest of a kept page; a change through
    /// this server is seen at once, one by an operator's command within this.
    static let stampLifetimeAlone: UInt64 = 50_000_000

    private struct State {
        var pages: [String: Page] = [:]
        var bytes = 0
        /// The keys in the order their pages were kept, each with when its page was made: the
        /// oldest are forgotten first. An entry whose page was kept again or forgotten since
        /// (another `made`) is passed over; from `oldest` on, the entries not yet looked at.
        var order: [(key: String, made: UInt64)] = []
        var oldest = 0
        /// Renders under way, by key: the requests that want the same page wait for one.
        var rendering: [String: (id: Int, stamp: Int64, task: Task<Page, any Error>)] = [:]
        var nextID = 0

        /// Keeps `page` under `key`, in place of any page kept there.
        mutating func keep(_ page: Page, as key: String) {
            bytes += PageCache.cost(key, page) - (pages[key].map { PageCache.cost(key, $0) } ?? 0)
            pages[key] = page
            order.append((key, page.made))
            // Pages kept again and again (every page renewed after each publish) leave entries
            // passed over: dropped once they are as many as the pages.
            if order.count - oldest > 2 * pages.count + 64 {
                order = order[oldest...].filter { pages[$0.key]?.made == $0.made }
                oldest = 0
            }
        }

        /// When `bytes` more would pass `limit`, forgets the oldest pages until a quarter of
        /// `limit` is free; returns them, for the caller to let go of once it holds the lock no
        /// more. (Forgetting half the pages at random took 9 ms at 8,000 pages, a random number
        /// asked of the system for each, and every request for a page waited on the lock.)
        mutating func makeRoom(for bytes: Int, within limit: Int) -> [Page] {
            guard self.bytes + bytes > limit else { return [] }
            var forgotten: [Page] = []
            while self.bytes + bytes > limit - limit / 4, oldest < order.count {
                let (key, made) = order[oldest]
                oldest += 1
                guard let page = pages[key], page.made == made else { continue }
                pages[key] = nil
                self.bytes -= PageCache.cost(key, page)
                forgotten.append(page)
            }
            if oldest > order.count / 2 {
                order.removeFirst(oldest)
                oldest = 0
            }
            return forgotten
        }
    }

    let byteLimit: Int
    private let state = Mutex(State())
    /// What `/metrics` shows of it: the bytes and pages kept.
    private let keptBytes: Metrics.Gauge, keptPages: Metrics.Gauge
    /// The catalog's change stamp as last read, and when.
    private let lastStamp = Mutex<(stamp: Int64, read: UInt64)?>(nil)

    /// How long a stamp read is trusted, in nanoseconds.
    let stampLifetime: UInt64
    /// The time, in nanoseconds from any fixed point (the system's uptime; a test's own clock).
    private let now: @Sendable () -> UInt64

    /// `stampLifetime`: 0 where other servers change the catalog (each page then asks for the
    /// stamp: a publish through one server is on every server's pages as soon as it is known).
    /// `now` tells the time (nanoseconds, any fixed start).
    init(
        name: String, byteLimit: Int = pagesBytes, stampLifetime: UInt64 = stampLifetimeAlone,
        now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
    ) {
        self.byteLimit = byteLimit
        self.stampLifetime = stampLifetime
        self.now = now
        keptBytes = Metrics.Gauge(label: "loop_library_page_cache_bytes", dimensions: [("cache", name)])
        keptPages = Metrics.Gauge(label: "loop_library_page_cache_pages", dimensions: [("cache", name)])
    }

    /// What keeping `page` under `key` costs: the page, and its key (a key is what the request
    /// named, and may be long).
    static func cost(_ key: String, _ page: Page) -> Int { page.bytes + key.utf8.count }

    /// Shows the bytes and pages kept in `/metrics`.
    private func report(_ state: State) {
        keptBytes.record(state.bytes)
        keptPages.record(state.pages.count)
    }

    /// The page kept under `key` if it was made at `stamp` and is young enough; else the one
    /// `render` makes (started by the first request to want it), kept if its status is 200.
    func page(_ key: String, stamp: Int64, render: @escaping @Sendable () async throws -> Page) async throws -> Page {
        let now = now()
        let (kept, id, task): (Page?, Int, Task<Page, any Error>?) = state.withLock { state in
            if let page = state.pages[key], page.stamp == stamp, now &- page.made < Self.maximumAge {
                return (page, 0, nil)
            }
            if let running = state.rendering[key], running.stamp == stamp { return (nil, running.id, running.task) }
            state.nextID += 1
            let task = Task { try await render() }
            state.rendering[key] = (state.nextID, stamp, task)
            return (nil, state.nextID, task)
        }
        if let kept { return kept }
        guard let task else { preconditionFailure("a page neither kept nor rendering") }
        do {
            let page = try await task.value
            keep(page, as: key, renderID: id)
            return page
        } catch {
            state.withLock { state in
                if state.rendering[key]?.id == id { state.rendering[key] = nil }
            }
            throw error
        }
    }

    /// The catalog's change stamp (`read`), read at most every `stampLifetime` (50 ms on
    /// SQLite, ``stampLifetimeAlone``): at thousands of pages a second the read was a tenth of a kept page's cost. A
    /// change made through this server is seen at once (``forgetStamp()``), one made by an
    /// operator's command within 50 ms; on a catalog shared by several servers the stamp is
    /// asked of the catalog for every page (PostgreSQL's announces its changes, so asking it
    /// costs no round trip while it listens).
    func stamp(read: () async throws -> Int64) async throws -> Int64 {
        let now = now()
        if let last = lastStamp.withLock({ $0 }), now &- last.read < stampLifetime { return last.stamp }
        let stamp = try await read()
        lastStamp.withLock { $0 = (stamp, now) }
        return stamp
    }

    /// The page kept under `key`, and the bytes kept in all (what `/metrics` shows).
    func kept(_ key: String) -> (page: Page?, bytes: Int) {
        state.withLock { ($0.pages[key], $0.bytes) }
    }

    /// How many entries the order of pages holds (what a test checks stays bounded).
    var remembered: Int { state.withLock { $0.order.count - $0.oldest } }

    /// Forgets every page kept (a count they show changed without the stamp moving).
    func removeAll() {
        let forgotten = state.withLock { state in
            defer {
                state.pages = [:]
                state.order = []
                state.oldest = 0
                state.bytes = 0
                report(state)
            }
            return state.pages
        }
        withExtendedLifetime(forgotten) {} // (let go of here, the lock released)
    }

    /// Forgets the stamp read, after a change made through this server.
    func forgetStamp() {
        lastStamp.withLock { $0 = nil }
    }

    /// Keeps `deflated` in place of the page kept under `key`, if that is still the page `eTag`
    /// names: a page is asked for gzipped by every browser, and deflated it is a third of its
    /// size (a client that does not take gzip gets it inflated).
    func keepDeflated(_ deflated: DeflatedPage, for key: String, eTag: String) {
        let forgotten = state.withLock { state -> [Page] in
            guard let kept = state.pages[key], kept.eTag == eTag, kept.deflated == nil else { return [] }
            var page = kept
            page.deflated = deflated
            page.body = nil
            let growth = Self.cost(key, page) - Self.cost(key, kept) // (a page that barely compresses)
            var forgotten: [Page] = []
            if growth > 0 {
                forgotten = state.makeRoom(for: growth, within: byteLimit)
                guard state.pages[key] != nil else { return forgotten } // forgotten to make room
            }
            state.bytes += growth
            state.pages[key] = page // (the same page, made when it was: its place in `order` holds)
            report(state)
            return forgotten
        }
        withExtendedLifetime(forgotten) {} // (let go of here, the lock released)
    }

    private func keep(_ page: Page, as key: String, renderID: Int) {
        var page = page
        page.made = now()
        let forgotten = state.withLock { state -> [Page] in
            guard state.rendering[key]?.id == renderID else { return [] } // kept by another waiter already
            state.rendering[key] = nil
            guard page.status == 200 else { return [] } // a 404 for any path asked is not worth the room
            let growth = Self.cost(key, page) - (state.pages[key].map { Self.cost(key, $0) } ?? 0)
            let forgotten = state.makeRoom(for: growth, within: byteLimit)
            state.keep(page, as: key)
            report(state)
            return forgotten
        }
        withExtendedLifetime(forgotten) {} // (let go of here, the lock released)
    }
}
