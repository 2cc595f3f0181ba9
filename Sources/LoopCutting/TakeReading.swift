import Foundation
import LoopAudioFiles
import LoopFoundation
import Synchronization

/// Something measured from a take in one streaming pass of its mono samples, hop by hop.
protocol TakeMeter: SendableMetatype {
    associatedtype Reading
    /// Mono frames consumed so far.
    var framesConsumed: Int { get }
    mutating func reserve(hops: Int)
    /// Takes the samples just before the range measured (filters settle on them).
    mutating func warmUp(_ samples: UnsafeBufferPointer<Float>)
    mutating func consume(_ samples: UnsafeBufferPointer<Float>)
    mutating func finish() -> Reading
}

/// Reads a take once through a meter, in parallel ranges where the format seeks exactly.
enum TakeReading {
    /// Reads the whole file behind `reader`; the frames read and the meter's reading.
    static func read<Meter: TakeMeter>(
        _ reader: inout AudioFileReader, meter: Meter, progress: (@Sendable (Double) -> Void)?
    ) throws -> (frames: Int, reading: Meter.Reading) {
        var meter = meter
        let expected = reader.info.frameCount
        let hop = EnergyEnvelope.hopFrames(sampleRate: reader.info.sampleRate)
        meter.reserve(hops: min(expected, 8 * 3600 * reader.info.sampleRate) / hop + 2)
        var blocksSinceReport = 0
        try reader.forEachMonoBlock(blockFrames: 16_384) { mono in
            meter.consume(mono)
            blocksSinceReport += 1
            if let progress, blocksSinceReport >= 32, expected > 0 {
                blocksSinceReport = 0
                progress(min(1, Double(meter.framesConsumed) / Double(expected)))
            }
        }
        let frames = meter.framesConsumed
        guard frames > 0 else {
            throw AudioError(.emptyFile, path: reader.path, message: "the file holds no audio (zero length)")
        }
        progress?(1)
        return (frames, meter.finish())
    }

    /// Opens and reads the file at `path`: a long take in a format that seeks exactly (WAV,
    /// FLAC, AIFF) in `parallelism` ranges at once, each on its own thread and file handle and
    /// each first warming up on the 50 ms before it; the readings of the ranges in order.
    static func read<Meter: TakeMeter>(
        path: String, parallelism: Int, progress: (@Sendable (Double) -> Void)?,
        meter makeMeter: @Sendable (AudioFileInfo) throws -> Meter
    ) throws -> (info: AudioFileInfo, frames: Int, readings: [Meter.Reading]) {
        var reader = try AudioFileReader(path: path)
        let info = reader.info
        let parts = min(max(parallelism, 1), 8)
        guard parts > 1, reader.seeksExactly, info.frameCount >= 60 * info.sampleRate else {
            let (frames, reading) = try read(&reader, meter: makeMeter(info), progress: progress)
            return (info, frames, [reading])
        }
        let hop = EnergyEnvelope.hopFrames(sampleRate: info.sampleRate)
        let totalHops = (info.frameCount + hop - 1) / hop
        let hopsPerPart = (totalHops + parts - 1) / parts
        // Room for what the header announces, up to 8 hours: a file that announces more than it
        // holds ends in the truncation error, not in an allocation of its announced length.
        let reservedHops = min(hopsPerPart, 8 * 3600 * info.sampleRate / hop) + 1
        let warmUpFrames = info.sampleRate / 20
        let results = Mutex([Int: UnsafeSendable<Meter.Reading>]())
        let failure = Mutex<(any Error)?>(nil)
        let framesDone = Atomic<Int>(0)

        DispatchQueue.concurrentPerform(iterations: parts) { part in
            do {
                let start = min(info.frameCount, part * hopsPerPart * hop)
                let end = min(info.frameCount, (part + 1) * hopsPerPart * hop)
                var reader = try AudioFileReader(path: path)
                let warmUp = min(start, warmUpFrames)
                try reader.seek(toFrame: start - warmUp)
                var meter = try makeMeter(info)
                // The first part's reading has room for all of them, so that the others join it
                // without a copy of the whole (room that is never written takes no memory).
                meter.reserve(hops: part == 0 ? reservedHops * parts : reservedHops)
                try reader.forEachMonoBlock(limit: warmUp) { meter.warmUp($0) }
                var sinceReport = 0
                try reader.forEachMonoBlock(limit: end - start) { mono in
                    meter.consume(mono)
                    sinceReport += mono.count
                    if sinceReport >= 32 * 16_384 {
                        let done = framesDone.add(sinceReport, ordering: .relaxed).newValue
                        sinceReport = 0
                        progress?(min(1, Double(done) / Double(info.frameCount)))
                    }
                }
                guard meter.framesConsumed == end - start else {
                    throw AudioError(
                        .truncated, path: path, message: "the file is truncated: it ends before the length it announces"
                    )
                }
                let reading = UnsafeSendable(value: meter.finish())
                results.withLock { $0[part] = reading }
            } catch {
                failure.withLock { if $0 == nil { $0 = error } }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let readings = results.withLock { found in (0..<parts).compactMap { found[$0]?.value } }
        progress?(1)
        return (info, info.frameCount, readings)
    }
}

/// A value handed from the thread that made it to the one that joins the parts (never shared).
struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
}

/// Two pieces of work at once, on two threads; both finish before it returns.
func bothAtOnce<A, B>(_ first: @Sendable () -> A, _ second: @Sendable () -> B) -> (A, B) {
    let a = Mutex<UnsafeSendable<A>?>(nil)
    let b = Mutex<UnsafeSendable<B>?>(nil)
    DispatchQueue.concurrentPerform(iterations: 2) { index in
        if index == 0 {
            let result = UnsafeSendable(value: first())
            a.withLock { $0 = result }
        } else {
            let result = UnsafeSendable(value: second())
            b.withLock { $0 = result }
        }
    }
    guard let resultA = a.withLock({ $0 }), let resultB = b.withLock({ $0 }) else {
        preconditionFailure("concurrentPerform runs both")
    }
    return (resultA.value, resultB.value)
}

/// Two pieces of work that may fail, at once; the first error (of `first`, then `second`) is thrown.
func bothAtOnce<A, B>(_ first: @Sendable () throws -> A, _ second: @Sendable () throws -> B) throws -> (A, B) {
    let (a, b) = bothAtOnce({ Result { try first() } }, { Result { try second() } })
    return (try a.get(), try b.get())
}

/// Work on a thread of its own, started at once and joined by ``join()``: for work that must run
/// beside others whatever the thread pool is busy with (reading a second process's output,
/// which waits for its reader).
final class OwnThread<Value>: Sendable {
    private final class Outcome: Sendable {
        let result = Mutex<UnsafeSendable<Result<Value, any Error>>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }
    private let outcome = Outcome()

    init(_ work: @escaping @Sendable () throws -> Value) {
        let outcome = self.outcome
        let thread = Thread {
            let value = UnsafeSendable(value: Result { try work() })
            outcome.result.withLock { $0 = value }
            outcome.done.signal()
        }
        thread.start()
    }

    /// Waits for the work to end; its value, or what it threw (handed over: call it once).
    func join() throws -> Value {
        outcome.done.wait()
        let value = outcome.result.withLock { result in
            defer { result = nil }
            return result
        }
        guard let value else { preconditionFailure("join() is called once, after the thread sets its result") }
        return try value.value.get()
    }
}
