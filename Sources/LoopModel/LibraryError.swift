import LoopFoundation

/// The ways the library can refuse or fail.
public enum LibraryFailure: String, LoopErrorKind {
    case newerSchema
    case cannotOpen
    case loopNotFound
    case ambiguousLoop
    case phraseNotFound
    /// The phrase has no clip to move or play.
    case phraseHasNoAudio
    case invalidRange
    case nothingToDo
    /// Nothing needs audio but phrases whose clip reads an earlier text.
    case onlyClipsForEarlierText
    case audioMissing
    case storageFailed
    case invalidQuery
    /// A shared loop's update signed by someone other than its author.
    case notTheAuthor
    /// A shared loop's update would overwrite edits made in this library.
    case editedHere
    /// A title, language or tag that cannot be stored (a control character, NUL).
    case invalidText
    /// A loop has been changed more times than a revision number counts.
    case revisionLimit
    /// The disk holding the library is full; nothing was changed.
    case noSpace
    /// A date from the clock (or a file) that the library cannot keep or schedule from: the
    /// clock is wrong.
    case clockOutOfRange

    /// Library errors are named `library.KIND`.
    public static let domain = ErrorDomain.library
}

/// A problem with the library, worded for the person using it.
public typealias LibraryError = LoopError<LibraryFailure>

extension ErrorDomain {
    /// The library.
    public static let library = ErrorDomain(rawValue: "library")
}
