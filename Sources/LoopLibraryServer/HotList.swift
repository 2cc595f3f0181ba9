import Foundation
import Synchronization

/// The loops downloaded in the last days, most downloaded first, with the words a search looks
/// in: read once and kept for the searches in Hot's order, which each read them all (at 100,000
/// loops, reading them again for every search took most of its 5-7 ms, their rows scattered
/// over pages SQLite's cache does not hold).
///
/// A kept list is used while the catalog's change stamp and the first day counted are the ones
/// it was read at, until this server counts a download, and for at most a minute (as the
/// searches and pages the server keeps). A list larger than ``byteLimit`` is not kept: each
/// search then reads it as before.
final class HotList: Sendable {
    /// A loop downloaded in the last days.
    struct Loop: Sendable {
        /// Its place in the newest-first order, and its downloads in the last days.
        var position: Int64
        var recent: Int
        /// `" " + title`, folded, as UTF-8: a term starts one of its words where `" " + term`
        /// is in it (as the catalog's SQL asks with `instr`).
        var title: [UInt8]
        /// `" " + title + " " + body`, likewise.
        var words: [UInt8]

        /// Whether each of `starts` (`" " + term`, UTF-8) is in `text`, byte for byte as
        /// SQLite's `instr` compares (UTF-8 is self-synchronizing, so a match of bytes is a
        /// match of characters).
        static func holds(_ text: [UInt8], _ starts: [[UInt8]]) -> Bool {
            text.withUnsafeBytes { text in
                starts.allSatisfy { start in start.withUnsafeBytes { Self.find($0, in: text) } }
            }
        }

        /// Whether `needle` is in `text`: its second byte looked for with `memchr` (its first,
        /// a space, is everywhere), then the whole compared.
        private static func find(_ needle: UnsafeRawBufferPointer, in text: UnsafeRawBufferPointer) -> Bool {
            guard !needle.isEmpty else { return true }
            guard needle.count <= text.count, let base = text.baseAddress, let bytes = needle.baseAddress else {
                return false
            }
            let key = needle.count > 1 ? 1 : 0
            // The first place the needle could start, and one past the last.
            var start = 0
            let end = text.count - needle.count + 1
            while start < end {
                guard let found = memchr(base + start + key, Int32(needle[key]), end - start) else { return false }
                let candidate = base.distance(to: UnsafeRawPointer(found)) - key
                if memcmp(base + candidate, bytes, needle.count) == 0 { return true }
                start = candidate + 1
            }
            return false
        }
    }

    /// `loops` in the two ranks of a search for `terms` (folded, as the catalog's words are):
    /// those whose title holds every term, each the start of one of its words, then those
    /// whose words do and whose title does not; each in the list's order.
    static func ranks(of loops: [Loop], terms: [String]) -> [[Loop]] {
        let starts = terms.map { Array((" " + $0).utf8) }
        return [
            loops.filter { Loop.holds($0.title, starts) },
            loops.filter { Loop.holds($0.words, starts) && !Loop.holds($0.title, starts) },
        ]
    }

    /// A list read one loop at a time, until its words pass ``HotList/byteLimit``.
    struct Reading {
        /// The loops read; nil once they are too many to keep.
        private(set) var loops: [Loop]? = []
        private var bytes = 0

        /// Adds the loop at `position` with `recent` downloads, whose words are `title` then
        /// `rest` (each folded, its words joined by spaces); false once the list is too large
        /// (the rest need not be read).
        mutating func add(position: Int64, recent: Int, title: String, rest: String) -> Bool {
            let loop = Loop(
                position: position, recent: recent, title: Array((" " + title).utf8),
                words: Array((" " + title + " " + rest).utf8))
            bytes += loop.title.count + loop.words.count + 64
            guard bytes <= HotList.byteLimit else {
                loops = nil
                return false
            }
            loops?.append(loop)
            return true
        }
    }

    /// What a list was read for: the catalog's change stamp and the first day counted.
    struct Key: Equatable, Sendable {
        var stamp: Int64
        var since: Int64
    }

    /// What a list's loops may hold in all before it is not kept.
    static let byteLimit = 4 << 20
    /// How long a list is kept at most, in nanoseconds.
    static let maximumAge: UInt64 = 60_000_000_000

    private struct Kept {
        var key: Key
        var read: UInt64
        /// Nil when the list was larger than ``HotList/byteLimit``.
        var loops: [Loop]?
    }
    private struct State {
        var kept: Kept?
        /// Counted up at each download counted.
        var downloads = 0
    }
    private let state = Mutex(State())

    /// The downloads counted so far: taken before a read begins, and given back to
    /// ``keep(_:for:downloads:read:)`` and ``kept(for:downloads:)``, so that a list read before a
    /// download is neither kept nor used after it.
    var downloads: Int { state.withLock { $0.downloads } }

    /// Whether a list is kept, read less than a minute ago (``kept(for:downloads:)`` may still
    /// find it read at another change stamp): a search in Hot's order will then most likely
    /// read no hot loop.
    var holdsList: Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            guard let kept = state.kept, kept.loops != nil else { return false }
            return now &- kept.read < Self.maximumAge
        }
    }

    /// Forgets the list: a download was counted (and committed).
    func downloadCounted() {
        state.withLock { state in
            state.downloads += 1
            state.kept = nil
        }
    }

    /// The list kept for `key`: `.some(nil)` when it was too large to keep; nil when none is
    /// kept for it, it is too old, or a download was counted since `downloads` was taken (a
    /// search reading an older snapshot would otherwise mix its own reads with a list newer
    /// than them).
    func kept(for key: Key, downloads: Int) -> [Loop]?? {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            guard state.downloads == downloads, let kept = state.kept, kept.key == key,
                now &- kept.read < Self.maximumAge
            else { return nil }
            return .some(kept.loops)
        }
    }

    /// Keeps `loops` (nil: too large) read for `key`, unless a download was counted since
    /// `downloads` was taken.
    func keep(_ loops: [Loop]?, for key: Key, downloads: Int, read: UInt64) {
        state.withLock { state in
            guard state.downloads == downloads else { return }
            state.kept = Kept(key: key, read: read, loops: loops)
        }
    }
}
