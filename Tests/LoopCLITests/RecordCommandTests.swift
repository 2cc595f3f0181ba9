import Foundation
import LoopAudioFiles
import LoopTestSupport
import Testing

/// A three-group text of the fixture's five phrases.
func threeGroupText() throws -> String {
    let path = Scratch.path("three", extension: "txt")
    try
        "# title: Three\n# language: fr\n\nBonjour, madame.\nUn café, s'il vous plaît.\n\nMerci.\n\nOù est la gare, s'il vous plaît ?\nÀ droite, puis tout droit.\n"
        .write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Every phrase's clip holds its speech and its cuts lie in the pauses around it.
func expectRecordedClips(
    _ library: TestLibrary, title: String,
    truth: [(start: Double, end: Double)] = Fixture.truth.map { ($0.start, $0.end) },
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let shown = try #require(try library.json(["show", title]) as? [String: Any], sourceLocation: sourceLocation)
    let phrases = try #require(
        (shown["groups"] as? [[String: Any]])?.flatMap { ($0["phrases"] as? [[String: Any]]) ?? [] },
        sourceLocation: sourceLocation)
    #expect(phrases.count == 5, sourceLocation: sourceLocation)
    for (index, phrase) in phrases.enumerated() {
        let start = try #require(phrase["start"] as? Double, sourceLocation: sourceLocation)
        let end = try #require(phrase["end"] as? Double, sourceLocation: sourceLocation)
        let (trueStart, trueEnd) = truth[index]
        #expect(
            start <= trueStart + 0.03 && end >= trueEnd - 0.03, "phrase \(index + 1) clipped: \(start)-\(end)",
            sourceLocation: sourceLocation)
        let previousEnd = index > 0 ? truth[index - 1].end : 0
        let nextStart = index + 1 < truth.count ? truth[index + 1].start : 99
        #expect(
            start >= previousEnd && end <= nextStart, "phrase \(index + 1) reaches into its neighbour: \(start)-\(end)",
            sourceLocation: sourceLocation)
    }
}

struct RecordCommandTests {
    /// `loop record three` at 16 kHz from ALSA's file plugin reading `microphone`
    /// (Resources/alsa/file-input.conf).
    func startRecording(_ library: TestLibrary, microphone: String) throws -> LoopProcess.Running {
        let config = LoopProcess.packageRoot.appendingPathComponent("Resources/alsa/file-input.conf").path
        return try LoopProcess.start(
            ["record", "three", "--rate", "16000"],
            environment: [
                "LOOP_LIBRARY": library.path, "ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:" + config,
                "LOOP_ALSA_INPUT": microphone,
            ])
    }

