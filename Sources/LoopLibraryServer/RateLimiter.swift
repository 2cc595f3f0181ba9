import Foundation
import Synchronization

/// Changes per author key: a token bucket each, `perMinute` tokens refilled over a minute and
/// at most that many saved up. Kept in memory by each server process.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var refilled: ContinuousClock.Instant
    }

    /// Changes a key may make a minute.
    public let perMinute: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A limiter allowing `perMinute` changes a minute per key.
    public init(perMinute: Int) {
        self.perMinute = perMinute
    }

    /// Takes a token for `key`; false when its bucket is empty (the caller answers 429).
    public func allow(_ key: String, now: ContinuousClock.Instant = .now) -> Bool {
        let capacity = Double(perMinute)
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, refilled: now)
            let elapsed = now - bucket.refilled
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(capacity, bucket.tokens + seconds * capacity / 60)
            bucket.refilled = now
            // Keys long idle are forgotten, so that a stream of new keys cannot grow the table.
            if buckets.count > 10_000 { buckets = buckets.filter { now - $0.value.refilled < .seconds(60) } }
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return true
        }
    }
}
