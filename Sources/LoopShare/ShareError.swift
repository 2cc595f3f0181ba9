import LoopErrors
/// Why a bundle cannot be written, read or imported.
public struct ShareError: LoopError, Equatable {
    public enum Code: String, Sendable {
        case unsafeEntry, tooLarge, corrupt, newerFormat, badManifest, badSignature, badAudio, badPicture, identity, writeFailed
    }

    public var code: Code
    public var message: String
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var kind: String { "share." + code.rawValue }
}
