import ArgumentParser
import Foundation
import LoopAudio
import LoopCLI
import LoopFoundation
import LoopModel
import LoopPlayback
import LoopReports
import LoopShadowing
import LoopSpeech
import LoopStore
import LoopStudy
import LoopTerminal
import LoopText
import LoopWorkflows
import Synchronization

struct StudyBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "study",
        abstract:
            "Time from a key press to its sound, from `loop study` to the first sound, and from an attempt's end to its score.",
        discussion: """
            Key to sound: a study session plays the sample loop through ALSA while events arrive \
            every 150 ms; for each, the time until the new sound is queued on the device, plus \
            what the device still holds ahead of it. First sound: `loop study` is started --runs \
            times and the time to its first frame reaching ALSA is taken. Without --device, ALSA's \
            `file` plugin over `null` stands in for a sound card (Resources/alsa/file-output.conf), \
            so the figures leave out the card's own buffer. Attempt to score (`loop study \
            --shadow`): phrases of about 2, 5 and 10 s rendered by espeak-ng as the model and, in \
            another voice and at another speed, as the attempt; the model measured beforehand (as \
            while the phrase plays), the time to score the attempt. Goals: under 50 ms, under \
            150 ms and under 100 ms.
            """
    )

    @Option(help: "The ALSA device (default: the file plugin over null, as on a machine without a sound card).")
    var device: String?

    @Option(help: "Runs of each measurement; medians and the slowest are shown.")
    var runs: Int = 20

    func validate() throws {
        guard (1...1_000).contains(runs) else { throw ValidationError("--runs takes 1 to 1000") }
    }

    func run() async throws {
        try await runReportingErrors {
            guard let take = RepositoryFiles.locate("loops/au-cafe/take.flac"),
                let text = RepositoryFiles.locate("loops/au-cafe/text.txt"),
                let config = RepositoryFiles.locate("Resources/alsa/file-output.conf")
            else {
                throw CommandRefusal("the bundled sample loop or Resources/alsa was not found; run from the repository")
            }
            let folder = NSTemporaryDirectory() + "loop-benchmark-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let library = try LibraryStore(at: folder + "/library")
            let loop = try await Library(store: library).author(
                source: try LoopSource(contentsOf: text), sourceText: nil, takePath: take
            ).loop
            let deviceName = device ?? "file:FILE=/dev/null,FORMAT=raw"

            // Key to sound, in process: the time from an event to the first frame of its new
            // sound written to the device, plus what the device still held ahead of it.
            let prepared = try await Library(store: library).prepare(loop: loop.summary.id)
            let session = try StudySession(groups: prepared.groups, settings: StudySettings())
            let probe = ResponseProbe()
            let output = TimedOutput(
                try DeviceOutput(
                    device: deviceName, sampleRate: prepared.audio.sampleRate, channelCount: prepared.audio.channelCount
                ),
                probe: probe)
            let player = StudyPlayer(session: session, audio: prepared.audio, output: output, realTime: true)
            let playing = Task { try await player.play() }
            var responses: [Duration] = []
            var missing = 0
            let events: [StudyEvent] = [.nextPhrase, .nextGroup, .previousPhrase, .switchMode]
            for index in 0..<runs {
                try await Task.sleep(for: .milliseconds(150))
                probe.mark()
                player.send(events[index % events.count])
                try await Task.sleep(for: .milliseconds(60))
                if let response = probe.response() { responses.append(response) } else { missing += 1 }
            }
            player.quit()
            _ = try await playing.value

            // First sound: the whole command, as a person starts it.
            let executable = LoopProgram.path
            var firstSounds: [Duration] = []
            for _ in 0..<max(3, runs / 4) {
                let played = folder + "/played-\(UUID().uuidString).raw"
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments =
                    ["study", String(loop.summary.id.prefix(8)), "--library", folder + "/library"]
                    + (device.map { ["--device", $0] } ?? [])
                var environment = ProcessInfo.processInfo.environment
                environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:" + config
                environment["LOOP_ALSA_OUTPUT"] = played
                process.environment = environment
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let started = ContinuousClock.now
                try process.run()
                while ContinuousClock.now - started < .seconds(5) {
                    let size = (try? FileManager.default.attributesOfItem(atPath: played)[.size] as? Int) ?? nil
                    if let size, size > 0 {
                        firstSounds.append(ContinuousClock.now - started)
                        break
                    }
                    usleep(500)
                }
                process.terminate()
                process.waitUntilExit()
            }
            print("sound: \(device ?? "ALSA file plugin over null (no sound card)")")
            print(Self.row("key press to its sound", responses, goal: .milliseconds(50)))
            if missing > 0 {
                print(
                    "  (\(missing) of \(runs) key presses brought no new sound within 60 ms: left out of the figures above)"
                )
            }
            print(Self.row("`loop study` to first sound", firstSounds, goal: .milliseconds(150)))
            for (seconds, scoring) in try Self.scoringTimes(runs: runs) {
                print(
                    Self.row(
                        String(format: "attempt to score (%.1f s)", seconds), scoring, goal: .milliseconds(100)))
            }
        }
    }

    /// Phrases of about 2, 5 and 10 s, each the model's length and the times to score an attempt.
    static func scoringTimes(runs: Int) throws -> [(Double, [Duration])] {
        let phrases = [
            "Could you tell me the way to the station, please?",
            "We ordered soup, bread and a large salad for the table, and then coffee with a slice of cake.",
            "If the shop on the corner is already closed when we get there, we can still buy milk and bread at the"
                + " petrol station, which stays open until midnight, and walk home along the river.",
        ]
        return try phrases.map { text in
            let model = try SpeechSynthesizer.shared.render([text], voice: "en", wordsPerMinute: 165)[0]
            let attempt = try SpeechSynthesizer.shared.render([text], voice: "en-us+f3", wordsPerMinute: 150)[0]
            let attemptSamples = try Resampler(from: attempt.sampleRate, to: 16_000, channelCount: 1).process(
                attempt.samples)
            let scorer = try AttemptScorer(
                model: model.samples, sampleRate: model.sampleRate, attemptSampleRate: 16_000, text: text,
                language: "en", synthesizer: .shared)
            var times: [Duration] = []
            for _ in 0..<max(3, runs / 2) {
                let started = ContinuousClock.now
                _ = try scorer.score(attemptSamples)
                times.append(ContinuousClock.now - started)
            }
            return (Double(model.samples.count) / Double(model.sampleRate), times)
        }
    }

    static func row(_ name: String, _ values: [Duration], goal: Duration) -> String {
        let sorted = values.sorted()
        guard let worst = sorted.last else { return "  " + name + ": not measured" }
        let median = sorted[sorted.count / 2]
        func ms(_ duration: Duration) -> Double { duration / .milliseconds(1) }
        return "  " + name.padding(toLength: 30, withPad: " ", startingAt: 0)
            + String(
                format: "median %6.1f ms   slowest %6.1f ms   goal < %.0f ms %@", ms(median), ms(worst), ms(goal),
                worst < goal ? "met" : (median < goal ? "met by the median" : "missed"))
    }
}

