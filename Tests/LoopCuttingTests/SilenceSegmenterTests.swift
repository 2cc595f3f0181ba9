import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopTestSupport
import Testing

extension Fixture {
    static var texts: [String] { truth.map(\.text) }
}

/// Every cut inside its true pause, no phrase clipped, one segment a phrase.
func expectMatchesTruth(_ segmentation: Segmentation, sourceLocation: SourceLocation = #_sourceLocation) {
    let truth = Fixture.truth
    #expect(segmentation.segments.count == truth.count, sourceLocation: sourceLocation)
    guard segmentation.segments.count == truth.count else { return }
    for (index, cut) in segmentation.cuts.enumerated() {
        let at = segmentation.seconds(cut.frame)
        #expect(
            at > truth[index].end && at < truth[index + 1].start, "cut \(index + 1) at \(at) s is outside its pause",
            sourceLocation: sourceLocation)
    }
    for (segment, phrase) in zip(segmentation.segments, truth) {
        let start = segmentation.seconds(segment.startFrame)
        let end = segmentation.seconds(segment.endFrame)
        #expect(
            start <= phrase.start + 0.03 && end >= phrase.end - 0.03,
            "'\(phrase.text)' clipped: \(start)-\(end) for \(phrase.start)-\(phrase.end)",
            sourceLocation: sourceLocation)
        #expect(
            start >= phrase.start - 0.2 && end <= phrase.end + 0.2, "'\(phrase.text)' padded too much",
            sourceLocation: sourceLocation)
    }
}

struct SilenceSegmenterTests {
    let segmenter = SilenceSegmenter()

    @Test(arguments: ["clean.flac", "quiet-30db.flac", "clicks.flac", "rate-8k.flac", "stereo-48k.flac"])
    func givenTheCountCutsEveryPauseAndNoComma(take: String) throws {
        expectMatchesTruth(try segmenter.segment(path: Fixture.path(take), hint: .count(5)))
    }

    @Test(arguments: [
        "clean.flac", "noisy-snr10.flac", "quiet-30db.flac", "clicks.flac", "rate-8k.flac", "stereo-48k.flac",
    ])
    func givenTheTextCutsEveryPause(take: String) throws {
        expectMatchesTruth(try segmenter.segment(path: Fixture.path(take), hint: .text(Fixture.texts, language: "fr")))
    }

