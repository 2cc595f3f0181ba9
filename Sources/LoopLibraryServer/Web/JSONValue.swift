import Foundation

/// A JSON document read into plain values, for the one place where `JSONDecoder` cost too much:
/// a loop's stored content, read for each first visit of its page (Foundation's decoder took
/// 90 µs for the sample's 2 KB, a sixth of the page's time; this reader 35-45 µs).
/// Strict RFC 8259: anything else is an error, and the caller then asks `JSONDecoder`, whose
/// error says what is wrong.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    struct Malformed: Error {}

    /// The document in `data`: one value, with only whitespace around it.
    static func read(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { bytes in
            var reader = Reader(bytes: bytes)
            let value = try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.position == bytes.count else { throw Malformed() }
            return value
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let values) = self { values[key] } else { nil }
    }

    var string: String? { if case .string(let text) = self { text } else { nil } }
    var number: Double? { if case .number(let number) = self { number } else { nil } }
    var array: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
    var isNull: Bool { self == .null }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        /// Arrays and objects nest at most this deep (a stored loop's content nests 5 deep).
        static let maximumDepth = 64

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            skipWhitespace()
            guard position < bytes.count, depth < Self.maximumDepth else { throw Malformed() }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                var values: [String: JSONValue] = [:]
                skipWhitespace()
                if try take(UInt8(ascii: "}")) { return .object(values) }
                repeat {
                    skipWhitespace()
                    let key = try string()
                    skipWhitespace()
                    guard try take(UInt8(ascii: ":")) else { throw Malformed() }
                    values[key] = try value(depth: depth + 1)
                    skipWhitespace()
                } while try take(UInt8(ascii: ","))
                guard try take(UInt8(ascii: "}")) else { throw Malformed() }
                return .object(values)
            case UInt8(ascii: "["):
                position += 1
                var items: [JSONValue] = []
                skipWhitespace()
                if try take(UInt8(ascii: "]")) { return .array(items) }
                repeat {
                    items.append(try value(depth: depth + 1))
                    skipWhitespace()
                } while try take(UInt8(ascii: ","))
                guard try take(UInt8(ascii: "]")) else { throw Malformed() }
                return .array(items)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try word("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try word("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try word("null")
                return .null
            default: return .number(try number())
            }
        }

        /// Whether the next byte is `byte` (then past it).
        mutating func take(_ byte: UInt8) throws -> Bool {
            guard position < bytes.count else { throw Malformed() }
            guard bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func word(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count,
                UnsafeRawBufferPointer(start: word.utf8Start, count: count).elementsEqual(
                    bytes[position..<(position + count)])
            else { throw Malformed() }
            position += count
        }

        mutating func number() throws -> Double {
            let start = position
            func digits() -> Int {
                let first = position
                while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
                return position - first
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let whole = position
            guard digits() > 0, bytes[whole] != UInt8(ascii: "0") || position == whole + 1 else { throw Malformed() }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { throw Malformed() }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(bytes[position]) {
                    position += 1
                }
                guard digits() > 0 else { throw Malformed() }
            }
            guard let number = Double(String(decoding: bytes[start..<position], as: UTF8.self)) else {
                throw Malformed()
            }
            return number
        }

        mutating func string() throws -> String {
            guard try take(UInt8(ascii: "\"")) else { throw Malformed() }
            let start = position
            // Most strings have no escapes: read as they are.
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    defer { position += 1 }
                    return try text(bytes[start..<position])
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw Malformed() }
                position += 1
            }
            var utf8 = Array(bytes[start..<position])
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""): return try text(utf8)
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { throw Malformed() }
                    let escaped = bytes[position]
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"): utf8.append(contentsOf: try unicodeScalar())
                    default: throw Malformed()
                    }
                default:
                    guard byte >= 0x20 else { throw Malformed() }
                    utf8.append(byte)
                }
            }
            throw Malformed()
        }

        /// Text of UTF-8 bytes, refused if they are not valid UTF-8.
        func text(_ utf8: some Collection<UInt8>) throws -> String {
            guard let text = String(validating: utf8, as: UTF8.self) else { throw Malformed() }
            return text
        }

        /// A `\uXXXX` escape (past its `\u`), a surrogate pair's two, as UTF-8.
        mutating func unicodeScalar() throws -> [UInt8] {
            var code = try hex()
            if (0xD800..<0xDC00).contains(code) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw Malformed() }
                position += 2
                let low = try hex()
                guard (0xDC00..<0xE000).contains(low) else { throw Malformed() }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw Malformed() }
            return Array(String(Character(scalar)).utf8)
        }

        mutating func hex() throws -> UInt32 {
            guard position + 4 <= bytes.count else { throw Malformed() }
            var code: UInt32 = 0
            for byte in bytes[position..<(position + 4)] {
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x41...0x46: digit = byte - 0x41 + 10
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: throw Malformed()
                }
                code = code << 4 | UInt32(digit)
            }
            position += 4
            return code
        }
    }
}
