import LoopErrors

/// A failure of a workflow itself (the libraries under it report their own).
public struct WorkflowError: LoopError, Equatable {
    public enum Code: String, Sendable {
        /// The draft of a loop's text cannot be written, or read back.
        case draftUnwritable, draftUnreadable
        /// No Loop Library server is named, or a link does not name a loop on one.
        case noServer
        /// An author name a Loop Library would not show.
        case badName
    }

    public var code: Code
    public var path: String?
    public var message: String

    public init(_ code: Code, path: String?, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var kind: String { "workflow." + code.rawValue }
}
