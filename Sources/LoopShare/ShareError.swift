/// Why a bundle cannot be written, read or imported.
public struct ShareError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case unsafeEntry, tooLarge, corrupt, newerFormat, badManifest, badSignature, badAudio, identity, writeFailed
    }

    public var code: Code
    public var message: String
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { path.map { "\($0): \(message)" } ?? message }
}
