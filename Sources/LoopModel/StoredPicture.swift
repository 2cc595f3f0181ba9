import LoopPictures

/// A picture in the library.
public struct StoredPicture: Sendable, Equatable {
    /// Its SHA-256, which names its file.
    public var sha256: String
    /// The file, absolute.
    public var path: String
    /// Its format.
    public var format: PictureFormat
    /// Its width in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// Its file's size.
    public var byteCount: Int

    /// A picture from its fields.
    public init(sha256: String, path: String, format: PictureFormat, width: Int, height: Int, byteCount: Int) {
        self.sha256 = sha256
        self.path = path
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
    }

    /// Its format's code (`png`, `jpeg`, `webp`, `gif`) and the name a person reads (`PNG`).
    public var formatCode: String { format.rawValue }
    /// (The name a person reads.)
    public var formatName: String { format.displayName }
}

/// What a picture belongs to: the loop, a group (1-based) or a phrase (1-based, across the loop).
public enum PicturePlace: Sendable, Equatable, CustomStringConvertible {
    case loop
    case group(Int)
    case phrase(Int)

    /// The place as a sentence says it: "the loop", "group 2", "phrase 5".
    public var description: String {
        switch self {
        case .loop: "the loop"
        case .group(let number): "group \(number)"
        case .phrase(let number): "phrase \(number)"
        }
    }
}
