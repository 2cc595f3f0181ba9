import Foundation
import LoopExchange
import LoopFoundation
import Testing

/// Subtitle files as they come from the web and from players: what is read, repaired and refused.
struct SubtitleReaderTests {
    func parse(_ text: String, _ format: SubtitleFormat = .srt, bytes: [UInt8]? = nil) throws -> [SubtitleCue] {
        try SubtitleReader.parse(Data(bytes ?? Array(text.utf8)), format: format, file: "cues." + format.rawValue)
    }

    @Test func readsSubRipWithBOMAndCRLFAndCleansTheText() throws {
        let text =
            "\u{FEFF}1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>- JEAN: Bonjour</i>\r\n{\\an8}tout le monde !\r\n\r\n"
            + "2\r\n00:00:03,000 --> 00:00:04,000\r\n[Musique]\r\n\r\n3\r\n00:00:05,250 --> 00:00:06,000\r\nÇa va ? (rires) &amp; toi\r\n"
        let cues = try parse(text)
        #expect(
            cues == [
                SubtitleCue(start: 1, end: 2.5, text: "Bonjour tout le monde !"),
                SubtitleCue(start: 5.25, end: 6, text: "Ça va ? & toi"),
            ],
            "the sound-only cue is dropped, tags, labels and descriptions go")
    }

    @Test func readsWebVTTWithSettingsNotesAndShortTimes() throws {
        let text =
            "WEBVTT - a film\nKind: captions\n\nNOTE made by hand\nover two lines\n\nSTYLE\n::cue { color: red }\n\n"
            + "intro\n00:01.000 --> 00:02.000 align:start position:10%\n<v Anna>Hallo</v>\n\n01:00:00.500 --> 01:00:01.000\nTschüss\n"
        let cues = try parse(text, .vtt)
        #expect(
            cues == [
                SubtitleCue(start: 1, end: 2, text: "Hallo"), SubtitleCue(start: 3600.5, end: 3601, text: "Tschüss"),
            ])
    }

    @Test func overlapsAreRepairedAndOrderRestored() throws {
        let text = "1\n00:00:05,000 --> 00:00:06,000\nB\n\n2\n00:00:01,000 --> 00:00:05,500\nA\n"
        #expect(
            try parse(text) == [SubtitleCue(start: 1, end: 5, text: "A"), SubtitleCue(start: 5, end: 6, text: "B")])
    }

    @Test func badFilesAreRefusedWithTheLine() throws {
        func message(_ text: String, _ format: SubtitleFormat = .srt, bytes: [UInt8]? = nil) -> String {
            do {
                _ = try parse(text, format, bytes: bytes)
                return "read"
            } catch let error as ExchangeError {
                return error.description
            } catch {
                return "\(error)"
            }
        }
        #expect(
            message("1\n00:00:01,000 -> 00:00:02,000\nHi\n")
                == "cues.srt:1: expected a time line such as 00:00:01,000 --> 00:00:02,500, found \"1\"")
        #expect(
            message("1\n00:00:01,000 --> 00:00:0x,000\nHi\n")
                == "cues.srt:2: malformed time line \"00:00:01,000 --> 00:00:0x,000\": expected 00:00:01,000 --> 00:00:02,500"
        )
        #expect(
            message("1\n00:00:03,000 --> 00:00:02,000\nHi\n")
                == "cues.srt:2: the cue ends (00:00:02,000) before it starts")
        #expect(
            message("1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:01,000 --> 00:00:03,000\nB\n")
                == "cues.srt:6: this cue starts at the same moment as the one at line 2: join them into one")
        #expect(message("00:01.000 --> 00:02.000\nHi\n", .vtt) == "cues.vtt:1: a WebVTT file starts with WEBVTT")
        let latin1: [UInt8] = Array("1\n00:00:01,000 --> 00:00:02,000\n".utf8) + [0x43, 0x61, 0x66, 0xE9, 0x0A]
        #expect(
            message("", bytes: latin1)
                == "cues.srt:3: the text is not UTF-8 (an older encoding such as Latin-1 or Windows-1252?): save it as UTF-8"
        )
    }

    @Test func writtenSubtitlesReadBackTheSame() throws {
        // (SubRip has no escaping: a `<` there starts a tag, as players read it.)
        let cues = [
            SubtitleCue(start: 0.33, end: 1.75, text: "Bonjour madame & co --> là"),
            SubtitleCue(start: 3661.001, end: 3662.5, text: "Où ?"),
        ]
        for format in SubtitleFormat.allCases {
            let read = try parse(SubtitleWriter.text(cues, format: format), format)
            #expect(read.map(\.text) == cues.map(\.text), "\(format)")
            #expect(
                zip(read, cues).allSatisfy { abs($0.start - $1.start) < 0.0005 && abs($0.end - $1.end) < 0.0005 },
                "\(format)")
        }
        let angled = [SubtitleCue(start: 1, end: 2, text: "a <b> c")]
        #expect(
            try parse(SubtitleWriter.text(angled, format: .vtt), .vtt).map(\.text) == ["a <b> c"], "WebVTT escapes it")
    }
}
