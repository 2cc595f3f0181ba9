import LoopErrors
/// An error from reading or writing audio, worded for the person who named the file.
public struct AudioError: LoopError, Equatable {
    /// What kind of failure this is, for code that needs to tell them apart.
    public enum Code: String, Sendable {
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
        /// A system library the work needs is not installed (the message names the package).
        case libraryMissing
    }

    public var code: Code
    /// The file concerned (as the user named it), if any.
    public var path: String?
    /// What went wrong and, where possible, what to do about it.
    public var message: String
    /// The underlying library's own words, kept for debugging.
    public var cause: String?

    public init(_ code: Code, path: String?, message: String, cause: String? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.cause = cause
    }

    public var kind: String { "audio." + code.rawValue }
}