/// When a benchmark's event was sent, and when its new sound reached the device.
final class ResponseProbe: Sendable {
    private struct State {
        var marked: ContinuousClock.Instant?
        var stopped = false
        var response: Duration?
    }
    private let state = Mutex(State())

    /// An event is about to be sent.
    func mark() { state.withLock { $0 = State(marked: .now) } }
    /// The player dropped what the device held (it noticed the event).
    func stopped() { state.withLock { if $0.marked != nil { $0.stopped = true } } }
    /// New sound is being written, `ahead` of it still queued on the device.
    func wrote(ahead: Duration) {
        state.withLock { state in
            guard let marked = state.marked, state.stopped, state.response == nil else { return }
            state.response = ContinuousClock.now - marked + ahead
        }
    }
    /// The last event's time to its sound, if it came.
    func response() -> Duration? { state.withLock { $0.response } }
}

/// A device output that tells a probe when new sound follows an event.
final class TimedOutput: StudyOutput {
    private let device: DeviceOutput
    private let probe: ResponseProbe
    var sampleRate: Int { device.sampleRate }
    var channelCount: Int { device.channelCount }

    init(_ device: DeviceOutput, probe: ResponseProbe) {
        self.device = device
        self.probe = probe
    }

    func write(_ interleaved: UnsafeBufferPointer<Float>) throws {
        let queued = device.device.queuedFrames
        probe.wrote(ahead: .microseconds(Int64(queued) * 1_000_000 / Int64(sampleRate)))
        try device.write(interleaved)
    }
    func stop() {
        device.stop()
        probe.stopped()
    }
    func finish() throws { try device.finish() }
}
