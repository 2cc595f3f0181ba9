import Foundation
import Synchronization
import Testing

@testable import LoopLibraryServer

/// The pages a server keeps, and what keeping them costs.
struct PageCacheTests {
    static func page(_ body: Data, eTag: String) -> PageCache.Page {
        PageCache.Page(
            status: 200, body: body, styleOffset: nil, deflated: nil, length: body.count, eTag: eTag, stamp: 1)
    }

    /// Every browser asks for pages gzipped: once one has, the page is kept gzipped only (a
    /// third of its size), so the cache holds three times the pages.
    @Test func aPageAskedForGzippedIsKeptInThatFormOnly() async throws {
        let cache = PageCache(name: "test")
        let body = Data(String(repeating: "<li>a phrase</li>\n", count: 300).utf8)
        let key = "http://localhost/9ddbb9"
        _ = try await cache.page(key, stamp: 1) { Self.page(body, eTag: "\"a\"") }
        #expect(cache.kept(key).bytes == body.count + key.utf8.count)

        let deflated = DeflatedPage(beforeStyle: try #require(DeflatedPart(body, level: .fast)), crc: 0)
        // The deflated form of another version of the page is not kept in its place.
        cache.keepDeflated(deflated, for: key, eTag: "\"b\"")
        #expect(cache.kept(key).page?.body == body)
        cache.keepDeflated(deflated, for: key, eTag: "\"a\"")
        let kept = cache.kept(key)
        #expect(
            kept.page?.body == nil && kept.page?.deflated?.bytes == deflated.bytes && kept.page?.length == body.count)
        #expect(kept.bytes == deflated.bytes + key.utf8.count, "\(kept.bytes) bytes kept, \(deflated.bytes) deflated")
        #expect(deflated.bytes * 3 < body.count)
    }

    /// A page whose deflated form is larger than it (bytes that do not compress) still keeps
    /// the cache within its budget.
    @Test func aDeflatedFormLargerThanItsPageKeepsTheCacheWithinItsBudget() async throws {
        let cache = PageCache(name: "test", byteLimit: 4_000)
        for index in 0..<20 {
            let key = "/\(index)"
            _ = try await cache.page(key, stamp: 1) { Self.page(Data(repeating: 0x61, count: 150), eTag: "\"a\"") }
            let random = Data((0..<400).map { _ in UInt8.random(in: 0...255) }) // (does not compress)
            cache.keepDeflated(
                DeflatedPage(beforeStyle: try #require(DeflatedPart(random, level: .fast)), crc: 0), for: key,
                eTag: "\"a\"")
            #expect(cache.kept(key).bytes <= 4_000)
        }
    }

    /// A full cache forgets its oldest pages first (the nearest to going stale), until a
    /// quarter of its room is free; a page kept again counts from then.
    @Test func aFullCacheForgetsItsOldestPagesFirst() async throws {
        let body = Data(repeating: 0x61, count: 96)
        let cost = body.count + "/00".utf8.count
        let cache = PageCache(name: "test", byteLimit: 10 * cost)
        func keep(_ index: Int, stamp: Int64 = 1) async throws {
            let key = "/" + (index < 10 ? "0" : "") + String(index)
            _ = try await cache.page(key, stamp: stamp) {
                var page = Self.page(body, eTag: "\"\(index)\"")
                page.stamp = stamp
                return page
            }
        }
        for index in 0..<10 { try await keep(index) }
        try await keep(0, stamp: 2) // rendered again: now the newest
        #expect(cache.kept("/00").bytes == 10 * cost)
        try await keep(10)
        // Room made for it: the oldest four forgotten (/01 to /04), the rest kept.
        let kept = (0...10).map { cache.kept("/" + ($0 < 10 ? "0" : "") + String($0)).page != nil }
        #expect(kept == [true, false, false, false, false] + Array(repeating: true, count: 6), "\(kept)")
        #expect(cache.kept("/10").bytes == 7 * cost)
    }

    /// Pages renewed again and again (each publish renews every page) do not make what the
    /// cache remembers of their order grow without end.
    @Test func pagesKeptAgainAndAgainLeaveTheCacheItsSize() async throws {
        let cache = PageCache(name: "test")
        for stamp in 1...2_000 {
            _ = try await cache.page("/a", stamp: Int64(stamp)) {
                var page = Self.page(Data("a".utf8), eTag: "\"a\"")
                page.stamp = Int64(stamp)
                return page
            }
        }
        #expect(cache.remembered <= 2 + 64)
    }

    /// A clock a test moves.
    final class TestClock: Sendable {
        private let nanoseconds = Atomic<UInt64>(1)
        func advance(seconds: Double) { nanoseconds.add(UInt64(seconds * 1e9), ordering: .relaxed) }
        var now: @Sendable () -> UInt64 { { self.nanoseconds.load(ordering: .relaxed) } }
    }

    /// A page stands while the catalog's stamp does, for a minute at most (downloads change the
    /// Hot list without the stamp); a page of another stamp is made again at once.
    @Test func aPageIsMadeAgainWhenTheCatalogChangesOrAMinuteHasPassed() async throws {
        let clock = TestClock()
        let cache = PageCache(name: "test", now: clock.now)
        let renders = Atomic<Int>(0)
        func visit(stamp: Int64) async throws {
            _ = try await cache.page("/", stamp: stamp) {
                renders.add(1, ordering: .relaxed)
                var page = Self.page(Data("front".utf8), eTag: "\"a\"")
                page.stamp = stamp
                return page
            }
        }
        try await visit(stamp: 1)
        clock.advance(seconds: 59)
        try await visit(stamp: 1)
        #expect(renders.load(ordering: .relaxed) == 1, "kept within the minute")
        clock.advance(seconds: 2)
        try await visit(stamp: 1)
        #expect(renders.load(ordering: .relaxed) == 2, "made again after it")
        try await visit(stamp: 2)
        #expect(renders.load(ordering: .relaxed) == 3, "made again when the catalog changed")
    }

    /// A server alone on its catalog reads the stamp at most every 50 ms; one sharing its
    /// catalog, for every page; a change made through the server is seen at once.
    @Test func theStampIsReadAtMostEveryItsLifetime() async throws {
        let clock = TestClock()
        let reads = Atomic<Int>(0)
        let read: () async throws -> Int64 = { Int64(reads.add(1, ordering: .relaxed).newValue) }
        let alone = PageCache(name: "test", now: clock.now)
        #expect(try await alone.stamp(read: read) == 1)
        clock.advance(seconds: 0.04)
        #expect(try await alone.stamp(read: read) == 1, "trusted for 50 ms")
        clock.advance(seconds: 0.02)
        #expect(try await alone.stamp(read: read) == 2)
        alone.forgetStamp()
        #expect(try await alone.stamp(read: read) == 3, "a change through this server: read at once")

        let shared = PageCache(name: "test", stampLifetime: 0, now: clock.now)
        #expect(try await shared.stamp(read: read) == 4)
        #expect(try await shared.stamp(read: read) == 5)
    }
}
