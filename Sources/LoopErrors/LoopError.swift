/// A failure reported by any of loop's libraries: a stable kind that an interface can act on,
/// one line of words a person understands, the file or value concerned, and the cause.
///
/// Libraries describe what went wrong; they never name a command or an option of an interface.
/// An interface (the command line, the server) maps ``kind`` to what to do next.
public protocol LoopError: Error, CustomStringConvertible, Sendable {
    /// Which failure this is, as `domain.code` (`library.loopNotFound`, `audio.noCaptureDevice`):
    /// stable across versions, for interfaces to map to a next step or a status.
    var kind: String { get }
    /// The file, folder or value concerned, as the person named it.
    var path: String? { get }
    /// What went wrong and, where it lies in the library's own terms, what to do about it.
    var message: String { get }
    /// The underlying library's or system's own words, kept for debugging.
    var cause: String? { get }
}

extension LoopError {
    public var path: String? { nil }
    public var cause: String? { nil }

    /// One line: the path, then the message.
    public var description: String { path.map { "\($0): \(message)" } ?? message }
}
