import Foundation
import LoopCutting

/// Finds phrases in a take while it is being read: hop levels in (dB, every 10 ms), phrase
/// starts and ends out, as soon as a pause is long enough to end a phrase.
///
/// Thresholds come from the take so far, as the offline segmenter's do: a noise floor (a low
/// percentile) and a speech level (the median of the loud part), kept in a histogram so each
/// hop costs the same however long the take. Clicks shorter than ``minimumSpeech`` are not
/// speech. A pure state machine: no clock, no audio.
public struct LivePhraseTracker: Sendable {
    /// What a hop of audio told the tracker.
    public enum Event: Sendable, Equatable {
        /// Speech began at this hop.
        case started(hop: Int)
        /// A phrase spoke from `start` to `end` (hops, end exclusive) and a pause has ended it.
        case ended(start: Int, end: Int)
    }

    /// The pause that ends a phrase, in hops, when its expected length is not known.
    public var pauseHops: Int
    /// The speech (hops) the phrase under way is expected to hold, from its text and the pace of
    /// the reading so far (see ``ReadingPace``). Known, it sets the pause that ends the phrase:
    /// ``shortPauseHops`` once most of it has been said, up to ``longPauseHops`` early in it, so
    /// that a comma or a hesitation does not end a phrase and a short pause after it does.
    public var expectedSpeechHops: Double?
    /// The pause that ends a phrase once most of its expected speech has been said, in hops.
    public var shortPauseHops = 18
    /// The pause that ends a phrase early in its expected speech, in hops.
    public var longPauseHops = 70
    /// Speech (loud hops) of the phrase under way so far.
    public private(set) var speechHops = 0
    /// Speech (loud hops) of the last phrase that ended.
    public private(set) var lastPhraseSpeechHops = 0
    /// The least speech that makes a phrase, in hops.
    public var minimumSpeech: Int

    private var histogram = [Int](repeating: 0, count: 256) // half-dB bins from -120 dB
    private var count = 0
    private var hop = 0
    private var state = State.silent
    private enum State: Equatable {
        case silent
        case speaking(start: Int, lastLoud: Int)
    }

    /// A sound shorter than this (hops) is a click: it neither starts a phrase nor ends a pause...
    public var clickHops: Int
    /// ...when this much silence (hops) parts it from the last speech.
    public var isolationHops = 10

    private var loudRunStart: Int?
    private var recent: [Float] = [0, 0, 0]
    /// Smoothed levels of the phrase under way (and the pause before it), oldest first;
    /// `historyStart` is the hop of the first.
    private var history: [Float] = []
    private var historyStart = 0

    /// A phrase that runs this many times past its expected speech (plus ``overrunSlackHops``)
    /// holds a pause the levels alone did not show: in a reverberant room the tail of each
    /// phrase fills the pause after it. It is then cut where its levels fall far below the
    /// sound around them (see ``splitOverrun()``), as the offline segmenter falls back to.
    public var overrunFactor = 1.6
    /// See ``overrunFactor``.
    public var overrunSlackHops = 40
    /// Pause measures shared with the offline segmenter (``PauseThresholds``).
    public var thresholds = PauseThresholds()

    /// A tracker; its figures are in hops (10 ms each).
    public init(pauseHops: Int = 28, minimumSpeech: Int = 15, clickHops: Int = 5) {
        self.pauseHops = pauseHops
        self.minimumSpeech = minimumSpeech
        self.clickHops = clickHops
    }

    /// The level above which a hop is speech, from the take so far (nil until it has heard
    /// enough to tell).
    public var soundThreshold: Float? {
        guard count >= 30 else { return nil }
        let floor = percentile(0.05)
        let loud = percentile(0.98)
        guard loud > -75, loud - floor > 8 else { return nil }
        let speech = max(floor, percentile(0.5, above: (floor + loud) / 2))
        let base = thresholds.floor(noiseFloor: floor, speechLevel: speech)
        return thresholds.soundThreshold(floor: base, speechLevel: speech)
    }

