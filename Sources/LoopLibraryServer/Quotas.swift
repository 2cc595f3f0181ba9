import Foundation
import Hummingbird
import LoopFoundation
import NIOCore
import Synchronization

/// What one author key may publish: loops listed at once and bundle bytes a day (UTC). A key
/// in its first days (``newKeyDays``) gets a small share, so that a stream of self-made keys
/// cannot fill the disk; an author who stays earns the full quota.
public struct KeyQuota: Sendable, Equatable {
    /// Loops a key may have listed at once.
    public var loops: Int
    /// Bundle bytes a key may publish a day (UTC).
    public var bytesPerDay: Int
    /// A key is new for this many days after its first publish.
    public var newKeyDays: Int
    /// Loops a new key may have listed at once.
    public var newKeyLoops: Int
    /// Bundle bytes a new key may publish a day.
    public var newKeyBytesPerDay: Int

    /// A quota; a new key's share is never more than the full one.
    public init(
        loops: Int = 500, bytesPerDay: Int = 2 << 30, newKeyDays: Int = 7, newKeyLoops: Int = 20,
        newKeyBytesPerDay: Int = 200 << 20
    ) {
        self.loops = loops
        self.bytesPerDay = bytesPerDay
        self.newKeyDays = newKeyDays
        self.newKeyLoops = min(newKeyLoops, loops)
        self.newKeyBytesPerDay = min(newKeyBytesPerDay, bytesPerDay)
    }

    /// Refuses a publish of `bytes` by a key that has used `usage`, when it would go past the
    /// key's quota: a new loop past its loops, or past its bytes of the day.
    public func check(_ usage: KeyUsage, bytes: Int, now: Date) throws(PublishError) {
        let isNew = usage.firstPublished.map { now.timeIntervalSince($0) < TimeInterval(newKeyDays) * 86_400 } ?? true
        let loops = isNew ? newKeyLoops : loops
        let bytesPerDay = isNew ? newKeyBytesPerDay : bytesPerDay
        let which = isNew ? "a key in its first \(newKeyDays) days" : "a key"
        if !usage.holdsLoop, usage.listedLoops >= loops {
            LibraryMetrics.quotaHit("keyLoops")
            throw PublishError(
                .quota,
                "\(which) may list at most \(loops) loops here, and this one lists \(usage.listedLoops): unpublish one first"
            )
        }
        if usage.bytesToday + bytes > bytesPerDay {
            LibraryMetrics.quotaHit("keyBytes")
            throw PublishError(
                .quota,
                "\(which) may publish at most \(Self.mebibytes(bytesPerDay)) a day here; this one published \(Self.mebibytes(usage.bytesToday)) today, and this bundle is \(Self.mebibytes(bytes)): try again tomorrow (UTC)"
            )
        }
    }

    static func mebibytes(_ bytes: Int) -> String {
        bytes < 1 << 20 && bytes > 0 ? "\(max(1, bytes >> 10)) KiB" : "\(bytes >> 20) MiB"
    }
}

/// Bytes uploaded by each client address today (UTC), kept by each server process: a cap on
/// what one address can send, whatever keys it makes.
final class AddressBudget: Sendable {
    let bytesPerDay: Int
    private let used = Mutex<(day: Int64, bytes: [String: Int])>((0, [:]))

    init(bytesPerDay: Int) {
        self.bytesPerDay = bytesPerDay
    }

    /// Takes `bytes` from `address`'s allowance of the day; false (taking nothing) when it
    /// would go past it.
    func take(_ bytes: Int, from address: String, now: Date) -> Bool {
        let day = Int64(now.timeIntervalSince1970 / 86_400)
        return used.withLock { used in
            if used.day != day { used = (day, [:]) }
            let total = (used.bytes[address] ?? 0) + bytes
            guard total <= bytesPerDay else { return false }
            used.bytes[address] = total
            return true
        }
    }

    /// Gives back what `take` took for an upload that was not kept.
    func giveBack(_ bytes: Int, to address: String) {
        used.withLock { used in
            guard let current = used.bytes[address] else { return }
            used.bytes[address] = max(0, current - bytes)
        }
    }
}

/// A count of things in use (uploads being received, open connections) with a cap.
final class Slots: Sendable {
    let limit: Int
    private let used = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    var inUse: Int { used.load(ordering: .relaxed) }

    /// Takes a slot; false (taking none) when all are in use.
    func take() -> Bool {
        while true {
            let current = used.load(ordering: .relaxed)
            guard current < limit else { return false }
            if used.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing).exchanged
            {
                return true
            }
        }
    }

    func giveBack() {
        used.subtract(1, ordering: .acquiringAndReleasing)
    }
}

/// Closes each connection past the server's cap as soon as it is accepted, so that the
/// connections held (honest or not) never reach the open-file limit.
final class ConnectionCap: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    let slots: Slots
    let refused: @Sendable () -> Void
    private let holds = Atomic<Bool>(false)

    init(slots: Slots, refused: @escaping @Sendable () -> Void) {
        self.slots = slots
        self.refused = refused
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if slots.take() {
            holds.store(true, ordering: .relaxed)
        } else {
            refused()
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if holds.exchange(false, ordering: .relaxed) { slots.giveBack() }
    }
}

/// How fast a request's body comes, counted over the time spent waiting for it (not the time
/// the server itself takes to write what came): below ``minimumBytesPerSecond`` over a window,
/// it is too slow, as a head that takes longer than the idle timeout is.
final class BodyRate: Sendable {
    /// The slowest a body may come: a trickle below it holds a connection and an upload slot.
    static let minimumBytesPerSecond = 512

    private struct State {
        var waited = 0.0
        var bytes = 0
        var waitingSince: UInt64?
        var stopped = false
    }

    private let window: Double
    private let state = Mutex(State())

    init(window: Double) { self.window = window }

    /// Whether the body was found too slow (its connection is closed).
    var stopped: Bool { state.withLock { $0.stopped } }

    func startWaiting() {
        state.withLock { $0.waitingSince = DispatchTime.now().uptimeNanoseconds }
    }

    func stopWaiting(received bytes: Int) {
        state.withLock { state in
            if let since = state.waitingSince {
                state.waited += Double(DispatchTime.now().uptimeNanoseconds &- since) / 1e9
            }
            state.waitingSince = nil
            state.bytes += bytes
        }
    }

    /// Whether, over the last window of waiting, fewer bytes came than the minimum rate asks;
    /// a window that passes the rate starts the next one.
    func isTooSlow() -> Bool {
        state.withLock { state in
            let now = DispatchTime.now().uptimeNanoseconds
            let waited = state.waited + (state.waitingSince.map { Double(now &- $0) / 1e9 } ?? 0)
            guard waited >= window else { return false }
            if Double(state.bytes) < Double(Self.minimumBytesPerSecond) * waited {
                state.stopped = true
                return true
            }
            state.waited = 0
            state.bytes = 0
            if state.waitingSince != nil { state.waitingSince = now }
            return false
        }
    }
}
