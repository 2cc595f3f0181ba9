import Foundation
import LoopFoundation

/// The take's levels and every pause that could separate two phrases.
///
/// All thresholds come from the recording itself: the noise floor is a low percentile of the
/// smoothed envelope, the speech level the median of its loud part, and silence is measured
/// between the two, so the same rules hold for a studio take, a take 30 dB too quiet and a
/// take under hum or 10 dB of noise.
struct PauseAnalysis {
    /// A stretch of non-speech between two stretches of speech.
    struct Pause {
        /// First and one-past-last hop of the stretch.
        var range: Range<Int>
        /// The silent length in seconds: each hop counts by how far below the speech threshold
        /// it lies, so a deep pause counts fully and a shallow dip only in part.
        var silentDuration: Double
        /// The hop to cut at: the middle of the longest fully quiet run.
        var cutHop: Int
    }

    let envelope: EnergyEnvelope
    /// The smoothed envelope (30 ms), dB.
    let smoothed: [Float]
    let noiseFloor: Float
    let speechLevel: Float
    /// Above this a hop is sound (speech, or a click or breath to be ruled out).
    let soundThreshold: Float
    /// Below this a hop is fully silent.
    let silenceThreshold: Float
    /// Where a phrase's first and last sounds end, for its edges.
    let edgeThreshold: Float
    /// Per hop, with the local reference: dB below the neighbourhood's loudest sound (else 0).
    let contrast: [Float]
    let contrastQuiet: Float
    /// Per hop: true for speech (sound that is not a short click or a faint breath).
    let isSpeech: [Bool]
    /// Running count of speech hops: `speechBefore[i]` is the number of speech hops in `0..<i`.
    let speechBefore: [Int]
    /// Pauses between the first and the last speech, in order.
    let pauses: [Pause]
    /// First and one-past-last speech hop.
    let speechRange: Range<Int>

    /// How silence is judged.
    enum Reference {
        /// Against the take's noise floor: right for dry takes, quiet or noisy.
        case global
        /// Also against the loudest sound within ``PauseThresholds/contrastWindow``: a hop far below
        /// its neighbourhood is quiet even when a reverberant tail keeps it above the floor.
        case local
    }

    struct Parameters {
        /// Levels, and the neighbourhood measure for reverberant takes (shared with the live tracker).
        var thresholds = PauseThresholds()
        /// Sound shorter than this between two silences is a click, not speech.
        var maxClickDuration = 0.05
        /// A short sound this far below the speech level between two silences is a breath or noise...
        var faintSoundBelowSpeech: Float = 10
        /// ...when it lasts no longer than this (seconds)...
        var maxFaintSoundDuration = 0.4
        /// ...and stands alone, this much silence on either side (seconds); a faint consonant
        /// right after a stop closure belongs to its word.
        var faintSoundIsolation = 0.1
        /// A sound as short as a click this close (seconds) to a longer one is a consonant of
        /// that word (a release after a stop closure, a final burst), not a click.
        var consonantGap = 0.06
        /// The noise floor is this percentile of the smoothed levels...
        var floorPercentile = 0.05
        /// ...and the loud end of the take this one, among the hops well above the floor.
        var loudPercentile = 0.98
        /// Hops of ruled-out sound (clicks, breaths) inside a pause count this much silence.
        var ruledOutDepth = 0.5
    }

