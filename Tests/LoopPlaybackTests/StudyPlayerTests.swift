import Foundation
import LoopAudio
import LoopPlayback
import LoopStudy
import LoopTestSupport
import Testing

extension Fixture {
    /// The clean take's five phrases as clips (frames at 16 kHz), in two groups: 1-3 and 4-5.
    static let clips: [ClipSource] = [
        (1, 6_080..<26_600), (2, 35_200..<59_900), (3, 63_900..<72_600), (4, 88_900..<117_500), (5, 123_400..<147_400),
    ].map { ClipSource(phrase: $0.0, takePath: path("clean.flac"), frames: $0.1) }

    static func groups(_ audio: StudyAudio) -> [[StudyPhrase]] {
        [[1, 2, 3], [4, 5]].map { $0.map { StudyPhrase(number: $0, text: "phrase \($0)", duration: audio.duration(of: $0)) } }
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
        let perSecond = Double(crossings(slow[8_000..<24_000]))   // one second from the middle
        #expect(abs(perSecond - 440) < 10, "pitch kept: \(perSecond) Hz")
    }
}

struct StudyPlayerTests {
    @Test func listenAndRepeatRendersTheGroupThenAsMuchSilence() throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(groups: Fixture.groups(audio), settings: StudySettings(mode: .listenAndRepeat, rounds: 1), selection: [1])
        let path = temporaryPath("wav")
        let output = try FileOutput(path: path, sampleRate: audio.sampleRate, channelCount: 1)
        let studied = try StudyPlayer(session: session, audio: audio, output: output, realTime: false).run()

        let rendered = try samples(of: path)
        let group = try audio.clip(4, speed: 1) + audio.clip(5, speed: 1)
        #expect(abs(rendered.count - 2 * group.count) <= 1)
        let worst = zip(rendered, group).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1.0 / 16_000, "the group's own samples (16-bit file)")
        #expect(rendered[group.count...].allSatisfy { $0 == 0 }, "then silence")
        #expect(studied[4]?.repetitions == 1 && studied[1] == nil)
    }

    @Test func throughALSATheDeviceGetsTheGroupThenSilenceSampleForSample() throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(groups: Fixture.groups(audio), settings: StudySettings(mode: .listenAndRepeat, rounds: 1), selection: [0])
        let raw = temporaryPath("raw")
        // The ALSA `file` plugin over `null`: real ALSA calls, the sound captured in a file.
        let output = try DeviceOutput(device: "file:FILE=\(raw),FORMAT=raw", sampleRate: audio.sampleRate, channelCount: 1)
        try StudyPlayer(session: session, audio: audio, output: output, realTime: false).run()

        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let played = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let group = try (1...3).flatMap { try audio.clip($0, speed: 1) }
        #expect(abs(played.count - 2 * group.count) <= 1)
        #expect(Array(played.prefix(group.count)) == group, "bit for bit")
        #expect(played[group.count...].allSatisfy { $0 == 0 })
    }

    @Test func repeatWithMeLeavesAGapAfterEachPhrase() throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(groups: Fixture.groups(audio), settings: StudySettings(gapFactor: 0.5, fixedPause: 200_000, rounds: 1), selection: [1])
        let output = NullOutput(sampleRate: 16_000, channelCount: 1)
        try StudyPlayer(session: session, audio: audio, output: output, realTime: false).run()
        let phrases = [28_600, 24_000]   // frames of phrases 4 and 5
        let expected = phrases.reduce(0) { $0 + $1 + $1 / 2 + 3_200 }
        #expect(abs(output.framesWritten - expected) <= 2)
    }

    @Test func anEventCutsTheCurrentSoundShort() throws {
        let audio = try StudyAudio.load(Fixture.clips)
        let session = try StudySession(groups: Fixture.groups(audio), settings: StudySettings(), selection: [0])
        let output = RecordingOutput()
        let player = StudyPlayer(session: session, audio: audio, output: output, realTime: true)
        let done = NSCondition()
        nonisolated(unsafe) var ended = false
        let thread = Thread {
            _ = try? player.run()
            done.withLock { ended = true; done.signal() }
        }
        thread.start()
        Thread.sleep(forTimeInterval: 0.3)
        player.send(.nextGroup)
        Thread.sleep(forTimeInterval: 0.3)
        player.quit()
        done.withLock { while !ended { done.wait() } }
        // Phrase 1 began; after the event, phrase 4 (group 2) began well before phrase 1 ended.
        #expect(output.stops >= 1)
        let firstOfFour = try audio.clip(4, speed: 1).prefix(160)
        let start = output.samples.indices.first { output.samples[$0...].starts(with: firstOfFour) }
        #expect(start != nil && start! < 20_600, "phrase 4 started before phrase 1 (20,520 frames) could end")
        // How fast that was is `loop benchmark study`'s to measure, not a test's.
        #expect(player.lastResponseTime != nil, "the new sound's arrival was noted")
    }
}

/// An output that keeps what it is given (for tests that look at timing and interruptions).
final class RecordingOutput: StudyOutput, @unchecked Sendable {
    let sampleRate = 16_000
    let channelCount = 1
    private let lock = NSLock()
    private var written: [Float] = []
    private var stopCount = 0

    var samples: [Float] { lock.withLock { written } }
    var stops: Int { lock.withLock { stopCount } }

    func write(_ interleaved: UnsafeBufferPointer<Float>) throws { lock.withLock { written.append(contentsOf: interleaved) } }
    func stop() { lock.withLock { stopCount += 1 } }
    func finish() throws {}
}
