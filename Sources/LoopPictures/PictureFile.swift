import Foundation
import LoopFoundation

/// The picture formats a loop may carry.
public enum PictureFormat: String, Sendable, Codable, CaseIterable {
    case png, jpeg, webp, gif

    /// The file name extension a bundle and a web page use.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    /// The media type it is served as (`image/png`).
    public var mediaType: String { "image/" + rawValue }
    /// The name a person reads: "PNG", "JPEG".
    public var displayName: String { rawValue.uppercased() }

    /// The format a file name's extension names, or nil for none of the four.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        case "gif": self = .gif
        default: return nil
        }
    }
}

/// A picture that passed every check: what it is and its size.
public struct PictureInfo: Sendable, Equatable {
    /// Its format, from its bytes.
    public var format: PictureFormat
    /// Its width in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// Its size in bytes.
    public var byteCount: Int
}

/// The ways a file can fail to be a picture a loop may carry.
public enum PictureFailure: String, LoopErrorKind {
    /// Not a PNG, JPEG, WebP or GIF (judged by its bytes, never its name).
    case notAPicture
    /// Too many bytes or pixels.
    case tooLarge
    /// Cut short or damaged: it does not decode.
    case damaged
    /// It cannot be read.
    case unreadable

    /// Where these errors come from: pictures.
    public static let domain = ErrorDomain.picture
}

/// Why a file is not a picture a loop may carry.
public typealias PictureError = LoopError<PictureFailure>

/// Checks a picture as hostile input before a library, a bundle or a screen takes it: its type
/// from its bytes, its size in bytes and pixels from its header (before any decoding), that it
/// is whole (its format's end marker), and that its first frame decodes.
public enum PictureFile {
    /// At most 32 MiB, 16,384 pixels a side and 50 million pixels: a phone's photo passes, a
    /// decompression bomb (30,000 × 30,000 pixels in a small file) does not.
    public static let maxBytes = 32 << 20
    /// See ``maxBytes``.
    public static let maxSide = 16_384
    /// See ``maxBytes``.
    public static let maxPixels = 50_000_000
    /// The most pixels a check or a display decodes (64 MB as RGBA): a JPEG above it is decoded
    /// at a half, a quarter or an eighth of its size (its format allows that), and a PNG, WebP
    /// or GIF above it is refused, since it can only be decoded whole.
    public static let maxDecodedPixels = 16_000_000

    /// The most pixels a picture of `format` may have.
    public static func maxPixels(of format: PictureFormat) -> Int { format == .jpeg ? maxPixels : maxDecodedPixels }

    /// The checks that read the file's bytes only (type, size, whole), without decoding.
    public static func checkHeader(_ path: String) throws(PictureError) -> PictureInfo {
        if let problem = RegularFile.problem(at: path) { throw PictureError(.unreadable, problem, path: path) }
        let size = RegularFile.size(path) ?? 0
        guard size <= maxBytes else {
            throw PictureError(
                .tooLarge, "the picture is \(size >> 20) MiB; pictures are at most \(maxBytes >> 20) MiB", path: path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PictureError(.unreadable, "cannot read the file", path: path)
        }
        return try inspect(data, path: path)
    }

    /// Type, pixel size and wholeness from a picture's bytes (`path` only names the picture in
    /// an error): any bytes at all give a picture within the limits or a ``PictureError``.
    public static func inspect(_ data: Data, path: String?) throws(PictureError) -> PictureInfo {
        let bytes = [UInt8](data)
        guard let header = PictureHeader(bytes) else {
            throw PictureError(.notAPicture, "not a PNG, JPEG, WebP or GIF picture", path: path)
        }
        guard header.width > 0, header.height > 0 else {
            let fault = header.isWhole ? "is damaged (it gives no size)" : "is cut short (its end is missing)"
            throw PictureError(.damaged, "the \(header.format.displayName) picture \(fault)", path: path)
        }
        guard header.width <= maxSide, header.height <= maxSide,
            header.width * header.height <= maxPixels(of: header.format)
        else {
            let pixels =
                header.format == .jpeg
                ? "\(maxPixels / 1_000_000) million pixels"
                : "\(maxDecodedPixels / 1_000_000) million pixels as a PNG, WebP or GIF (\(maxPixels / 1_000_000) million as a JPEG)"
            throw PictureError(
                .tooLarge,
                "the picture is \(header.width) × \(header.height) pixels; pictures are at most \(maxSide) pixels a side and \(pixels)",
                path: path)
        }
        guard header.isWhole else {
            throw PictureError(
                .damaged, "the \(header.format.displayName) picture is cut short (its end is missing)", path: path)
        }
        return PictureInfo(format: header.format, width: header.width, height: header.height, byteCount: bytes.count)
    }
}

/// What a picture's first bytes say: its format, its size in pixels, and whether its end is there.
struct PictureHeader {
    var format: PictureFormat
    var width: Int
    var height: Int
    var isWhole: Bool