    @Test func capturingThroughALSAFindsEveryPhraseOfAThreeGroupText() throws {
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", try threeGroupText()]).status == 0)
        // The microphone: ALSA's file plugin reads the take (float32) and then silence.
        var samples: [Float] = []
        var reader = try AudioFileReader(path: LoopProcess.fixtures + "/clean.flac")
        try reader.forEachBlock { block, _ in samples.append(contentsOf: block) }
        let raw = Scratch.path("mic", extension: "raw")
        try samples.withUnsafeBufferPointer { try Data(buffer: $0).write(to: URL(fileURLWithPath: raw)) }
        let recording = try startRecording(library, microphone: raw)
        // Capture from the file plugin runs faster than real time: interrupt once the recording
        // on disk holds the whole input (it is written as it is captured).
        let recordings = library.path + "/recordings"
        let deadline = Date().addingTimeInterval(30)
        func captured() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: recordings)) ?? []
            return names.filter { $0.hasSuffix(".raw") }.compactMap {
                try? FileManager.default.attributesOfItem(atPath: recordings + "/" + $0)[.size] as? Int
            }.max() ?? 0
        }
        while captured() < samples.count * 4 + 64_000, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        kill(recording.process.processIdentifier, SIGINT)
        let result = recording.finish()
        #expect(result.status == 0 && result.error.contains("--recover"), "\(result.error)")
        // Ctrl-C keeps what was recorded, for --recover.
        let recovered = try library.run(["record", "three", "--recover"])
        #expect(recovered.status == 0, "\(recovered.error)")
        try expectRecordedClips(library, title: "three")
        #expect(try library.run(["doctor"]).status == 0)
    }

    /// A microphone that stops delivering mid-take ends the recording within seconds with a
    /// line that says so; what was recorded is kept for --recover.
    @Test func aMicrophoneThatStallsEndsTheRecordingAndKeepsWhatItHeard() throws {
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", try threeGroupText()]).status == 0)
        // Two seconds of silence at 16 kHz (float32), then nothing.
        let (fifo, writer) = try stallingMicrophone(bytes: 2 * 16_000 * 4)
        defer { writer?.terminate() }
        let stalled = try startRecording(library, microphone: fifo).finish(limit: 60)
        #expect(stalled.status == 1, "\(stalled.error)")
        #expect(
            stalled.error.contains("error: the capture device 'default' delivered no sound for 5 s"), "\(stalled.error)"
        )
        let doctor = try library.run(["doctor"])
        #expect(doctor.status == 0)
        // All that came through is kept: the two seconds, and what ALSA's file plugin filled in
        // with silence where a read of the pipe came back short.
        let kept = doctor.output.firstMatch(of: /an interrupted recording \((\d+\.\d) s\) is kept/)
        #expect((kept.flatMap { Double($0.1) } ?? 0) >= 2, "\(doctor.output)")
    }

    @Test func aRecordingReplayedFromAFileIsSavedWithoutKeys() throws {
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", try threeGroupText()]).status == 0)
        let result = try library.run(["record", "three", "--input", "noisy-snr10.flac", "--fast"])
        // It says what it cut, as `loop new --audio` does.
        let shown = try #require(try library.json(["show", "three"]) as? [String: Any])
        let count = ((shown["groups"] as? [[String: Any]]) ?? []).flatMap { ($0["phrases"] as? [[String: Any]]) ?? [] }
            .count
        #expect(result.status == 0, "\(result.error)")
        #expect(
            result.output.lowercased().hasPrefix("recorded 'three'")
                && result.output.contains(": \(count) of \(count) phrases cut from the take"), "\(result.output)")
        try expectRecordedClips(library, title: "three")
    }

    @Test func shortPausesBetweenPhrasesEachEndAPhraseAndACommaDoesNot() throws {
        // The fixture's phrases read again with a quarter-second pause after each, hardly longer
        // than the comma in "À droite, puis tout droit.": only the text tells them apart.
        var samples: [Float] = []
        var reader = try AudioFileReader(path: Fixture.path("clean.flac"))
        try reader.forEachMonoBlock { samples.append(contentsOf: $0) }
        var take: [Float] = [Float](repeating: 0, count: 8_000)
        var truth: [(start: Double, end: Double)] = []
        for (_, start, end) in Fixture.truth {
            let from = Int((start - 0.02) * 16_000)
            let to = Int((end + 0.02) * 16_000)
            truth.append((Double(take.count) / 16_000 + 0.02, Double(take.count + to - from) / 16_000 - 0.02))
            take += samples[from..<to] + [Float](repeating: 0, count: Int(0.21 * 16_000))
        }
        let path = Scratch.path("short-pauses", extension: "wav")
        var writer = try AudioFileWriter(path: path, format: .wav, sampleRate: 16_000, channelCount: 1)
        try writer.write(take + [Float](repeating: 0, count: 8_000))
        try writer.commit()

        let library = TestLibrary()
        #expect(try library.run(["new", "--text", try threeGroupText()]).status == 0)
        let result = try library.run(["record", "three", "--input", path, "--fast"])
        #expect(result.status == 0, "\(result.error)")
        try expectRecordedClips(library, title: "three", truth: truth)
    }

    @Test func aRecordingReadWithoutPausesIsCutByItsWordsAndTheRestStillNeedAudio() throws {
        // Four of six sentences read straight through: the live view hears one long phrase, the
        // aligner the four sentences it holds.
        let sentences = [
            "We ordered soup, bread and a large salad for the table.",
            "The flight was delayed, so we missed our connection in Madrid.",
            "For breakfast, I usually have toast with butter and jam.",
            "If the shop is closed, we can buy milk at the petrol station.",
            "Our neighbours invited us for coffee on Sunday afternoon.",
            "My sister works as a nurse, so she often sleeps during the day.",
        ]
        let take = try SpokenTake.continuous(Array(sentences.prefix(4)))
        let text = Scratch.path("story", extension: "txt")
        try ("# title: Story\n# language: en\n\n" + sentences.joined(separator: "\n") + "\n").write(
            toFile: text, atomically: true, encoding: .utf8)
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", text]).status == 0)
        let result = try library.run(["record", "Story", "--input", take.path, "--fast"])
        #expect(result.status == 0, "\(result.error)")
        #expect(
            result.output.contains("4 of 6 phrases cut from the take") && result.error.contains("5-6 still need audio"),
            "\(result.output)\(result.error)")
        let shown = try #require(try library.json(["show", "Story"]) as? [String: Any])
        let phrases = ((shown["groups"] as? [[String: Any]]) ?? []).flatMap {
            ($0["phrases"] as? [[String: Any]]) ?? []
        }
        #expect(phrases.count == 6)
        for (index, phrase) in phrases.enumerated() {
            guard index < 4 else {
                #expect(phrase["start"] as? Double == nil, "phrase \(index + 1) was not read: it still needs audio")
                continue
            }
            let start = try #require(phrase["start"] as? Double)
            let end = try #require(phrase["end"] as? Double)
            #expect(
                abs(start - take.phrases[index].lowerBound) < 0.12 && abs(end - take.phrases[index].upperBound) < 0.15,
                "phrase \(index + 1): \(start)-\(end), its words \(take.phrases[index])")
        }
    }

    @Test func onlyTheRecordedGroupsPhrasesChange() throws {
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"]).status == 0)
        let before = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let (groupTake, offset) = try groupTwoTake()
        #expect(try library.run(["record", "fixture", "--group", "2", "--input", groupTake, "--fast"]).status == 0)
        let after = try #require(try library.json(["show", "fixture"]) as? [String: Any])
        let firstBefore = (before["groups"] as? [[String: Any]])?[0]["phrases"] as? [[String: Any]]
        let firstAfter = (after["groups"] as? [[String: Any]])?[0]["phrases"] as? [[String: Any]]
        #expect(
            firstBefore?.map { $0["start"] as? Double } == firstAfter?.map { $0["start"] as? Double },
            "group 1 keeps its audio")
        // Group 2 was recorded: its two phrases are cut from the new take, where it read them.
        let secondAfter = try #require((after["groups"] as? [[String: Any]])?[1]["phrases"] as? [[String: Any]])
        let secondBefore = try #require((before["groups"] as? [[String: Any]])?[1]["phrases"] as? [[String: Any]])
        #expect(
            secondAfter.map { $0["start"] as? Double } != secondBefore.map { $0["start"] as? Double },
            "group 2 has new clips")
        #expect(secondAfter.count == 2)
        for (phrase, truth) in zip(secondAfter, Fixture.truth.suffix(2)) {
            let start = try #require(phrase["start"] as? Double) + offset
            let end = try #require(phrase["end"] as? Double) + offset
            #expect(
                start <= truth.start + 0.03 && end >= truth.end - 0.03 && end - start < truth.end - truth.start + 0.4,
                "\(start)-\(end) for \(truth)")
        }
        #expect(try library.run(["doctor"]).status == 0)
    }

    @Test func perPhraseWithoutATerminalReadsStraightThroughAndSavesEveryPhrase() throws {
        // --per-phrase pauses after each phrase for a key; with no terminal there is no key, so
        // the recording reads on and saves as a whole take would.
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", try threeGroupText()]).status == 0)
        let result = try library.run(["record", "three", "--per-phrase", "--input", "clean.flac", "--fast"])
        #expect(result.status == 0, "\(result.error)")
        try expectRecordedClips(library, title: "three")
    }

    @Test func noCaptureDeviceNamesTheWayOut() throws {
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", "phrases.txt"]).status == 0)
        let result = try library.run(["record", "fixture", "--device", "hw:42"])
        #expect(
            result.status != 0 && result.error.hasPrefix("error: no capture device 'hw:42'")
                && result.error.contains("--input"))
        let rate = try library.run(["record", "fixture", "--rate", "0"])
        #expect(
            rate.status != 0 && rate.error.contains("--rate takes 8000 to 192000"),
            "not taken for a missing device: \(rate.error)")
    }
}

