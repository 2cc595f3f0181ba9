import LoopFoundation

/// The ways reading, writing, playing or capturing audio can fail.
public enum AudioFailure: String, LoopErrorKind {
    case fileNotFound
    case notReadable
    case emptyFile
    case unsupportedFormat
    case truncated
    case decodeFailed
    case writeFailed
    case invalidArgument
    /// No sound device of that name to play on.
    case noPlaybackDevice
    /// No capture device of that name to record from.
    case noCaptureDevice
    /// A capture device that would write into a file (ALSA's `file` and `tee` plugins): an
    /// input never writes over the user's file.
    case captureWritesAFile
    /// A capture device that delivered nothing for too long (a stalled pipe, a hung driver).
    case captureStalled
    /// A system library the work needs is not installed (the message names the package).
    case libraryMissing

    /// Where these errors come from: audio.
    public static let domain = ErrorDomain.audio
}

/// An error from reading or writing audio, worded for the person who named the file.
public typealias AudioError = LoopError<AudioFailure>

extension ErrorDomain {
    /// Audio files and devices.
    public static let audio = ErrorDomain(rawValue: "audio")
}
