import Foundation
import LoopAudio
import LoopAudioFiles
import LoopModel
import LoopPlayback
import LoopStudy
import LoopTestSupport
import Synchronization
import Testing

extension Fixture {
    /// The clean take's five phrases as clips (frames at 16 kHz), in two groups: 1-3 and 4-5.
    static let clips: [ClipSource] = [
        (1, 6_080..<26_600), (2, 35_200..<59_900), (3, 63_900..<72_600), (4, 88_900..<117_500), (5, 123_400..<147_400),
    ].map { ClipSource(phrase: $0.0, takePath: path("clean.flac"), frames: $0.1) }

    static func groups(_ audio: StudyAudio) -> [[StudyPhrase]] {
        [[1, 2, 3], [4, 5]].map {
            $0.map { StudyPhrase(number: $0, text: "phrase \($0)", duration: audio.duration(of: $0)) }
        }
    }
}

func samples(of path: String) throws -> [Float] {
    var reader = try AudioFileReader(path: path)
    var all: [Float] = []
    try reader.forEachBlock { block, _ in all.append(contentsOf: block) }
    return all
}

func temporaryPath(_ ext: String) -> String { Scratch.path("play", extension: ext) }

struct StudyAudioTests {
    @Test func clipsAreTheTakesOwnFrames() throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let take = try samples(of: Fixture.path("clean.flac"))
        #expect(audio.sampleRate == 16_000 && audio.channelCount == 1)
        #expect(try audio.clip(4, speed: 1) == Array(take[88_900..<117_500]))
        #expect(audio.duration(of: 4) == 1_787_500)
    }

    @Test func slowerClipsAreLongerWithTheSamePitch() throws {
        // A 440 Hz tone, stretched to half speed: twice as long, still 440 Hz.
        let tone = (0..<16_000).map { Float(sin(2 * Double.pi * 440 * Double($0) / 16_000)) * 0.5 }
        let slow = try TimeStretcher(sampleRate: 16_000, channelCount: 1, speed: 0.5).process(tone)
        #expect(slow.count == 32_000)
        func crossings(_ x: ArraySlice<Float>) -> Int { zip(x, x.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count }
        let perSecond = Double(crossings(slow[8_000..<24_000])) // one second from the middle
        #expect(abs(perSecond - 440) < 10, "pitch kept: \(perSecond) Hz")
    }
}

struct ResamplerTests {
    @Test func aToneKeepsItsPitchAndItsLengthAtAnotherRate() throws {
        // One second of 440 Hz at 16 kHz, made 48 kHz: three times the frames, still 440 Hz.
        let tone = (0..<16_000).map { Float(sin(2 * Double.pi * 440 * Double($0) / 16_000)) * 0.5 }
        let up = try Resampler(from: 16_000, to: 48_000, channelCount: 1).process(tone)
        #expect(up.count == 48_000)
        let crossings = zip(up.dropLast(), up.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(abs(crossings - 440) <= 2, "\(crossings) Hz")
        let expected = (0..<48_000).map { Float(sin(2 * Double.pi * 440 * Double($0) / 48_000)) * 0.5 }
        let error = zip(up[4_800..<43_200], expected[4_800..<43_200]).map { abs($0 - $1) }.max() ?? 1
        #expect(error < 0.01, "a clean band-limited conversion, not a linear one: \(error)")
    }
}

struct StudyPlayerTests {
    @Test func listenAndRepeatRendersTheGroupThenAsMuchSilence() async throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(
            groups: Fixture.groups(audio), settings: StudySettings(mode: .listenAndRepeat, rounds: 1), selection: [1])
        let path = temporaryPath("wav")
        let output = try FileOutput(path: path, sampleRate: audio.sampleRate, channelCount: 1)
        let studied = try await StudyPlayer(session: session, audio: audio, output: output, realTime: false).play()

