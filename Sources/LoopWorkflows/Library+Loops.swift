import Foundation
import LoopFoundation
import LoopModel
import LoopStore
import LoopStudy
import LoopText

// The loops of a library: found, shown, listed, searched, removed; the library checked and
// its unused files collected.

/// Which loops to list, and how many.
public struct ListRequest: Sendable {
    /// The orders the library lists its loops in.
    public var sort: LoopSort = .title
    /// Only loops in this language, or with this tag (case and accents aside).
    public var language: String?, tag: String?
    /// At most this many (nil: all).
    public var limit: Int?

    /// A listing in `sort` order, of `language` or `tag` only when given, `limit` at most.
    public init(sort: LoopSort = .title, language: String? = nil, tag: String? = nil, limit: Int? = nil) {
        (self.sort, self.language, self.tag, self.limit) = (sort, language, tag, limit)
    }

    /// The limits a listing takes.
    public static let limits = 1...1_000_000

    /// Refuses a limit out of ``limits`` or a language tag that is not one.
    public func check() throws(RequestProblem) {
        if let limit {
            try RequestProblem.check(
                !Self.limits.contains(limit), RequestProblem("{limit} takes 1 to 1000000, not \(limit)"))
        }
    }
}

/// Loops listed: those asked for, and how many more there are past the limit.
public struct LoopList: Sendable {
    /// The loops listed.
    public var loops: [LoopSummary]
    /// Loops left out by the limit.
    public var more: Int
}

/// Which phrases to find.
public struct SearchRequest: Sendable {
    /// Words, each the start of a word of a phrase or its translation (case and accents aside).
    public var words: String
    /// Only in this loop (a reference: id, start of id or of title).
    public var loop: String?
    /// The most phrases found.
    public var limit: Int

    /// A search for `words` (case- and diacritic-insensitive), in `loop` only when given.
    public init(words: String, loop: String? = nil, limit: Int = 50) {
        (self.words, self.loop, self.limit) = (words, loop, limit)
    }

    /// Refuses a search with no words or a limit of none.
    public func check() throws(RequestProblem) {
        try RequestProblem.check(
            !(1...10_000).contains(limit), RequestProblem("{limit} takes 1 to 10000, not \(limit)"))
    }
}

/// What the library's check found, and what the repair before it did.
public struct LibraryCheck: Sendable {
    /// What the check found.
    public var report: HealthReport
    /// Reviews removed before the check, and the groups scheduled again (with `repair`).
    public var repaired: (reviews: Int, groups: Int)?
    /// Recordings a crash or an interruption left, to recover.
    public var interrupted: [UnsavedRecording]
}

/// A recording a crash or an interruption left in the library, to be saved with `recover`.
public struct UnsavedRecording: Sendable {
    /// The loop it was recording for.
    public var loopId: String
    /// How long it is.
    public var seconds: Double
}

extension Library {
    /// The id of the loop `reference` names: an id, a start of it, a title or a start of it.
    public func resolve(_ reference: String) throws -> String { try store.resolve(reference) }

    /// The loop `reference` names, whole.
    public func loop(_ reference: String) throws -> LoopDetail { try store.loop(id: try resolve(reference)) }

    /// The loops `request` asks for, and how many more there are.
    public func loops(_ request: ListRequest) throws -> LoopList {
        let loops = try store.loops(
            language: request.language, tag: request.tag, sort: request.sort, limit: request.limit)
        var more = 0
        if let limit = request.limit, loops.count == limit {
            more = max(0, try store.loopCount(language: request.language, tag: request.tag) - loops.count)
        }
        return LoopList(loops: loops, more: more)
    }

    /// The phrases that hold every word of the request (case and diacritics folded), best first.
    public func search(_ request: SearchRequest) throws -> [SearchHit] {
        let loopId = try request.loop.map { try resolve($0) }
        return try store.search(request.words, inLoop: loopId, limit: request.limit)
    }

    /// Removes the loop `reference` names, once `confirm` (given the loop) says so; its audio
    /// goes at the next ``collectGarbage()``. Whether it was removed.
    @discardableResult
    public func remove(_ reference: String, confirm: (LoopDetail) throws -> Bool) throws -> Bool {
        let loop = try loop(reference)
        guard try confirm(loop) else { return false }
        try store.remove(loop: loop.summary.id)
        return true
    }

    /// Removes audio and pictures no loop refers to, and leftovers of interrupted work (off the
    /// caller's thread: it walks every file).
    public func collectGarbage() async throws -> GarbageReport {
        try await work("loop gc") { try $0.collectGarbage() }
    }

    /// Checks the database and every file it refers to (off the caller's thread); with
    /// `repair`, first removes the reviews dated after today (made while the clock was wrong)
    /// and schedules their groups again.
    public func check(repair: Bool, now: Date = Date(), progress: (@Sendable (Double) -> Void)? = nil) async throws
        -> LibraryCheck
    {
        let repaired =
            repair
            ? try await work("loop repair") { try $0.removeReviewsOutOfTime(now: now, replay: ReviewSettings.replay) }
            : nil
        let report = try await work("loop doctor") { try $0.check(now: now, progress: progress) }
        return LibraryCheck(report: report, repaired: repaired, interrupted: interruptedRecordings())
    }

    /// The text at `path` (`-`: standard input) split into groups and phrases, as a loop's is.
    public static func readText(_ path: String, splitSentences: Bool) throws -> LoopSource {
        try LoopSource(contentsOf: path, options: .init(splitSentences: splitSentences))
    }
}
