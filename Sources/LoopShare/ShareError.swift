import LoopFoundation

/// The ways a bundle can fail to be written, read or imported.
public enum ShareFailure: String, LoopErrorKind {
    case unsafeEntry, tooLarge, corrupt, newerFormat, badManifest, badSignature, badAudio, badPicture, identity,
        writeFailed

    public static let domain = ErrorDomain.share
}

/// Why a bundle cannot be written, read or imported.
public typealias ShareError = LoopError<ShareFailure>
