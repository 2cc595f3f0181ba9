import Foundation
import LoopTestSupport
import Testing

/// A film with subtitles into a loop, and loops out as subtitles and labels, read back by the
/// reference readers (webvtt-py and srt, Debian's python3-webvtt and python3-srt).
struct SubtitleCommandTests {
    struct Truth: Decodable {
        struct Phrase: Decodable {
            var text: String
            var start: Double
            var end: Double
        }
        var phrases: [Phrase]
    }

    static let truth = try! JSONDecoder().decode(
        Truth.self, from: Data(contentsOf: URL(fileURLWithPath: Fixture.path("truth.json"))))
    static let english = [
        "Hello, madam.", "A coffee, please.", "Thanks.", "Where is the station, please?", "Right, then straight on.",
    ]

    static func time(_ seconds: Double, _ separator: String) -> String {
        let ms = Int((seconds * 1000).rounded())
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "00:" + two(ms / 60_000) + ":" + two(ms / 1000 % 60) + separator
            + String(String(ms % 1000 + 1000).dropFirst())
    }

    /// The fixture's phrases as SubRip cues `shift` seconds off the speech, each edge jittered
    /// further, with a BOM, CRLF, a tag and a speaker label; and the English as WebVTT.
    func subtitles(shift: Double) throws -> (srt: String, vtt: String) {
        let jitter = [0.08, -0.06, 0.05, -0.09, 0.07]
        var srt = "\u{FEFF}"
        for (index, phrase) in Self.truth.phrases.enumerated() {
            let text = index == 1 ? "<i>MARIE: \(phrase.text)</i>" : phrase.text
            srt +=
                "\(index + 1)\r\n\(Self.time(phrase.start + shift + jitter[index], ",")) --> \(Self.time(phrase.end + shift - jitter[index], ","))\r\n\(text)\r\n\r\n"
        }
        var vtt = "WEBVTT\n\n"
        for (index, phrase) in Self.truth.phrases.enumerated() {
            vtt +=
                "\(Self.time(phrase.start - 0.1, ".")) --> \(Self.time(phrase.end + 0.1, ".")) align:start\n\(Self.english[index])\n\n"
        }
        let srtPath = Scratch.path("cues", extension: "srt")
        let vttPath = Scratch.path("english", extension: "vtt")
        try srt.write(toFile: srtPath, atomically: true, encoding: .utf8)
        try vtt.write(toFile: vttPath, atomically: true, encoding: .utf8)
        return (srtPath, vttPath)
    }