    @Test func withNoHintEveryPauseIsCutAndADoubtfulCommaIsFlagged() throws {
        // "À droite, puis tout droit.": the comma and the closures around it make 0.21 s of
        // silence, a hair longer than the shortest pause between phrases can be. With no hint
        // the tool cuts there, but says it is unsure.
        let result = try segmenter.segment(path: Fixture.path("clean.flac"), hint: .none)
        let truth = Fixture.truth
        let cuts = result.cuts.map { (at: result.seconds($0.frame), confidence: $0.confidence) }
        for k in 0..<(truth.count - 1) {
            #expect(
                cuts.filter { $0.at > truth[k].end && $0.at < truth[k + 1].start }.count == 1, "pause \(k + 1) cut once"
            )
        }
        let extra = cuts.filter { cut in
            !(0..<(truth.count - 1)).contains { cut.at > truth[$0].end && cut.at < truth[$0 + 1].start }
        }
        #expect(extra.allSatisfy { $0.confidence < 0.6 }, "a cut inside a phrase is flagged: \(extra)")
    }

    @Test func withNoHintAPauseShorterThanTheThresholdIsNoCut() throws {
        // Hesitations of 0.12 and 0.15 s inside phrases, pauses of 0.35 and 0.45 s between
        // them: with nothing known, only a pause of at least 0.2 s is a cut.
        let take = envelope([
            (false, 0.5), (true, 1.2), (false, 0.12), (true, 1.0), (false, 0.35), (true, 1.1),
            (false, 0.15), (true, 0.9), (false, 0.45), (true, 1.0), (false, 0.5),
        ])
        let cuts = try SilenceSegmenter().segment(take, hint: .none).cuts.map {
            Double($0.frame) / Double(take.sampleRate)
        }
        #expect(cuts.count == 2 && cuts[0] > 2.82 && cuts[0] < 3.17 && cuts[1] > 5.32 && cuts[1] < 5.77, "\(cuts)")
    }

    @Test func theTextOutweighsAComma() throws {
        // At 10 dB SNR the comma in "À droite, puis tout droit." (closures on both sides) is a
        // longer silence than the 0.32 s pause after "plaît.": the count alone picks the comma,
        // the text's phrase lengths pick the pause.
        let byText = try segmenter.segment(
            path: Fixture.path("noisy-snr10.flac"), hint: .text(Fixture.texts, language: "fr"))
        let commaCut = byText.cuts.map { byText.seconds($0.frame) }.contains { $0 > 8.2 && $0 < 8.5 }
        #expect(!commaCut)
    }

    /// Hops of a synthetic take: speech at about -20 dB, pauses at about -80 dB.
    private func envelope(_ parts: [(speech: Bool, seconds: Double)]) -> EnergyEnvelope {
        var levels: [Float] = []
        for part in parts {
            for hop in 0..<Int((part.seconds * 100).rounded()) {
                levels.append(part.speech ? -20 + Float(hop % 7) - 3 : -80 + Float(hop % 3))
            }
        }
        return EnergyEnvelope(
            hopFrames: 160, sampleRate: 16_000, channelCount: 1, frameCount: levels.count * 160, levels: levels)
    }

    @Test func givenTheCountAHesitationAsLongAsAShortPauseLosesToPhraseLengths() throws {
        // Four phrases of 2 s; the second hesitates 0.29 s halfway, and the pause after it is only
        // 0.27 s: closer than silence can tell apart. The hesitation would leave a 3 s phrase of two.
        let take = envelope([
            (false, 0.5), (true, 2), (false, 1.0), (true, 1), (false, 0.29), (true, 1), (false, 0.27), (true, 2),
            (false, 0.8), (true, 2), (false, 0.5),
        ])
        let cuts = try SilenceSegmenter().segment(take, hint: .count(4)).segments.map {
            (start: $0.startFrame / 160, end: $0.endFrame / 160)
        }
        #expect(cuts.count == 4)
        #expect(
            cuts.count == 4 && cuts[1].start < 350 && cuts[1].end >= 575 && cuts[2].start <= 612
                && cuts[1].end <= cuts[2].start,
            "the second phrase whole (hops 350-579), cut in the 0.27 s pause after it: \(cuts)")
    }

    @Test func givenTheCountAOneWordPhraseKeepsItsShortPauseOverACommaInALongPhrase() throws {
        // A long phrase with a 0.21 s comma, then a one-word phrase after a 0.25 s pause. Evening
        // out the phrase lengths would cut the comma and join the word to its neighbour; the
        // longer silence is the pause, and a one-word phrase is simply short.
        let take = envelope([
            (false, 0.5), (true, 2), (false, 0.21), (true, 2), (false, 0.9), (true, 0.4), (false, 0.25), (true, 1.5),
            (false, 0.7), (true, 1.5), (false, 0.5),
        ])
        let cuts = try SilenceSegmenter().segment(take, hint: .count(4)).cuts.map { Double($0.frame) / 16_000 }
        #expect(
            cuts.count == 3 && cuts.allSatisfy { $0 > 4.7 },
            "the comma at 2.5 s is no cut; the pauses at 5.2, 5.8 and 7.5 s are: \(cuts)")
    }

    @Test func givenTheCountAHesitationLongerThanAShortPauseLosesToThePhraseItWouldLeaveTwiceTooLong() throws {
        // Six phrases of 2 s. The first hesitates 0.32 s halfway; the pause between the third and
        // fourth is only 0.24 s, a third shorter. Silence alone cuts the hesitation and runs the
        // third and fourth phrases together into one twice the average.
        let take = envelope([
            (false, 0.5), (true, 1), (false, 0.32), (true, 1), (false, 0.6), (true, 2), (false, 0.5), (true, 2),
            (false, 0.24), (true, 2), (false, 1.7), (true, 2), (false, 0.4), (true, 2), (false, 0.5),
        ])
        let cuts = try SilenceSegmenter().segment(take, hint: .count(6)).cuts.map { Double($0.frame) / 16_000 }
        #expect(
            cuts.count == 5 && !cuts.contains { $0 < 2.0 } && cuts.contains { $0 > 7.92 && $0 < 8.16 },
            "no cut in the hesitation at 1.5-1.8 s; one in the pause at 7.92-8.16 s: \(cuts)")
    }

    @Test func aShortConsonantBesideItsWordIsSpeechNotAClick() throws {
        // Three phrases. The first has a comma: its last word, 40 ms of closure, a 30 ms burst
        // 15 dB under the speech, then 0.24 s of silence. The pause after it is 0.27 s. Were the
        // burst a click, the comma would measure 0.3 s and be cut instead of the pause.
        var levels: [Float] = []
        func add(_ seconds: Double, _ level: Float) {
            levels += (0..<Int((seconds * 100).rounded())).map { level + Float($0 % 3) }
        }
        add(0.5, -80)
        add(1.5, -21)
        add(0.04, -80)
        add(0.03, -36)
        add(0.24, -80)
        add(1.5, -21)
        add(0.27, -80)
        add(1.5, -21)
        add(0.9, -80)
        add(1.5, -21)
        add(0.5, -80)
        let take = EnergyEnvelope(
            hopFrames: 160, sampleRate: 16_000, channelCount: 1, frameCount: levels.count * 160, levels: levels)
        let cuts = try SilenceSegmenter().segment(take, hint: .count(3)).cuts.map { Double($0.frame) / 16_000 }
        #expect(
            cuts.count == 2 && cuts[0] > 3.8 && cuts[0] < 4.1,
            "the comma at 2.2 s is no cut; the pauses at 3.9 and 6.0 s are: \(cuts)")
    }

    @Test func aWordsFinalHissStillEndsItUnderLowRumble() throws {
        // Three phrases at 16 kHz under brown noise 15 dB below the speech. The first ends a word
        // with 0.15 s of hiss between 5 and 7.5 kHz, as an "s" is, 12 dB under the vowels, then a
        // 0.2 s comma; the pause after it is 0.26 s. Measured only up to 4 kHz, the hiss vanishes
        // into the noise and the comma, 0.35 s, is cut instead of the pause.
        let rate = 16_000
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Float { // xorshift64*, in -1...1: the same take every run
            random ^= random >> 12
            random ^= random << 25
            random ^= random >> 27
            return Float((random &* 0x2545_F491_4F6C_DD1D) >> 40) / Float(1 << 23) - 1
        }
        func silence(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * Double(rate))) }
        func vowels(_ seconds: Double) -> [Float] { // 120 Hz and its harmonics, in 4 Hz syllables
            (0..<Int(seconds * Double(rate))).map { i in
                let t = Float(i) / Float(rate)
                let voice = (1..<30).reduce(Float(0)) { $0 + sin(2 * .pi * 120 * Float($1) * t) / Float($1) }
                return 0.3 * voice * (0.65 + 0.35 * sin(2 * .pi * 4 * t))
            }
        }
        let partials = (0..<60).map { _ in (frequency: 6_250 + 1_250 * uniform(), phase: Float.pi * uniform()) }
        func hiss(_ seconds: Double, level: Float) -> [Float] {
            (0..<Int(seconds * Double(rate))).map { i in
                let t = Float(i) / Float(rate)
                return level * partials.reduce(Float(0)) { $0 + sin(2 * .pi * $1.frequency * t + $1.phase) }
                    / Float(partials.count).squareRoot()
            }
        }
        func rms(_ samples: [Float]) -> Float {
            (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
        }
        let speechRMS = rms(vowels(1))
        let parts: [[Float]] = [
            silence(0.5), vowels(1.2), hiss(0.15, level: speechRMS / 4), silence(0.2), vowels(1.0),
            silence(0.26), vowels(1.0), silence(0.8), vowels(1.0), silence(0.5),
        ]
        var take = parts.flatMap { $0 }
        var brown: Float = 0
        let rumble = take.map { _ in
            brown = 0.995 * brown + uniform()
            return brown
        }
        let gain = speechRMS / rms(rumble) / pow(10, 15 / 20)
        for i in take.indices { take[i] += gain * rumble[i] }
        let peak = take.map(abs).max()!
        let path = Scratch.path("hiss-under-rumble", extension: "flac")
        var writer = try AudioFileWriter(path: path, format: .flac, sampleRate: rate, channelCount: 1)
        try writer.write(take.map { $0 / peak * 0.8 })
        try writer.commit()

        let result = try SilenceSegmenter().segment(path: path, hint: .count(3))
        let cuts = result.cuts.map { result.seconds($0.frame) }
        #expect(
            cuts.count == 2 && cuts[0] > 3.05 && cuts[0] < 3.31 && cuts[1] > 4.31 && cuts[1] < 5.11,
            "the comma at 2.0 s is no cut; the pauses at 3.2 and 4.7 s are: \(cuts)")
    }

    @Test func framesAndSecondsAgree() throws {
        let result = try segmenter.segment(path: Fixture.path("stereo-48k.flac"), hint: .count(5))
        #expect(result.sampleRate == 48_000 && result.channelCount == 2)
        #expect(result.cuts.count == 4)
        #expect(result.segments.allSatisfy { $0.startFrame < $0.endFrame && $0.endFrame <= result.frameCount })
        #expect(zip(result.segments, result.segments.dropFirst()).allSatisfy { $0.endFrame <= $1.startFrame })
    }

    @Test func clearPausesAreConfidentAndTheShortestLeast() throws {
        let result = try segmenter.segment(path: Fixture.path("clean.flac"), hint: .count(5))
        let confidences = result.cuts.map(\.confidence)
        #expect(confidences.allSatisfy { $0 > 0.3 && $0 <= 1 })
        // The 1.1 s pause between the groups is the surest, the 0.32 s one the least sure.
        #expect(confidences[2] == confidences.max())
        #expect(confidences[1] == confidences.min())
    }

    @Test func moreAskedThanTheTakeHoldsIsAnErrorNotACutInsideSpeech() {
        #expect {
            _ = try segmenter.segment(path: Fixture.path("clean.flac"), hint: .count(12))
        } throws: { error in
            guard let error = error as? SegmentationError else { return false }
            return error.kind == .tooFewPauses && error.description.contains("clean.flac")
                && error.description.contains("12 phrases")
        }
    }

    @Test func oneCountMeansOneSegmentAroundAllTheSpeech() throws {
        let result = try segmenter.segment(path: Fixture.path("clean.flac"), hint: .count(1))
        #expect(result.segments.count == 1 && result.cuts.isEmpty)
        #expect(result.seconds(result.segments[0].startFrame) <= Fixture.truth[0].start)
        #expect(result.seconds(result.segments[0].endFrame) >= Fixture.truth[4].end)
    }

    @Test func aSilentTakeIsAnError() {
        #expect {
            _ = try segmenter.segment(path: Fixture.path("silence.flac"), hint: .none)
        } throws: { error in
            (error as? SegmentationError)?.kind == .silentTake && "\(error)".hasPrefix(Fixture.path("silence.flac"))
        }
    }

    @Test func aZeroLengthTakeIsAnError() {
        #expect {
            _ = try segmenter.segment(path: Fixture.path("zero-length.wav"), hint: .none)
        } throws: { error in
            (error as? AudioError)?.kind == .emptyFile
        }
    }

    @Test func theEnvelopeIsSmallAndEvery10ms() throws {
        let envelope = try EnergyEnvelope.measure(path: Fixture.path("stereo-48k.flac"))
        #expect(envelope.hopFrames == 480)
        #expect(envelope.levels.count == (envelope.frameCount + 479) / 480)
    }
}

