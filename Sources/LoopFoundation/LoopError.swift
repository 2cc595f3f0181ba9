import Foundation

/// The kinds of failure one domain of loop reports (the library, audio, sharing, ...): an enum
/// each domain defines, so that an interface can `switch` over them exhaustively and the compiler
/// shows a new kind that has no next step.
public protocol LoopErrorKind: Sendable, Hashable {
    /// The domain: its name is the first part of ``LoopError/identifier`` (`library`, `audio`).
    static var domain: ErrorDomain { get }
    /// This kind's name within its domain (`loopNotFound`), stable across versions.
    var name: String { get }
}

extension LoopErrorKind where Self: RawRepresentable, RawValue == String {
    /// The kind's raw value.
    public var name: String { rawValue }
}

/// The domain of a kind of failure: the module that reports it (`library`, `share`, `audio`).
/// Each module names its own (`extension ErrorDomain { static let share = ... }`), so that this
/// floor names none above it; an interface's words for each domain's kinds are checked to cover
/// every kind there is (ArchitectureTests).
public struct ErrorDomain: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The domain's name, the first part of ``LoopError/identifier``.
    public let rawValue: String

    /// A domain of this name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The domain's name.
    public var description: String { rawValue }

    /// A system call on a file (``FileSystemFailure``).
    public static let file = ErrorDomain(rawValue: "file")
}

/// Any of loop's errors, whatever its domain: what an interface prints and logs.
///
/// Libraries describe what went wrong; they never name a command or an option of an interface.
/// An interface (the command line, the server) maps the typed ``LoopError/kind`` to what to do next.
public protocol DescribedError: Error, CustomStringConvertible, Sendable {
    /// Which failure this is, as `domain.name` (`library.loopNotFound`): for logs and scripts.
    var identifier: String { get }
    /// Its domain.
    var domain: ErrorDomain { get }
    /// The file, folder or value concerned, as the person named it.
    var subject: String? { get }
    /// What went wrong and, where it lies in the library's own terms, what to do about it.
    var message: String { get }
    /// The underlying library's or system's own words, kept for debugging.
    var cause: String? { get }
    /// This error with the file `name` called `given` instead, where its subject is that file: a
    /// reader of a decoded copy knows only the copy's name, not the one the person gave. (A
    /// message never spells its file: the subject does.)
    func naming(_ name: String, as given: String) -> Self
}

/// A failure reported by any of loop's libraries: its typed kind, one line of words a person
/// understands, the file (and line) or value concerned, as the person named it, and the cause.
public struct LoopError<Kind: LoopErrorKind>: DescribedError, Equatable {
    /// Which failure this is.
    public var kind: Kind
    /// The file, folder or value concerned, as the person named it.
    public var subject: String?
    /// The line of ``subject`` the failure is on, for a text file.
    public var line: Int?
    /// What went wrong and, where it lies in the library's own terms, what to do about it.
    public var message: String
    /// The underlying library's or system's own words, kept for debugging.
    public var cause: String?

    /// A failure of `kind` saying `message`, about `path` (and its `line`) when given.
    public init(_ kind: Kind, _ message: String, path: String? = nil, line: Int? = nil, cause: String? = nil) {
        self.kind = kind
        self.message = message
        self.subject = path
        self.line = line
        self.cause = cause
    }

    /// See ``init(_:_:path:line:cause:)``.
    public init(_ kind: Kind, path: String?, line: Int? = nil, message: String, cause: String? = nil) {
        self.init(kind, message, path: path, line: line, cause: cause)
    }

    /// The file or value concerned, with its line where there is one (`notes.txt:3`).
    public var path: String? { subject.map { file in line.map { "\(file):\($0)" } ?? file } }

    /// The failure as `domain.kind` (`library.loopNotFound`).
    public var identifier: String { Kind.domain.rawValue + "." + kind.name }

    /// The domain its kind belongs to.
    public var domain: ErrorDomain { Kind.domain }

    /// One line: the path, then the message.
    public var description: String { path.flatMap { $0.isEmpty ? nil : "\($0): \(message)" } ?? message }

    /// See ``DescribedError/naming(_:as:)``.
    public func naming(_ name: String, as given: String) -> Self {
        var error = self
        if subject == name { error.subject = given }
        return error
    }
}