    init?(_ b: [UInt8]) {
        func be16(_ i: Int) -> Int { i + 1 < b.count ? Int(b[i]) << 8 | Int(b[i + 1]) : 0 }
        func be32(_ i: Int) -> Int { i + 3 < b.count ? be16(i) << 16 | be16(i + 2) : 0 }
        func le16(_ i: Int) -> Int { i + 1 < b.count ? Int(b[i]) | Int(b[i + 1]) << 8 : 0 }
        func le24(_ i: Int) -> Int { i + 2 < b.count ? le16(i) | Int(b[i + 2]) << 16 : 0 }
        func le32(_ i: Int) -> Int { i + 3 < b.count ? le16(i) | le16(i + 2) << 16 : 0 }
        func ascii(_ i: Int, _ text: String) -> Bool {
            i + text.utf8.count <= b.count && Array(b[i..<(i + text.utf8.count)]) == Array(text.utf8)
        }

        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            // IHDR first; IEND (with its CRC) last.
            guard ascii(12, "IHDR") else { return nil }
            self.init(
                format: .png, width: be32(16), height: be32(20), isWhole: b.count >= 12 && ascii(b.count - 8, "IEND"))
        } else if ascii(0, "GIF87a") || ascii(0, "GIF89a") {
            // The logical screen's size; the trailer byte ends the file.
            self.init(format: .gif, width: le16(6), height: le16(8), isWhole: b.last == 0x3B)
        } else if ascii(0, "RIFF") && ascii(8, "WEBP") {
            let whole = le32(4) + 8 <= b.count
            if ascii(12, "VP8 ") {
                self.init(format: .webp, width: le16(26) & 0x3FFF, height: le16(28) & 0x3FFF, isWhole: whole)
            } else if ascii(12, "VP8L") {
                let bits = le32(21)
                self.init(
                    format: .webp, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1, isWhole: whole)
            } else if ascii(12, "VP8X") {
                self.init(format: .webp, width: le24(24) + 1, height: le24(27) + 1, isWhole: whole)
            } else {
                return nil
            }
        } else if b.starts(with: [0xFF, 0xD8, 0xFF]) {
            // Segments up to the frame header (SOF0-15, not DHT, JPG or DAC) give the size; the
            // scan must be followed by an end-of-image marker (a phone may add data after it).
            var index = 2
            var width = 0
            var height = 0
            var scanStart: Int?
            while index + 3 < b.count, b[index] == 0xFF {
                let marker = b[index + 1]
                if marker == 0xFF {
                    index += 1
                    continue
                }
                if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    height = be16(index + 5)
                    width = be16(index + 7)
                }
                if marker == 0xDA {
                    scanStart = index
                    break
                }
                if marker == 0xD8 || (0xD0...0xD7).contains(marker) {
                    index += 2
                    continue
                }
                index += 2 + be16(index + 2)
            }
            var whole = false
            if let scanStart {
                var end = b.count - 2
                while end > scanStart {
                    if b[end] == 0xFF && b[end + 1] == 0xD9 {
                        whole = true
                        break
                    }
                    end -= 1
                }
            }
            self.init(format: .jpeg, width: width, height: height, isWhole: whole)
        } else {
            return nil
        }
    }

    init(format: PictureFormat, width: Int, height: Int, isWhole: Bool) {
        self.format = format
        self.width = width
        self.height = height
        self.isWhole = isWhole
    }
}

extension ErrorDomain {
    /// Pictures.
    public static let picture = ErrorDomain(rawValue: "picture")
}
