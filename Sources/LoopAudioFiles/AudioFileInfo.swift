import Foundation

/// The container and encoding of an audio file, as far as the tool cares.
public enum AudioFileFormat: String, Sendable, CaseIterable, Codable {
    case wav, flac, ogg, opus, mp3, aiff, other

    /// The usual file extension for files this tool writes.
    public var fileExtension: String {
        switch self {
        case .wav: "wav"
        case .flac: "flac"
        case .ogg: "ogg"
        case .opus: "opus"
        case .mp3: "mp3"
        case .aiff: "aiff"
        case .other: "audio"
        }
    }

    /// The format a file name's extension names (`take.mp3`: mp3), or nil for another.
    public init?(pathExtension path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        case "opus": self = .opus
        case "mp3": self = .mp3
        case "aif", "aiff": self = .aiff
        default: return nil
        }
    }
}

/// What an audio file holds: its rate, channels and length in frames.
///
/// A *frame* is one sample for every channel; positions and lengths are frame counts.
public struct AudioFileInfo: Equatable, Sendable {
    /// The file's sample rate in hertz.
    public var sampleRate: Int
    /// Its channel count.
    public var channelCount: Int
    /// The number of frames the file announces; for compressed formats an estimate until read.
    public var frameCount: Int
    /// Its format.
    public var format: AudioFileFormat

    /// A description from its figures.
    public init(sampleRate: Int, channelCount: Int, frameCount: Int, format: AudioFileFormat) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.format = format
    }

    /// The length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }
}