    init(envelope: EnergyEnvelope, reference: Reference = .global, parameters: Parameters = Parameters())
        throws(SegmentationError)
    {
        self.envelope = envelope
        let hop = envelope.hopDuration
        let thresholds = parameters.thresholds
        let smoothed = Self.smoothed(envelope.levels)
        self.smoothed = smoothed

        let (floor, speech) = try Self.levels(of: smoothed, parameters: parameters)
        self.noiseFloor = floor
        self.speechLevel = speech
        self.soundThreshold = thresholds.soundThreshold(floor: floor, speechLevel: speech)
        self.silenceThreshold = thresholds.silenceThreshold(floor: floor, speechLevel: speech)
        self.edgeThreshold = thresholds.edgeThreshold(floor: floor, speechLevel: speech)

        // With the local reference, how far each hop lies below its neighbourhood's peak.
        var contrast = [Float](repeating: 0, count: smoothed.count)
        if reference == .local {
            let peaks = PauseThresholds.slidingMaximum(
                smoothed, radius: Int((thresholds.contrastWindow / hop).rounded()))
            for i in smoothed.indices { contrast[i] = peaks[i] - smoothed[i] }
        }
        self.contrast = contrast
        self.contrastQuiet = thresholds.contrastQuiet

        let isSpeech = Self.speech(
            smoothed, contrast: contrast, reference: reference, soundThreshold: soundThreshold, speechLevel: speech,
            hop: hop, parameters: parameters)
        self.isSpeech = isSpeech
        var before = [Int](repeating: 0, count: isSpeech.count + 1)
        for i in isSpeech.indices { before[i + 1] = before[i] + (isSpeech[i] ? 1 : 0) }
        self.speechBefore = before

        guard let first = isSpeech.firstIndex(of: true), let last = isSpeech.lastIndex(of: true) else {
            throw SegmentationError(.silentTake, "no speech found: only clicks or faint sounds above the noise floor")
        }
        self.speechRange = first..<(last + 1)
        self.pauses = Self.pauses(
            in: speechRange, smoothed: smoothed, isSpeech: isSpeech, contrast: contrast,
            soundThreshold: soundThreshold, silenceThreshold: silenceThreshold, hop: hop, parameters: parameters)
    }

    /// Smoothed over three hops in the power domain.
    static func smoothed(_ levels: [Float]) -> [Float] {
        var smoothed = [Float](repeating: -120, count: levels.count)
        for i in levels.indices {
            var sum: Float = 0
            var n: Float = 0
            for j in max(0, i - 1)...min(levels.count - 1, i + 1) {
                sum += power(levels[j])
                n += 1
            }
            smoothed[i] = decibels(sum / n)
        }
        return smoothed
    }

    /// The noise floor and the speech level of a take, or an error when it holds no speech.
    static func levels(of smoothed: [Float], parameters: Parameters) throws(SegmentationError) -> (
        floor: Float, speech: Float
    ) {
        let sorted = smoothed.sorted()
        let rawFloor = percentile(sorted, parameters.floorPercentile)
        // The loud end among the hops above the floor, so a take that is mostly silence (a
        // recording left running) still finds its speech.
        let aboveFloor = Array(sorted.drop(while: { $0 <= rawFloor + 6 }))
        let loud =
            aboveFloor.count >= 10
            ? percentile(aboveFloor, parameters.loudPercentile) : percentile(sorted, parameters.loudPercentile)
        guard loud > -75, loud - rawFloor > 8 else {
            throw SegmentationError(
                .silentTake,
                "no speech found: the take is silent or holds only steady noise (loudest part \(Int(loud.rounded())) dBFS, \(Int((loud - rawFloor).rounded())) dB above its floor)"
            )
        }
        let midpoint = (rawFloor + loud) / 2
        let speech = percentile(Array(sorted.drop(while: { $0 <= midpoint })), 0.5)
        return (parameters.thresholds.floor(noiseFloor: rawFloor, speechLevel: speech), speech)
    }