struct PhraseClipExporterTests {
    @Test func writesOneClipPerPhraseAndTheLabelTrack() throws {
        let folder = Scratch.path("clips")
        let take = Fixture.path("stereo-48k.flac")
        let segmentation = try SilenceSegmenter().segment(path: take, hint: .text(Fixture.texts, language: "fr"))
        let result = try PhraseClipExporter().export(
            takePath: take, segmentation: segmentation, labels: Fixture.texts, to: folder)

        #expect(
            result.clipPaths.map { URL(fileURLWithPath: $0).lastPathComponent } == [
                "01-bonjour-madame.flac", "02-un-cafe-s-il-vous-plait.flac", "03-merci.flac",
                "04-ou-est-la-gare-s-il-vous-plait.flac", "05-a-droite-puis-tout-droit.flac",
            ])
        for (path, segment) in zip(result.clipPaths, segmentation.segments) {
            let reader = try AudioFileReader(path: path)
            #expect(reader.info.sampleRate == 48_000 && reader.info.channelCount == 2)
            #expect(reader.info.frameCount == segment.endFrame - segment.startFrame)
        }
        let labels = try String(contentsOfFile: result.labelsPath, encoding: .utf8).split(separator: "\n")
        #expect(labels.count == 5)
        #expect(labels[2].hasSuffix("\tMerci."))
        let contents = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(contents.count == 6, "no staging folder or temporary file left: \(contents)")
    }

    @Test func clipSamplesAreTheTakesOwn() throws {
        let folder = Scratch.path("clips")
        let take = Fixture.path("clean.flac")
        let segmentation = try SilenceSegmenter().segment(path: take, hint: .count(5))
        let result = try PhraseClipExporter(format: .wav).export(
            takePath: take, segmentation: segmentation, labels: [], to: folder)
        var whole: [Float] = []
        var reader = try AudioFileReader(path: take)
        try reader.forEachBlock { block, _ in whole.append(contentsOf: block) }
        var clip: [Float] = []
        var clipReader = try AudioFileReader(path: result.clipPaths[3])
        try clipReader.forEachBlock { block, _ in clip.append(contentsOf: block) }
        let start = segmentation.segments[3].startFrame
        #expect(clip == Array(whole[start..<(start + clip.count)]))
    }
}

