import Foundation
import LoopLibraryAPI

/// The catalog's lists and a loop's summary as JSON, written by hand: the bytes
/// `CatalogText.encoder` writes (keys sorted, slashes as they are), in a fraction of its time
/// (Foundation's encoder took a third of a search's time at 100,000 loops).
enum CatalogJSON {
    /// A page of a list (`GET /api/loops`).
    static func page(_ page: CatalogPage) throws -> Data {
        var json = JSONBytes()
        json.append("{\"limit\":")
        json.append(page.limit)
        json.append(",\"loops\":")
        try json.append(page.loops)
        json.append(",\"offset\":")
        json.append(page.offset)
        json.append(",\"total\":")
        json.append(page.total)
        if let lowerBound = page.totalIsLowerBound {
            json.append(",\"totalIsLowerBound\":")
            json.append(lowerBound)
        }
        json.append("}")
        return Data(json.bytes)
    }

    /// The front page's lists (`GET /api/front`).
    static func front(_ front: FrontPage) throws -> Data {
        var json = JSONBytes()
        json.append("{\"featured\":")
        try json.append(front.featured)
        json.append(",\"hot\":")
        try json.append(front.hot)
        json.append(",\"latest\":")
        try json.append(front.latest)
        json.append("}")
        return Data(json.bytes)
    }

    /// One loop's summary.
    static func loop(_ loop: CatalogLoop) throws -> Data {
        var json = JSONBytes()
        try json.append(loop)
        return Data(json.bytes)
    }
}

/// JSON written into bytes, as Foundation's encoder writes it.
private struct JSONBytes {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(16 << 10) }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

    mutating func append(_ value: Bool) { value ? append("true") : append("false") }

    /// A finite number as Foundation writes it: its shortest form, without a `.0` when whole.
    mutating func append(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: [], debugDescription: "a number that is not finite"))
        }
        let text = value.description
        bytes.append(contentsOf: text.hasSuffix(".0") ? text.utf8.dropLast(2) : text.utf8[...])
    }

    /// A string, quoted: `"` and `\` escaped, the controls below U+0020 as short escapes where
    /// JSON has one and `\u00xx` (lowercase) otherwise; everything else as it is.
    mutating func append(string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x08: append("\\b")
            case 0x09: append("\\t")
            case 0x0A: append("\\n")
            case 0x0C: append("\\f")
            case 0x0D: append("\\r")
            case 0..<0x20:
                append("\\u00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    mutating func append(_ loops: [CatalogLoop]) throws {
        append("[")
        for (index, loop) in loops.enumerated() {
            if index > 0 { append(",") }
            try append(loop)
        }
        append("]")
    }

    /// A loop's summary, its keys in byte order and an absent value's key left out.
    mutating func append(_ loop: CatalogLoop) throws {
        let authored = loop.authored
        append("{")
        if let author = loop.author {
            append("\"author\":")
            append(string: author)
            append(",")
        }
        append("\"authorFingerprint\":")
        append(string: authored.authorFingerprint)
        append(",\"featured\":")
        append(loop.featured)
        append(",\"groupCount\":")
        append(authored.groupCount)
        append(",\"id\":")
        append(string: authored.id)
        if let language = authored.language {
            append(",\"language\":")
            append(string: language)
        }
        append(",\"phraseCount\":")
        append(authored.phraseCount)
        append(",\"published\":")
        append(string: loop.published)
        append(",\"recentDownloads\":")
        append(loop.recentDownloads)
        append(",\"revision\":")
        append(authored.revision)
        append(",\"seconds\":")
        try append(authored.seconds)
        append(",\"shortID\":")
        append(string: loop.shortID)
        append(",\"tags\":[")
        for (index, tag) in authored.tags.enumerated() {
            if index > 0 { append(",") }
            append(string: tag)
        }
        append("],\"title\":")
        append(string: authored.title)
        if let translation = authored.translationLanguage {
            append(",\"translationLanguage\":")
            append(string: translation)
        }
        append(",\"updated\":")
        append(string: loop.updated)
        append("}")
    }
}
