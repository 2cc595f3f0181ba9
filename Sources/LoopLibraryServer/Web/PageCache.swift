import Foundation
import Synchronization

/// Rendered pages, kept while the catalog has not changed since they were made.
///
/// A page is good while the catalog's change stamp (``Catalog/changeStamp()``) is the one it
/// was made at, which every server sharing a catalog reads, so a publish through any of them
/// renews every page at once; and for at most ``maximumAge``, since downloads (the Hot list,
/// the counts) change without a stamp. Bounded: when full, it starts again empty.
final class PageCache: Sendable {
    struct Page: Sendable {
        var status: Int
        var body: Data
        var eTag: String
        var stamp: Int64
        var made: UInt64
    }

    static let maximumAge: UInt64 = 60_000_000_000
    let capacity: Int
    private let pages = Mutex<[String: Page]>([:])

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The page kept under `key`, if it was made at `stamp` and is young enough.
    func page(_ key: String, stamp: Int64) -> Page? {
        let now = DispatchTime.now().uptimeNanoseconds
        return pages.withLock { pages in
            guard let page = pages[key], page.stamp == stamp, now &- page.made < Self.maximumAge else { return nil }
            return page
        }
    }

    func keep(_ page: Page, as key: String) {
        pages.withLock { pages in
            if pages.count >= capacity { pages.removeAll(keepingCapacity: true) }
            pages[key] = page
        }
    }
}