struct ReverberantTakeTests {
    /// The clean fixture through a feedback comb: echoes 40 ms apart decaying by 60 dB in
    /// `reverberationTime` seconds, so tails run into the pauses and fill the short ones.
    func reverberantTake(reverberationTime: Float) throws -> String {
        var samples: [Float] = []
        var reader = try AudioFileReader(path: Fixture.path("clean.flac"))
        try reader.forEachMonoBlock { samples.append(contentsOf: $0) }
        let delay = 640
        let gain = pow(10, -3 * Float(delay) / 16_000 / reverberationTime)
        for i in delay..<samples.count { samples[i] += gain * samples[i - delay] }
        let peak = samples.map(abs).max()!
        let path = Scratch.path("reverb", extension: "flac")
        var writer = try AudioFileWriter(path: path, format: .flac, sampleRate: 16_000, channelCount: 1)
        try writer.write(samples.map { $0 / peak * 0.8 })
        try writer.commit()
        return path
    }

    @Test func aReverberantRoomRecordingIsCutAtItsPausesGivenTheText() throws {
        expectMatchesTruthCuts(
            try SilenceSegmenter().segment(
                path: Fixture.path("reverb.flac"), hint: .text(Fixture.texts, language: "fr")))
    }

    @Test(arguments: [0.7, 1.2] as [Float])
    func tailsThatFillTheShortPausesStillLetTheTextFindThem(reverberationTime: Float) throws {
        let take = try reverberantTake(reverberationTime: reverberationTime)
        expectMatchesTruthCuts(try SilenceSegmenter().segment(path: take, hint: .text(Fixture.texts, language: "fr")))
    }

