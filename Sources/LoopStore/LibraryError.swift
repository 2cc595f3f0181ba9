/// A problem with the library, worded for the person using it.
public struct LibraryError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case newerSchema
        case cannotOpen
        case loopNotFound
        case ambiguousLoop
        case phraseNotFound
        case invalidRange
        case nothingToDo
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
    }

    public var code: Code
    /// What went wrong and what to do about it.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