    /// Feeds the next hop's level; returns what it completed. Levels are smoothed over the last
    /// three hops (in power), as the offline segmenter smooths them.
    public mutating func add(_ raw: Float) -> [Event] {
        recent = [recent[1], recent[2], raw <= -120 ? 0 : Float.exp10(raw / 10)]
        let power = recent.reduce(0, +) / 3
        let level: Float = power > 1e-12 ? 10 * log10(power) : -120
        let bin = min(255, max(0, Int(((level + 120) * 2).rounded())))
        histogram[bin] += 1
        count += 1
        history.append(level)
        defer { hop += 1 }
        guard let threshold = soundThreshold else { return [] }
        // A loud hop counts once its run has lasted longer than a click.
        var sustained: Int? = nil
        if level >= threshold {
            let runStart = loudRunStart ?? hop
            loudRunStart = runStart
            if hop - runStart + 1 >= clickHops { sustained = runStart }
        } else {
            loudRunStart = nil
        }
        switch state {
        case .silent:
            // What came before the pause that precedes a phrase is not needed again.
            let keep = Int(thresholds.contrastWindow / 0.01) + 1
            if history.count > 2 * keep {
                history.removeFirst(history.count - keep)
                historyStart = hop + 1 - keep
            }
            if let runStart = sustained {
                state = .speaking(start: runStart, lastLoud: hop)
                speechHops = hop - runStart + 1
                return [.started(hop: runStart)]
            }
        case .speaking(let start, let lastLoud):
            // Close to the last speech any sound continues the phrase; after a gap it must last
            // longer than a click (a click in a pause leaves the pause whole).
            if sustained != nil || (level >= threshold && hop - lastLoud <= isolationHops) {
                state = .speaking(start: start, lastLoud: hop)
                speechHops += 1
                if let split = splitOverrun(start: start) { return split }
            } else if hop - lastLoud >= endingPauseHops {
                state = .silent
                // Too little speech: a click or a breath, not a phrase.
                if lastLoud + 1 - start >= minimumSpeech {
                    lastPhraseSpeechHops = speechHops
                    speechHops = 0
                    return [.ended(start: start, end: lastLoud + 1)]
                }
                speechHops = 0
            }
        }
        return []
    }

    /// When the phrase under way has run far past its expected speech: the deepest valley
    /// against its neighbourhood (``PauseThresholds/contrastWindow`` either side, at least
    /// ``PauseThresholds/contrastQuiet`` dB below its loudest sound) closest after where the
    /// phrase should have ended ends it there, and a new phrase starts after it.
    mutating func splitOverrun(start: Int) -> [Event]? {
        guard let expected = expectedSpeechHops,
            Double(speechHops) > expected * overrunFactor + Double(overrunSlackHops),
            hop % 10 == 0
        else { return nil } // looked for again every 0.1 s, not every hop
        let valleys = thresholds.contrastValleys(
            history, window: Int(thresholds.contrastWindow / 0.01),
            minimumHops: Int(thresholds.minimumReverberantPause / 0.01))
        let first = start - historyStart
        // Where the phrase should have ended: its expected speech after its start.
        let due = first + Int(expected)
        // The longest valley from half the expected length to twice it (a comma or a closure
        // inside the phrase is a shorter dip than the pause after it), else the nearest.
        let candidates = valleys.filter { $0.lowerBound > first + minimumSpeech && $0.upperBound < history.count - 1 }
        let plausible = candidates.filter { abs($0.lowerBound - due) <= Int(expected) }
        guard
            let valley = plausible.max(by: {
                ($0.count, -abs($0.lowerBound - due)) < ($1.count, -abs($1.lowerBound - due))
            })
                ?? candidates.min(by: { abs($0.lowerBound - due) < abs($1.lowerBound - due) })
        else { return nil }
        let end = historyStart + valley.lowerBound
        let next = historyStart + valley.upperBound
        lastPhraseSpeechHops = speechBefore(valley.lowerBound, from: first)
        speechHops = max(1, hop - next + 1)
        state = .speaking(start: next, lastLoud: hop)
        return [.ended(start: start, end: end), .started(hop: next)]
    }

    /// Hops of `history` from `first` up to `end` that were above the sound threshold.
    private func speechBefore(_ end: Int, from first: Int) -> Int {
        guard let threshold = soundThreshold, first < end else { return max(0, end - first) }
        return history[max(0, first)..<end].filter { $0 >= threshold }.count
    }

    /// The pause that ends the phrase under way now.
    public var endingPauseHops: Int {
        guard let expected = expectedSpeechHops, expected > 0 else { return pauseHops }
        let progress = Double(speechHops) / expected
        // From the short pause at 85% of the expected speech to the long one at 25% and less.
        let early = min(max((0.85 - progress) / 0.6, 0), 1)
        return shortPauseHops + Int((Double(longPauseHops - shortPauseHops) * early).rounded())
    }

    /// Forgets a phrase under way (the author re-reads it): the next speech starts afresh.
    public mutating func reset() {
        state = .silent
        speechHops = 0
    }

    /// At the end of the take: the phrase still under way, if it had enough speech.
    public mutating func finish() -> Event? {
        guard case .speaking(let start, let lastLoud) = state else { return nil }
        state = .silent
        guard lastLoud + 1 - start >= minimumSpeech else { return nil }
        lastPhraseSpeechHops = speechHops
        speechHops = 0
        return .ended(start: start, end: lastLoud + 1)
    }

    /// Whether speech is under way.
    public var isSpeaking: Bool { if case .speaking = state { true } else { false } }

    private func percentile(_ p: Double, above minimum: Float = -121) -> Float {
        let firstBin = max(0, Int(((minimum + 120) * 2).rounded(.up)))
        let total = histogram[firstBin...].reduce(0, +)
        guard total > 0 else { return minimum }
        let target = Int(Double(total - 1) * p)
        var seen = 0
        for bin in firstBin..<histogram.count {
            seen += histogram[bin]
            if seen > target { return Float(bin) / 2 - 120 }
        }
        return 0
    }
}

extension Float {
    fileprivate static func exp10(_ x: Float) -> Float { Foundation.pow(10, x) }
}
