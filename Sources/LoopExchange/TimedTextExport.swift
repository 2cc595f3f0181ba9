import Foundation
import LoopAudioFiles
import LoopCutting
import LoopFoundation
import LoopModel

/// A loop's phrases as timed text for the tools learners use: SubRip and WebVTT subtitles (for
/// asbplayer, mpv, a browser's `<track>`) and an Audacity label track.
///
/// The times are the phrases' clips over their take, so the subtitles follow the original
/// recording; or, with `joinedClips`, over one audio file of the clips one after the other,
/// written beside the subtitles (the only way for a loop cut from several takes).
public struct TimedTextExport: Sendable {
    /// The file written: SubRip, WebVTT or an Audacity label track.
    public enum Format: String, Sendable, CaseIterable {
        case srt, vtt, labels
    }

    /// The file written.
    public var format: Format
    /// Write the clips joined into one FLAC file beside the text (`lesson.srt` → `lesson.flac`).
    public var joinedClips: Bool
    /// Add each phrase's translation as a second line.
    public var translations: Bool

    /// An export in `format`.
    public init(format: Format, joinedClips: Bool = false, translations: Bool = false) {
        self.format = format
        self.joinedClips = joinedClips
        self.translations = translations
    }

    /// The audio file written beside `path` with `joinedClips`.
    public static func joinedAudioPath(for path: String) -> String {
        (path as NSString).deletingPathExtension + ".flac"
    }

    /// Writes `loop` to `path` (atomically); returns the files written.
    public func write(_ loop: LoopDetail, to path: String) throws -> [String] {
        let voiced = loop.phrases.filter { $0.audio != nil }
        guard !voiced.isEmpty else {
            throw ExchangeError(
                .exportRefused, path: path,
                message: "'\(loop.summary.title)' has no audio yet: record or attach a take first")
        }
        var cues: [SubtitleCue] = []
        var written: [String] = []
        if joinedClips {
            let audioPath = Self.joinedAudioPath(for: path)
            cues = try Self.joinClips(voiced, to: audioPath)
            written.append(audioPath)
        } else {
            let takes = Set(voiced.compactMap { $0.audio?.sha256 })
            guard takes.count == 1 else {
                throw ExchangeError(
                    .exportRefused, path: path,
                    message:
                        "'\(loop.summary.title)' is cut from \(takes.count) takes, so no one recording has every phrase's time: --clips writes the clips as one audio file the subtitles follow"
                )
            }
            cues = voiced.compactMap { phrase in
                phrase.audio.map { SubtitleCue(start: $0.startSeconds, end: $0.endSeconds, text: "") }
            }
        }
        for (index, phrase) in voiced.enumerated() {
            var text = phrase.text
            if translations, let translation = phrase.translation, !translation.isEmpty { text += "\n" + translation }
            cues[index].text = text
        }
        let text: String
        switch format {
        case .srt: text = SubtitleWriter.text(cues, format: .srt)
        case .vtt: text = SubtitleWriter.text(cues, format: .vtt)
        case .labels:
            text = cues.map { AudacityLabels.line(start: $0.start, end: $0.end, label: $0.text) }.joined()
        }
        try DurableFile.write(Data(text.utf8), to: path)
        return [path] + written
    }

    /// Copies every phrase's clip, in order, into one FLAC file at `path`; returns the cues of
    /// the joined file.
    static func joinClips(_ phrases: [StoredPhrase], to path: String) throws -> [SubtitleCue] {
        guard let first = phrases.first?.audio else { return [] }
        if let other = phrases.compactMap(\.audio).first(where: {
            $0.sampleRate != first.sampleRate || $0.channelCount != first.channelCount
        }) {
            throw ExchangeError(
                .exportRefused, path: path,
                message:
                    "the loop's takes differ (\(first.sampleRate) Hz, \(first.channelCount) channels and \(other.sampleRate) Hz, \(other.channelCount) channels): they cannot be joined into one file"
            )
        }
        var writer = try AudioFileWriter(
            path: path, format: .flac, sampleRate: first.sampleRate, channelCount: first.channelCount)
        var cues: [SubtitleCue] = []
        var position = 0
        for phrase in phrases {
            guard let audio = phrase.audio else { continue }
            let start = position
            position += try writer.append(frames: audio.startFrame..<audio.endFrame, of: audio.path)
            cues.append(
                SubtitleCue(
                    start: Double(start) / Double(first.sampleRate), end: Double(position) / Double(first.sampleRate),
                    text: ""))
        }
        try writer.commit()
        return cues
    }
}
