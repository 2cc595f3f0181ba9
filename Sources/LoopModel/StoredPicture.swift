import LoopPictures

/// A picture in the library.
public struct StoredPicture: Sendable, Equatable {
    public var sha256: String
    /// The file, absolute.
    public var path: String
    public var format: PictureFormat
    public var width: Int
    public var height: Int
    public var byteCount: Int

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
    public var formatName: String { format.displayName }
}

/// What a picture belongs to: the loop, a group (1-based) or a phrase (1-based, across the loop).
public enum PicturePlace: Sendable, Equatable, CustomStringConvertible {
    case loop
    case group(Int)
    case phrase(Int)

    public var description: String {
        switch self {
        case .loop: "the loop"
        case .group(let number): "group \(number)"
        case .phrase(let number): "phrase \(number)"
        }
    }
}