        let rendered = try samples(of: path)
        let group = try audio.clip(4, speed: 1) + audio.clip(5, speed: 1)
        #expect(abs(rendered.count - 2 * group.count) <= 1)
        let worst = zip(rendered, group).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1.0 / 16_000, "the group's own samples (16-bit file)")
        #expect(rendered[group.count...].allSatisfy { $0 == 0 }, "then silence")
        #expect(studied[4]?.repetitions == 1 && studied[1] == nil)
    }

    /// A group plays as one step; the player says which of its phrases sounds, clip by clip.
    @Test func listenAndRepeatSaysWhichPhraseOfTheGroupSounds() async throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(
            groups: Fixture.groups(audio), settings: StudySettings(mode: .listenAndRepeat, rounds: 1), selection: [0])
        let output = try FileOutput(path: temporaryPath("wav"), sampleRate: audio.sampleRate, channelCount: 1)
        let player = StudyPlayer(session: session, audio: audio, output: output, realTime: false)
        var sounding: [Int] = []
        for await display in player.start() where display.phase == .listening {
            if let phrase = display.sounding, sounding.last != phrase { sounding.append(phrase) }
        }
        #expect(sounding == [1, 2, 3], "each phrase of group 1 in turn: \(sounding)")
    }

    @Test func throughALSATheDeviceGetsTheGroupThenSilenceSampleForSample() async throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(
            groups: Fixture.groups(audio), settings: StudySettings(mode: .listenAndRepeat, rounds: 1), selection: [0])
        let raw = temporaryPath("raw")
        // The ALSA `file` plugin over `null`: real ALSA calls, the sound captured in a file.
        let output = try DeviceOutput(
            device: "file:FILE=\(raw),FORMAT=raw", sampleRate: audio.sampleRate, channelCount: 1)
        _ = try await StudyPlayer(session: session, audio: audio, output: output, realTime: false).play()

        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let played = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let group = try (1...3).flatMap { try audio.clip($0, speed: 1) }
        #expect(abs(played.count - 2 * group.count) <= 1)
        #expect(Array(played.prefix(group.count)) == group, "bit for bit")
        #expect(played[group.count...].allSatisfy { $0 == 0 })
    }

    @Test func repeatWithMePlaysEachPhraseThenAGapOfHalfItsLengthPlusThePause() async throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(
            groups: Fixture.groups(audio), settings: StudySettings(gapFactor: 0.5, fixedPause: 200_000, rounds: 1),
            selection: [1])
        let sink = OutputSink()
        _ = try await StudyPlayer(session: session, audio: audio, output: KeepingOutput(sink), realTime: false).play()
        // Phrase 4, silence of half its length plus 0.2 s, phrase 5, the same: the clips' own samples.
        var expected: [Float] = []
        for phrase in [4, 5] {
            let clip = try audio.clip(phrase, speed: 1)
            expected += clip + [Float](repeating: 0, count: clip.count / 2 + 3_200)
        }
        let rendered = sink.samples
        #expect(abs(rendered.count - expected.count) <= 2)
        #expect(zip(rendered, expected).allSatisfy { $0 == $1 }, "the clips in order, each followed by its gap")
    }

    @Test func anEventCutsTheCurrentSoundShortAndAPauseWaitsForTheNext() async throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(groups: Fixture.groups(audio), settings: StudySettings(), selection: [0])
        // The output takes 2,000 samples of phrase 1, then holds the player until let go: the
        // learner's key arrives at a known point, however busy the machine.
        let sink = OutputSink(allowing: 2_000)
        let player = StudyPlayer(session: session, audio: audio, output: KeepingOutput(sink), realTime: false)
        // Started here, on the player's own thread: no task waits for a free thread of the pool.
        _ = player.start()
        try await sink.wait("phrase 1 playing") { $0.samples.count >= 2_000 }
        player.send(.nextGroup)
        // Enough for phrase 4 to begin, and no more: this session loops until stopped, and a
        // player rendering faster than real time while a busy machine keeps the test waiting
        // once grew its output past what memory holds.
        sink.allow(200_000)
        let firstOfFour = Array(try audio.clip(4, speed: 1).prefix(160))
        try await sink.wait("phrase 4 playing") { sink in sink.stops >= 1 && sink.samples.count > 4_000 }
        let samples = sink.samples
        let start = samples.indices.first { samples[$0...].starts(with: firstOfFour) }
        // The key came at 2,000 samples, while a 160-sample chunk was being written: phrase 4
        // begins once that chunk is out, long before phrase 1 (20,520 samples) could end.
        #expect(
            start != nil && (start ?? .max) <= 2_000 + 2 * 160,
            "phrase 4 began within a chunk of the key, at \(start ?? -1)")
        player.quit()
        sink.allow(.max) // the chunk it is holding goes out, then it sees the quit
        _ = try await player.finished()
    }

    @Test func aPausedPlayerWritesNothingUntilResumed() async throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(
            groups: Fixture.groups(audio), settings: StudySettings(rounds: 1), selection: [0])
        let sink = OutputSink(allowing: 2_000)
        let player = StudyPlayer(session: session, audio: audio, output: KeepingOutput(sink), realTime: false)
        _ = player.start()
        try await sink.wait("phrase 1 playing") { $0.samples.count >= 2_000 }
        player.send(.playPause)
        sink.allow(.max)
        // The chunk being written when the key came goes out; then the player stops the output.
        try await sink.wait("paused") { sink in player.display.phase == .paused && sink.stops >= 1 }
        let held = sink.samples.count
        try await Task.sleep(for: .milliseconds(200))
        #expect(sink.samples.count == held, "nothing written while paused")
        player.send(.playPause)
        try await sink.wait("resumed") { $0.samples.count > held }
        let studied = try await player.finished()
        #expect(
            studied[1]?.repetitions == 1 && studied[3]?.repetitions == 1, "the round plays to its end after the pause")
    }
}

/// What an output was given, kept where a test can look at it while the player runs; it may
/// hold the player once it has a set number of samples, until the test lets it go on.
final class OutputSink: Sendable {
    private struct State {
        var samples: [Float] = []
        var stops = 0
        var allowed = Int.max
    }
    private let state: Mutex<State>

    init(allowing allowed: Int = .max) { state = Mutex(State(allowed: allowed)) }

    var samples: [Float] { state.withLock { $0.samples } }
    var stops: Int { state.withLock { $0.stops } }
    /// Lets the player write up to `count` samples in all.
    func allow(_ count: Int) { state.withLock { $0.allowed = count } }
    func append(_ interleaved: UnsafeBufferPointer<Float>) {
        while state.withLock({ $0.samples.count >= $0.allowed }) { usleep(1_000) }
        state.withLock { $0.samples.append(contentsOf: interleaved) }
    }
    func stopped() { state.withLock { $0.stops += 1 } }

    /// Waits (up to a minute, for a busy machine) until `condition` holds: for a state, never a fixed time.
    func wait(_ what: String, _ condition: (OutputSink) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(self) {
            guard ContinuousClock.now < deadline else {
                Issue.record(
                    "the player never reached the state waited for: \(what) (\(samples.count) samples, \(stops) stops)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// An output that hands what it is given to a sink.
final class KeepingOutput: StudyOutput {
    let sampleRate = 16_000
    let channelCount = 1
    private let sink: OutputSink
    init(_ sink: OutputSink) { self.sink = sink }
    func write(_ interleaved: UnsafeBufferPointer<Float>) throws { sink.append(interleaved) }
    func stop() { sink.stopped() }
    func finish() throws {}
}
