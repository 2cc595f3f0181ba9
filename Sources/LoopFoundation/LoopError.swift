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
    public var name: String { rawValue }
}

/// Every domain of loop's errors, one a module that reports failures: an interface switches
/// over them (a new domain does not compile until each interface says what it does with it).
public enum ErrorDomain: String, Sendable, CaseIterable {
    /// The library (LoopModel's `LibraryFailure`).
    case library
    /// Bundles (LoopShare).
    case share
    /// A Loop Library as its client meets it (LoopLibraryClient).
    case server
    /// The study engine (LoopStudy).
    case study
    /// Audio files and devices (LoopAudioFiles).
    case audio
    /// Cutting a take (LoopCutting).
    case segmentation
    /// Pictures (LoopPictures).
    case picture
    /// Subtitles, labels, Anki (LoopExchange).
    case exchange
    /// The workflows (LoopWorkflows).
    case workflow
    /// A loop's text (LoopText).
    case text
    /// The terminal (LoopTerminal).
    case terminal
    /// The speech synthesizer (LoopSpeech).
    case speech
    /// A system call on a file (LoopFoundation).
    case file
    /// A publish refused by a Loop Library (LoopLibraryServer).
    case publish
    /// A Loop Library's catalog (LoopLibraryServer).
    case catalog
    /// The command line itself (LoopCLI).
    case cli
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

    public init(_ kind: Kind, _ message: String, path: String? = nil, line: Int? = nil, cause: String? = nil) {
        self.kind = kind
        self.message = message
        self.subject = path
        self.line = line
        self.cause = cause
    }

    public init(_ kind: Kind, path: String?, line: Int? = nil, message: String, cause: String? = nil) {
        self.init(kind, message, path: path, line: line, cause: cause)
    }

    /// The file or value concerned, with its line where there is one (`notes.txt:3`).
    public var path: String? { subject.map { file in line.map { "\(file):\($0)" } ?? file } }

    public var identifier: String { Kind.domain.rawValue + "." + kind.name }

    public var domain: ErrorDomain { Kind.domain }

    /// One line: the path, then the message.
    public var description: String { path.flatMap { $0.isEmpty ? nil : "\($0): \(message)" } ?? message }

    public func naming(_ name: String, as given: String) -> Self {
        var error = self
        if subject == name { error.subject = given }
        return error
    }
}