    @Test func aRoomThatHidesThePausesIsRefusedNotCutInsideSpeech() throws {
        let take = try reverberantTake(reverberationTime: 2.5)
        for hint in [SegmentationHint.text(Fixture.texts, language: "fr"), .count(5)] {
            do {
                expectMatchesTruthCuts(try SilenceSegmenter().segment(path: take, hint: hint))
            } catch let error as SegmentationError {
                #expect(error.kind == .tooFewPauses)
            }
        }
    }
}

/// Every cut inside its true pause (edges are not judged: a tail is sound, if not speech).
func expectMatchesTruthCuts(_ segmentation: Segmentation, sourceLocation: SourceLocation = #_sourceLocation) {
    let truth = Fixture.truth
    #expect(segmentation.cuts.count == truth.count - 1, sourceLocation: sourceLocation)
    for (index, cut) in segmentation.cuts.enumerated() where index + 1 < truth.count {
        let at = segmentation.seconds(cut.frame)
        #expect(
            at > truth[index].end && at < truth[index + 1].start, "cut \(index + 1) at \(at) s is outside its pause",
            sourceLocation: sourceLocation)
    }
}

struct EnergyEnvelopeTests {
    @Test func measuringALongTakeInParallelMatchesOnePass() throws {
        var samples: [Float] = []
        var reader = try AudioFileReader(path: Fixture.path("rate-8k.flac"))
        try reader.forEachMonoBlock { samples.append(contentsOf: $0) }
        let path = Scratch.path("long", extension: "wav")
        var writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 8_000, channelCount: 1)
        for _ in 0..<8 { try writer.write(samples) } // about 77 s: long enough to split
        try writer.commit()

        let single = try EnergyEnvelope.measure(path: path, parallelism: 1)
        let parallel = try EnergyEnvelope.measure(path: path, parallelism: 3)
        #expect(single.levels.count == parallel.levels.count)
        #expect(single.frameCount == parallel.frameCount)
        let worst = zip(single.levels, parallel.levels).map { abs($0 - $1) }.max() ?? 99
        #expect(worst < 0.01, "largest difference \(worst) dB")
    }
}