    /// Per hop, whether it is speech: sound, not sunk below its neighbourhood, and not a click
    /// (a short sound, unless it sits right beside a word: a consonant) or a faint breath
    /// standing alone between silences.
    static func speech(
        _ smoothed: [Float], contrast: [Float], reference: Reference, soundThreshold: Float, speechLevel: Float,
        hop: Double,
        parameters: Parameters
    ) -> [Bool] {
        let count = smoothed.count
        let quiet = parameters.thresholds.contrastQuiet
        var isSpeech = (0..<count).map { smoothed[$0] >= soundThreshold && contrast[$0] < quiet }
        let maxClickHops = Int((parameters.maxClickDuration / hop).rounded())
        let maxFaintHops = Int((parameters.maxFaintSoundDuration / hop).rounded())
        let isolationHops = Int((parameters.faintSoundIsolation / hop).rounded())
        // Against the neighbourhood (a reverberant take), a short bump beside a word is as likely
        // an echo as a consonant: there, every short sound counts as a click.
        let attachedHops = reference == .global ? Int((parameters.consonantGap / hop).rounded()) : 0
        let sounding = isSpeech
        // Hops of sound runs longer than a click: what a consonant can belong to.
        var longSound = [Bool](repeating: false, count: count)
        var runStart = 0
        while runStart < count {
            guard sounding[runStart] else {
                runStart += 1
                continue
            }
            var runEnd = runStart
            while runEnd < count, sounding[runEnd] { runEnd += 1 }
            if runEnd - runStart > maxClickHops { for i in runStart..<runEnd { longSound[i] = true } }
            runStart = runEnd
        }
        let faint = speechLevel - parameters.faintSoundBelowSpeech
        var start = 0
        while start < count {
            guard isSpeech[start] else {
                start += 1
                continue
            }
            var end = start
            var peak: Float = -120
            while end < count, isSpeech[end] {
                peak = max(peak, smoothed[end])
                end += 1
            }
            let isolated =
                !sounding[max(0, start - isolationHops)..<start].contains(true)
                && !sounding[end..<min(count, end + isolationHops)].contains(true)
            let attached =
                longSound[max(0, start - attachedHops)..<start].contains(true)
                || longSound[end..<min(count, end + attachedHops)].contains(true)
            if (end - start <= maxClickHops && !attached) || (peak < faint && end - start <= maxFaintHops && isolated) {
                for i in start..<end { isSpeech[i] = false }
            }
            start = end
        }
        return isSpeech
    }

    /// The maximal non-speech runs strictly inside the speech range, each measured by its
    /// silence (every hop by its depth below the sound threshold, or below the neighbourhood).
    static func pauses(
        in speechRange: Range<Int>, smoothed: [Float], isSpeech: [Bool], contrast: [Float],
        soundThreshold: Float, silenceThreshold: Float, hop: Double, parameters: Parameters
    ) -> [Pause] {
        let thresholds = parameters.thresholds
        let width = max(soundThreshold - silenceThreshold, 0.001)
        let contrastSpan = max(thresholds.contrastSilent - thresholds.contrastQuiet, 0.001)
        var pauses: [Pause] = []
        let last = speechRange.upperBound - 1
        var i = speechRange.lowerBound
        while i <= last {
            guard !isSpeech[i] else {
                i += 1
                continue
            }
            var end = i
            var silent: Double = 0
            var bestRun = 0
            var bestRunStart = i
            var run = 0
            while end <= last, !isSpeech[end] {
                let level = smoothed[end]
                let below = min(max((soundThreshold - level) / width, 0), 1)
                let beneath = min(max((contrast[end] - thresholds.contrastQuiet) / contrastSpan, 0), 1)
                let depth =
                    level >= soundThreshold && beneath == 0 ? parameters.ruledOutDepth : Double(max(below, beneath))
                silent += depth
                if level < soundThreshold || beneath > 0 { run += 1 } else { run = 0 }
                if run > bestRun {
                    bestRun = run
                    bestRunStart = end - run + 1
                }
                end += 1
            }
            pauses.append(Pause(range: i..<end, silentDuration: silent * hop, cutHop: bestRunStart + bestRun / 2))
            i = end
        }
        return pauses
    }

    /// Whether a hop holds any sound of a phrase: above the edge level and, with the local
    /// reference, not sunk far below its neighbourhood (a reverberant tail).
    func isSounding(_ hop: Int) -> Bool {
        smoothed[hop] >= edgeThreshold && contrast[hop] < contrastQuiet
    }

    /// Speech hops in `hops`.
    func speechHops(in hops: Range<Int>) -> Int { speechBefore[hops.upperBound] - speechBefore[hops.lowerBound] }

    static func power(_ decibels: Float) -> Float { decibels <= -120 ? 0 : Float.exp10(decibels / 10) }
    static func decibels(_ power: Float) -> Float { power > 1e-12 ? 10 * log10(power) : -120 }

    static func percentile(_ sorted: [Float], _ p: Double) -> Float {
        guard !sorted.isEmpty else { return -120 }
        let index = min(sorted.count - 1, max(0, Int((Double(sorted.count - 1) * p).rounded())))
        return sorted[index]
    }
}

extension Float {
    static func exp10(_ x: Float) -> Float { Foundation.pow(10, x) }
}
