import Foundation
import LoopCutting
import LoopText

/// Turns subtitle cues into a loop over the media's audio: a phrase per cue, groups where the
/// dialogue pauses, translations from a second file by overlap, and every clip's edges moved
/// to the real edges of the speech the cue covers.
///
/// Subtitle times are routinely 100 to 500 ms off the speech. The speech is found with the
/// segmenter's pause analysis (a blind cut at every pause): each stretch of speech goes to the
/// cue it overlaps most, and a cue's clip runs from the start of its first stretch to the end
/// of its last, so a clip starts and ends in a pause, never inside a word. A stretch that runs
/// across two cues' boundary (their pause too short to be found) is parted at its quietest
/// moment near that boundary. A cue with no speech found keeps its own times.
///
/// Subtitles are most often off by the same amount throughout (made for another cut, or
/// timed late): that offset is found first, as the shift of every cue (within two seconds, in
/// 10 ms steps) that puts the most of the cues' time over speech, and each file is moved by its
/// own before the cues take their speech.
public struct SubtitleAlignment: Sendable {
    /// A new group starts where the dialogue pauses longer than this (seconds)...
    public var groupPause: Double = 2.0
    /// ...or, when given, every this many cues.
    public var groupSize: Int?
    /// How far a clip's edge may move from its cue's (seconds) to reach the speech's edge.
    public var maximumMove: Double = 0.75
    /// Cues whose clips are closer than this (seconds) are one run of speech, whose words are
    /// followed to cut between them.
    public var runGap: Double = 1.5

    /// An alignment that groups cues at pauses of `groupPause` seconds, or every `groupSize` cues.
    public init(groupPause: Double = 2.0, groupSize: Int? = nil) {
        self.groupPause = groupPause
        self.groupSize = groupSize
    }

    /// The loop's phrases and their clips (frame ranges of the take `envelope` measured).
    public struct Result: Sendable {
        /// The loop's phrases, group by group.
        public var groups: [[Phrase]]
        /// Each phrase's clip, in the take's frames.
        public var ranges: [Range<Int>]
    }

    /// The phrases the cues make, and each one's clip moved onto the speech `envelope` and `speech` show.
    public func align(_ cues: [SubtitleCue], translations: [SubtitleCue], envelope: EnergyEnvelope, speech: [Segment])
        -> Result
    {
        let rate = Double(envelope.sampleRate)
        let speaking = speech.map { Double($0.startFrame) / rate..<Double($0.endFrame) / rate }
        let offset = Self.offset(of: cues, over: speaking)
        let translationOffset = Self.offset(of: translations, over: speaking)
        let cues = cues.map {
            SubtitleCue(start: max(0, $0.start + offset), end: max(0, $0.end + offset), text: $0.text)
        }
        let translations = translations.map {
            SubtitleCue(start: $0.start + translationOffset, end: $0.end + translationOffset, text: $0.text)
        }
        func frame(_ seconds: Double) -> Int { min(envelope.frameCount, max(0, Int((seconds * rate).rounded()))) }
        let spans = cues.map { frame($0.start)..<max(frame($0.start) + 1, frame($0.end)) }
        let pieces = split(speech.map { $0.startFrame..<$0.endFrame }, at: spans, envelope: envelope)

        // Each stretch of speech to the cue it overlaps most.
        var owned = [[Range<Int>]](repeating: [], count: cues.count)
        for piece in pieces {
            var best: (index: Int, overlap: Int)?
            for (index, span) in spans.enumerated()
            where span.lowerBound < piece.upperBound && piece.lowerBound < span.upperBound {
                let overlap = min(span.upperBound, piece.upperBound) - max(span.lowerBound, piece.lowerBound)
                if overlap > (best?.overlap ?? 0) { best = (index, overlap) }
            }
            if let best { owned[best.index].append(piece) }
        }
        let reach = Int(maximumMove * rate)
        var ranges: [Range<Int>] = []
        for (index, span) in spans.enumerated() {
            var start = span.lowerBound
            var end = span.upperBound
            if let first = owned[index].first, let last = owned[index].last {
                start =
                    first.lowerBound < span.lowerBound - reach
                    ? quietest(near: span.lowerBound, envelope: envelope) : first.lowerBound
                end =
                    last.upperBound > span.upperBound + reach
                    ? quietest(near: span.upperBound, envelope: envelope) : last.upperBound
            }
            // Never into the clip before.
            if let previous = ranges.last, start < previous.upperBound { start = previous.upperBound }
            ranges.append(start..<max(start + 1, end))
        }

        // Translations: each second-language cue to the cue it overlaps most.
        var translated = [[String]](repeating: [], count: cues.count)
        for translation in translations {
            var best: (index: Int, overlap: Double)?
            for (index, cue) in cues.enumerated() {
                let overlap = min(cue.end, translation.end) - max(cue.start, translation.start)
                if overlap > (best?.overlap ?? 0) { best = (index, overlap) }
            }
            if let best { translated[best.index].append(translation.text) }
        }

        var groups: [[Phrase]] = [[]]
        for (index, cue) in cues.enumerated() {
            let phrase = Phrase(
                text: cue.text, translation: translated[index].isEmpty ? nil : translated[index].joined(separator: " "),
                line: index + 1)
            let full = groupSize.map { groups[groups.count - 1].count >= $0 } ?? false
            let paused = groupSize == nil && index > 0 && cue.start - cues[index - 1].end > groupPause
            if !groups[groups.count - 1].isEmpty && (full || paused) { groups.append([]) }
            groups[groups.count - 1].append(phrase)
        }
        return Result(groups: groups.filter { !$0.isEmpty }, ranges: ranges)
    }