@Suite(.serialized)
struct RecordTerminalTests {
    @Test(.enabled(if: TerminalDriver.isAvailable))
    func theViewFollowsTheReadingAndTakesRerecordBackAndFinish() throws {
        let library = TestLibrary()
        #expect(try library.run(["new", "--text", try threeGroupText()]).status == 0)
        // Three seconds of silence, the first two phrases, then a minute of silence: each state
        // the test looks for lasts seconds, however slowly the screen is read (the take replays
        // at real speed), and the file never runs out while keys are pressed.
        let take = Scratch.path("take-then-silence", extension: "wav")
        var samples: [Float] = []
        var reader = try AudioFileReader(path: Fixture.path("clean.flac"))
        try reader.forEachMonoBlock { samples.append(contentsOf: $0) }
        let twoPhrases = samples[..<Int((Fixture.truth[1].end + 0.25) * 16_000)]
        var writer = try AudioFileWriter(path: take, format: .wav, sampleRate: 16_000, channelCount: 1)
        try writer.write(
            [Float](repeating: 0, count: 3 * 16_000) + twoPhrases + [Float](repeating: 0, count: 60 * 16_000))
        try writer.commit()
        let terminal = try TerminalDriver(name: "loop-record", columns: 110, rows: 30)
        try terminal.type(
            "export LOOP_LIBRARY='\(library.path)'; '\(LoopProcess.executable.path)' record three --input '\(take)'; echo \"exit=$?\""
        )

        var shown = try terminal.waitFor("0 of 5 phrases done")
        #expect(shown.contains("▶ Bonjour, madame.") && shown.contains("level"))
        shown = try terminal.waitFor("2 of 5 phrases done") // read at real speed
        #expect(
            shown.contains("Group 2") && shown.contains("▶ Merci.") && !shown.contains("Bonjour"),
            "the current group, whole")
        // Paused, the take stops counting; resumed, it goes on.
        try terminal.press(" ")
        try terminal.waitFor("paused")
        try terminal.press(" ")
        try terminal.waitFor("recording")
        try terminal.press("b") // back one: read phrase 2 again
        try terminal.waitFor("1 of 5 phrases done")
        try terminal.press("r")
        try terminal.press("q")
        try terminal.waitFor("Quit without saving")
        try terminal.press("n") // no: go on
        try terminal.waitFor("r read it again")
        try terminal.press("Enter") // finish and save now
        shown = try terminal.waitFor("exit=0")
        #expect(!shown.contains("phrases done"), "the view is gone")
        let loops = try #require(try library.json(["list"]) as? [[String: Any]])
        // Phrase 2 was taken back: only phrase 1 was read, and only it was saved.
        #expect(loops.first?["needingAudio"] as? Int == 4, "the phrase read was saved: \(loops)")
    }
}
