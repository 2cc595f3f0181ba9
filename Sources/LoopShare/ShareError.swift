import LoopFoundation

/// The ways a bundle can fail to be written, read or imported.
public enum ShareFailure: String, LoopErrorKind {
    case unsafeEntry, tooLarge, corrupt, newerFormat, badManifest, badSignature, badAudio, badPicture, writeFailed
    /// The library's identity key cannot be read, made or saved.
    case identity
    /// The loop is signed by another author than this library's identity.
    case notTheAuthor

    /// Where these errors come from: sharing.
    public static let domain = ErrorDomain.share
}

/// Why a bundle cannot be written, read or imported.
public typealias ShareError = LoopError<ShareFailure>

extension ErrorDomain {
    /// Bundles.
    public static let share = ErrorDomain(rawValue: "share")
}