    /// Cuts between the cues of each run of speech where the words change: the run's audio
    /// aligned with the cues' texts by `cutter`, which also says which language it heard them
    /// in. Runs whose words do not match (music, a cue that is not said) keep their clips.
    public func followingTheWords(
        _ result: Result, path: String, sampleRate: Int, cutter: TakeCutter, language: String?,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> (result: Result, method: CuttingMethod, notes: [String]) {
        let phrases = result.groups.flatMap { $0 }
        guard phrases.count == result.ranges.count else { return (result, .pauses, []) }
        let gap = Int(runGap * Double(sampleRate))
        var runs: [Range<Int>] = []
        var start = 0
        for index in 1...phrases.count
        where index == phrases.count || result.ranges[index].lowerBound - result.ranges[index - 1].upperBound >= gap {
            if index - start > 1 { runs.append(start..<index) }
            start = index
        }
        guard !runs.isEmpty else { return (result, .pauses, []) }
        let cut = try cutter.cutRuns(
            path: path,
            runs: runs.map { run in
                (
                    texts: run.map { phrases[$0].text },
                    frames: result.ranges[run.lowerBound].lowerBound..<result.ranges[run.upperBound - 1].upperBound
                )
            }, loopLanguage: language, progress: progress)
        var refined = result
        for (run, clips) in zip(runs, cut.runs) {
            if let clips { refined.ranges.replaceSubrange(run, with: clips) }
        }
        return (refined, cut.method, cut.notes)
    }

    /// The shift (seconds, within ±2 s) that puts the most of the cues' time over speech; 0
    /// when no shift does better than none by more than a tenth.
    static func offset(of cues: [SubtitleCue], over speech: [Range<Double>]) -> Double {
        guard !cues.isEmpty, !speech.isEmpty else { return 0 }
        func covered(_ shift: Double) -> Double {
            var total = 0.0
            var index = 0
            for cue in cues {
                let start = cue.start + shift
                let end = cue.end + shift
                while index > 0 && speech[index - 1].upperBound > start { index -= 1 }
                while index < speech.count && speech[index].upperBound <= start { index += 1 }
                var scan = index
                while scan < speech.count && speech[scan].lowerBound < end {
                    total += min(end, speech[scan].upperBound) - max(start, speech[scan].lowerBound)
                    scan += 1
                }
            }
            return total
        }
        let none = covered(0)
        var best = (shift: 0.0, covered: none)
        for step in -200...200 where step != 0 {
            let shift = Double(step) / 100
            let value = covered(shift)
            // Ties go to the smaller shift.
            if value > best.covered + 1e-9 || (abs(value - best.covered) <= 1e-9 && abs(shift) < abs(best.shift)) {
                best = (shift, value)
            }
        }
        return best.covered > none * 1.1 ? best.shift : 0
    }

    /// Parts every stretch of speech that runs across the boundary of two cues it both covers
    /// well (each for a third of its length) at its quietest moment near that boundary.
    func split(_ speech: [Range<Int>], at spans: [Range<Int>], envelope: EnergyEnvelope) -> [Range<Int>] {
        var pieces = speech
        for (left, right) in zip(spans, spans.dropFirst()) {
            let boundary = (left.upperBound + right.lowerBound) / 2
            guard let index = pieces.firstIndex(where: { $0.contains(boundary) }) else { continue }
            let piece = pieces[index]
            let coversLeft = min(piece.upperBound, left.upperBound) - max(piece.lowerBound, left.lowerBound)
            let coversRight = min(piece.upperBound, right.upperBound) - max(piece.lowerBound, right.lowerBound)
            guard coversLeft * 3 >= left.count, coversRight * 3 >= right.count else { continue }
            let cut = quietest(near: boundary, envelope: envelope, within: min(maximumMove, 0.6))
            guard cut > piece.lowerBound, cut < piece.upperBound else { continue }
            pieces.replaceSubrange(index...index, with: [piece.lowerBound..<cut, cut..<piece.upperBound])
        }
        return pieces
    }

    /// The frame of the quietest 10 ms within `within` seconds of `frame`.
    func quietest(near frame: Int, envelope: EnergyEnvelope, within seconds: Double = 0.3) -> Int {
        let hops = envelope.levels.count
        guard hops > 0 else { return frame }
        let center = frame / envelope.hopFrames
        let radius = max(1, Int(seconds / envelope.hopDuration))
        let range = max(0, center - radius)...min(hops - 1, center + radius)
        guard !range.isEmpty, let best = range.min(by: { envelope.levels[$0] < envelope.levels[$1] }) else {
            return frame
        }
        return min(envelope.frameCount, best * envelope.hopFrames + envelope.hopFrames / 2)
    }
}