    @Test(arguments: [-0.3, -0.12, 0.2, 0.4])
    func shiftedCuesAreCutAtTheSpeechsEdges(shift: Double) throws {
        let (srt, vtt) = try subtitles(shift: shift)
        let library = TestLibrary()
        let created = try library.run([
            "new", "--media", "film.mp4", "--subtitles", srt, "--translation", vtt, "--translation-language", "en",
            "--language", "fr", "--title", "Film",
        ])
        #expect(
            created.status == 0 && created.output.contains("1 group, 5 phrases"), "\(created.output) \(created.error)")
        let shown = try #require(try library.json(["show", "Film"]) as? [String: Any])
        let phrases = ((shown["groups"] as? [[String: Any]]) ?? []).flatMap {
            ($0["phrases"] as? [[String: Any]]) ?? []
        }
        #expect(
            phrases.compactMap { $0["text"] as? String } == Self.truth.phrases.map(\.text),
            "tags and the speaker label cleaned")
        #expect(phrases.compactMap { $0["translation"] as? String } == Self.english)
        let truth = Self.truth.phrases
        for (index, phrase) in phrases.enumerated() {
            let start = try #require(phrase["start"] as? Double)
            let end = try #require(phrase["end"] as? Double)
            // The whole phrase, and none of its neighbours: each edge in the pause around it.
            #expect(
                start <= truth[index].start + 0.02 && start >= (index > 0 ? truth[index - 1].end - 0.02 : 0),
                "shift \(shift): phrase \(index + 1) starts at \(start), its speech at \(truth[index].start)")
            #expect(
                end >= truth[index].end - 0.02 && end <= (index + 1 < truth.count ? truth[index + 1].start + 0.02 : 10),
                "shift \(shift): phrase \(index + 1) ends at \(end), its speech at \(truth[index].end)")
        }
    }

    /// Without --language, the loop's language is guessed from its cues (as the aligner guesses
    /// a text's), the translation's from its file, and a note says what was chosen.
    @Test func aLoopFromSubtitlesTakesTheLanguageOfItsCuesAndSaysSo() throws {
        let (srt, vtt) = try subtitles(shift: 0)
        let library = TestLibrary()
        let created = try library.run(["new", "--media", "film.mp4", "--subtitles", srt, "--translation", vtt])
        #expect(created.status == 0, "\(created.error)")
        #expect(
            created.error.contains(
                "note: titled 'film' after the media file, language fr guessed from the subtitles, translation language en guessed from its file"
            ), "\(created.error)")
        let shown = try #require(try library.json(["show", "film"]) as? [String: Any])
        #expect(shown["language"] as? String == "fr" && shown["translationLanguage"] as? String == "en", "\(shown)")
        // Given, nothing is guessed nor said.
        let given = try library.run([
            "new", "--media", "film.mp4", "--subtitles", srt, "--language", "fr", "--title", "Given",
        ])
        #expect(given.status == 0 && !given.error.contains("guessed"), "\(given.error)")
    }

    @Test func groupsByPauseOrSizeAndShiftFixesLateSubtitles() throws {
        let (srt, _) = try subtitles(shift: 1.5)
        let library = TestLibrary()
        #expect(
            try library.run([
                "new", "--media", "phone.m4a", "--subtitles", srt, "--shift", "-1500", "--group-pause", "1",
                "--title", "Paused",
            ]).output.contains("2 groups, 5 phrases"), "the 1.1 s pause parts the groups")
        #expect(
            try library.run([
                "new", "--media", "phone.m4a", "--subtitles", srt, "--shift", "-1500", "--group-size", "2",
                "--title", "Sized",
            ]).output.contains("3 groups, 5 phrases"))
        let far = try library.run([
            "new", "--media", "phone.m4a", "--subtitles", srt, "--shift", "600000", "--title", "Far",
        ])
        #expect(far.status != 0 && far.error.contains("no cue of the subtitles lies within the audio"), "\(far.error)")
        let bad = Scratch.path("bad", extension: "srt")
        try "1\n00:00:01,000 --> 00:00:00,500\nOops\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try library.run(["new", "--media", "phone.m4a", "--subtitles", bad])
        #expect(
            refused.status != 0 && refused.error == "error: \(bad):2: the cue ends (00:00:00,500) before it starts\n",
            "\(refused.error)")
        // A time that would overflow a frame count is refused on its line, not trapped on.
        let distant = Scratch.path("distant", extension: "srt")
        try "1\n00:00:01,000 --> 99999999999999999999:00:00,000\nOops\n".write(
            toFile: distant, atomically: true, encoding: .utf8)
        let overflow = try library.run(["new", "--media", "phone.m4a", "--subtitles", distant])
        #expect(
            overflow.status == 1 && overflow.error.hasPrefix("error: \(distant):2: the time line")
                && overflow.error.contains("past 100 hours"), "\(overflow.error)")
        // Cue text passes the border check text files and bundles pass: no NUL, no escape, no
        // phrase longer than a bundle carries.
        for (text, expected) in [
            ("nul\u{0}here", ":3: the cue's text"), ("\u{1B}]0;PWNED\u{07}", ":3: the cue's text"),
            ("Fine line\nthen a bell\u{07}", ":4: the cue's text"),
            (String(repeating: "word ", count: 1_000_000), ":3: the cue is longer than 4000 characters"),
        ] {
            let hostile = Scratch.path("hostile", extension: "srt")
            try "1\n00:00:01,000 --> 00:00:02,000\n\(text)\n".write(toFile: hostile, atomically: true, encoding: .utf8)
            let result = try library.run(["new", "--media", "phone.m4a", "--subtitles", hostile])
            #expect(
                result.status == 1 && result.error.hasPrefix("error: \(hostile)\(expected)")
                    && result.error.split(separator: "\n").count == 1,
                "\(result.error.prefix(200))")
        }
        #expect((try library.json(["list"]) as? [Any])?.count == 2, "nothing added by the refused imports")
    }

    /// Dialogue spoken without a break, its cues each half a second or more off the words: every
    /// clip starts and ends on its own words, where the aligner hears one sentence end.
    /// Also with the audio ending as the last words do (a clip cut tight), where the last run
    /// reaches the take's last frame.
    @Test(arguments: [0.5, 0])
    func cuesOverSpeechWithoutPausesAreCutWhereTheWordsChange(silenceAfter: Double) throws {
        let sentences = [
            "We ordered soup, bread and a large salad for the table.",
            "The flight was delayed, so we missed our connection in Madrid.",
            "For breakfast, I usually have toast with butter and jam.",
            "If the shop is closed, we can buy milk at the petrol station.",
            "Our neighbours invited us for coffee on Sunday afternoon.",
        ]
        let take = try SpokenTake.continuous(sentences, after: silenceAfter)
        // Each cue boundary off the speech by 0.5 to 0.8 s, one way or the other.
        let off = [0.0, 0.6, -0.5, 0.8, -0.7, 0.0]
        var srt = ""
        for (index, span) in take.phrases.enumerated() {
            let end = min(span.upperBound + off[index + 1] - 0.001, take.phrases.last!.upperBound + silenceAfter)
            srt +=
                "\(index + 1)\n\(Self.time(span.lowerBound + off[index], ",")) --> \(Self.time(end, ","))\n\(sentences[index])\n\n"
        }
        let cues = Scratch.path("dialogue", extension: "srt")
        try srt.write(toFile: cues, atomically: true, encoding: .utf8)
        let library = TestLibrary()
        let created = try library.run([
            "new", "--media", take.path, "--subtitles", cues, "--language", "en", "--title", "Dialogue",
        ])
        #expect(created.status == 0 && created.output.contains("5 phrases"), "\(created.output) \(created.error)")
        let shown = try #require(try library.json(["show", "Dialogue"]) as? [String: Any])
        let phrases = ((shown["groups"] as? [[String: Any]]) ?? []).flatMap {
            ($0["phrases"] as? [[String: Any]]) ?? []
        }
        #expect(phrases.count == sentences.count)
        for (index, phrase) in phrases.enumerated() {
            let start = try #require(phrase["start"] as? Double)
            let end = try #require(phrase["end"] as? Double)
            let truth = take.phrases[index]
            #expect(
                abs(start - truth.lowerBound) < 0.12,
                "phrase \(index + 1) starts at \(start), its words at \(truth.lowerBound)")
            #expect(
                abs(end - truth.upperBound) < 0.15,
                "phrase \(index + 1) ends at \(end), its words at \(truth.upperBound)")
        }
    }

    /// Runs Python (Debian's, with its packages) and returns what it prints.
    func python(_ script: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(failure)")
        return text
    }

    @Test func exportsReadBackInTheirReferenceReaders() throws {
        let library = TestLibrary()
        let text = Scratch.path("lesson", extension: "txt")
        try
            "# title: Lesson\n# language: fr\n# translation: en\n\nBonjour, madame. | Hello, madam.\nUn café, s'il vous plaît. | A coffee, <please> & thanks.\nMerci.\n\nOù est la gare, s'il vous plaît ?\nÀ droite, puis tout droit.\n"
            .write(toFile: text, atomically: true, encoding: .utf8)
        #expect(try library.run(["new", "--text", text, "--audio", "clean.flac"]).status == 0)
        let shown = try #require(try library.json(["show", "Lesson"]) as? [String: Any])
        let phrases = ((shown["groups"] as? [[String: Any]]) ?? []).flatMap {
            ($0["phrases"] as? [[String: Any]]) ?? []
        }
        let starts = phrases.compactMap { $0["start"] as? Double }
        let ends = phrases.compactMap { $0["end"] as? Double }

        let vtt = Scratch.path("lesson", extension: "vtt")
        let srt = Scratch.path("lesson", extension: "srt")
        let labels = Scratch.path("lesson", extension: "txt")
        #expect(try library.run(["export", "Lesson", "--format", "vtt", "-o", vtt, "--translations"]).status == 0)
        #expect(try library.run(["export", "Lesson", "--format", "srt", "-o", srt]).status == 0)
        #expect(try library.run(["export", "Lesson", "--format", "labels", "-o", labels]).status == 0)
        // webvtt-py gives the cue's payload as written; its entities decode to the text.
        let fromVTT = try python(
            "import webvtt, html\nfor c in webvtt.read('\(vtt)'): print(c.start_in_seconds, c.end_in_seconds, html.unescape(c.text).replace('\\n', ' / '))"
        )
        let vttLines = fromVTT.split(separator: "\n")
        #expect(vttLines.count == 5)
        #expect(vttLines[1].hasSuffix(" Un café, s'il vous plaît. / A coffee, <please> & thanks."), "\(vttLines[1])")
        let fromSRT = try python(
            "import srt\nfor c in srt.parse(open('\(srt)', encoding='utf-8').read()): print(c.start.total_seconds(), c.end.total_seconds(), c.content)"
        )
        let srtLines = fromSRT.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 2).map(String.init) }
        #expect(srtLines.count == 5 && srtLines.map { $0[2] } == phrases.compactMap { $0["text"] as? String })
        #expect(
            zip(srtLines, zip(starts, ends)).allSatisfy {
                abs(Double($0[0])! - $1.0) < 0.002 && abs(Double($0[1])! - $1.1) < 0.002
            }, "times over the take")
        let labelLines = try String(contentsOfFile: labels, encoding: .utf8).split(separator: "\n")
        #expect(labelLines.count == 5 && labelLines[0].hasSuffix("\tBonjour, madame."))

        // --clips: the clips joined, and the subtitles follow them.
        let joined = Scratch.path("joined", extension: "srt")
        #expect(try library.run(["export", "Lesson", "--format", "srt", "-o", joined, "--clips"]).status == 0)
        let audio = joined.replacingOccurrences(of: ".srt", with: ".flac")
        #expect(FileManager.default.fileExists(atPath: audio))
        let joinedCues = try python(
            "import srt\nfor c in srt.parse(open('\(joined)', encoding='utf-8').read()): print(c.start.total_seconds(), c.end.total_seconds())"
        )
        .split(separator: "\n").map { $0.split(separator: " ").map { Double($0)! } }
        let lengths = zip(starts, ends).map { $1 - $0 }
        #expect(
            joinedCues.first?[0] == 0 && abs((joinedCues.last?[1] ?? 0) - lengths.reduce(0, +)) < 0.005, "\(joinedCues)"
        )
        let refused = try library.run(["export", "Lesson", "Lesson", "--format", "srt", "-o", joined])
        #expect(refused.status != 0 && refused.error.contains("writes one loop"))
    }
}
