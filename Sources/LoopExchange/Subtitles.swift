import Foundation
import LoopFoundation

/// One subtitle: a time range and its text (lines joined by spaces).
public struct SubtitleCue: Sendable, Equatable {
    /// When the cue is shown, in seconds.
    public var start: Double
    /// When it is taken down, in seconds.
    public var end: Double
    /// Its text, lines joined by spaces.
    public var text: String

    /// A cue from its times and text.
    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// The subtitle formats read and written: SubRip (`.srt`) and WebVTT (`.vtt`).
public enum SubtitleFormat: String, Sendable, CaseIterable {
    case srt, vtt

    /// The format a file's extension names.
    public init?(path: String) {
        self.init(rawValue: (path as NSString).pathExtension.lowercased())
    }
}

/// The ways a file from another tool (subtitles) can be refused, or an export to one.
public enum ExchangeFailure: String, LoopErrorKind {
    /// A subtitle file that cannot be read (the message says where and why).
    case invalidSubtitles
    /// An export that would overwrite what it must not, or cannot be written.
    case exportRefused

    /// Where these errors come from: exchange formats.
    public static let domain = ErrorDomain.exchange
}

/// Why a subtitle file or an export was refused: its file, the line, and what is wrong there.
public typealias ExchangeError = LoopError<ExchangeFailure>

/// Writes cues as SubRip or WebVTT.
public enum SubtitleWriter {
    /// The cues as a SubRip or WebVTT file.
    public static func text(_ cues: [SubtitleCue], format: SubtitleFormat) -> String {
        switch format {
        case .srt:
            return cues.enumerated().map { index, cue in
                "\(index + 1)\n\(time(cue.start, separator: ",")) --> \(time(cue.end, separator: ","))\n\(srtText(cue.text))\n"
            }.joined(separator: "\n")
        case .vtt:
            return "WEBVTT\n\n"
                + cues.enumerated().map { index, cue in
                    "\(index + 1)\n\(time(cue.start, separator: ".")) --> \(time(cue.end, separator: "."))\n\(vttText(cue.text))\n"
                }.joined(separator: "\n")
        }
    }

    /// `HH:MM:SS,mmm` (SubRip) or `HH:MM:SS.mmm` (WebVTT).
    static func time(_ seconds: Double, separator: String) -> String {
        let milliseconds = max(0, Int((seconds * 1000).rounded()))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = milliseconds % 1000
        return two(milliseconds / 3_600_000) + ":" + two(milliseconds / 60_000 % 60) + ":"
            + two(milliseconds / 1000 % 60) + separator
            + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }

    /// A cue's text never holds a blank line (which would end the cue).
    static func srtText(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map(String.init).joined(separator: "\n")
    }

    /// WebVTT text: `&`, `<` and `>` escaped, and never `-->`.
    static func vttText(_ text: String) -> String {
        srtText(text).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}

extension ErrorDomain {
    /// Subtitles, labels, Anki.
    public static let exchange = ErrorDomain(rawValue: "exchange")
}
