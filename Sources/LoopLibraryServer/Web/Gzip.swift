import CompressNIO
import Crypto
import Foundation
import Hummingbird
import LoopFoundation
import LoopLibraryAPI
import Synchronization

/// gzip for what a browser loads (pages, their stylesheet and scripts): a third of the bytes
/// on a phone's slow network. Clips, pictures and bundles are compressed already and go as
/// they are.
///
/// A gzip stream is joined from parts deflated apart (``DeflatedPart``): each ends on a byte
/// boundary and refers to nothing before it, so a page's own text, deflated once when it is
/// rendered, and the stylesheet every page holds, deflated once when the server starts, are
/// joined as the page is sent, a copy of a few KB. (The CRC-32 of what they hold is the
/// foundation's ``CRC32Checksum``, the one a bundle's entries are checked with.)
enum Gzip {
    /// `data` gzipped at zlib's best level (what is gzipped once, as a script); nil if zlib
    /// failed (then it goes as it is).
    static func compress(_ data: Data) -> Data? {
        DeflatedPart(data, level: .best).map { Data(join([$0], crc: crc32(data)).readableBytesView) }
    }

    /// The CRC-32 of `bytes` (gzip's), continuing `crc`, the CRC-32 of the bytes before them
    /// (``CRC32Checksum``, eight bytes a step: ZIPFoundation's, a byte a step, was a tenth of a
    /// gzipped page's first visit).
    static func crc32(_ bytes: Data, continuing crc: UInt32 = 0) -> UInt32 {
        CRC32Checksum.of(bytes, continuing: crc)
    }

    /// The CRC-32 of two runs of bytes one after the other, from `crc`, the first's, and
    /// `next`, the second's, of `length` bytes: its bytes need not be read (zlib's
    /// `crc32_combine`: the first's CRC moved on by `length` zero bytes, then the second's
    /// added, in the polynomials modulo gzip's).
    static func crc32(_ crc: UInt32, followedBy next: UInt32, length: Int) -> UInt32 {
        /// a(x) b(x) modulo the polynomial (reflected: x^0 is the top bit).
        func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
            var a = a
            var b = b
            var product: UInt32 = 0
            var bit: UInt32 = 1 << 31
            while a != 0 {
                if a & bit != 0 {
                    product ^= b
                    a &= ~bit
                }
                bit >>= 1
                b = b & 1 == 1 ? b >> 1 ^ 0xEDB8_8320 : b >> 1
            }
            return product
        }
        // x^(8 length): the squares x^(2^k), k from 3 (a byte is 8 = 2^3 bits), for each bit of length.
        var power: UInt32 = 1 << 31 // x^0
        var square: UInt32 = 1 << 30 // x^1
        for _ in 0..<3 { square = multiply(square, square) }
        var remaining = length
        while remaining > 0 {
            if remaining & 1 == 1 { power = multiply(square, power) }
            square = multiply(square, square)
            remaining >>= 1
        }
        return multiply(power, crc) ^ next
    }

    /// The gzip stream of `parts`, one after the other; `crc` is the CRC-32 of the bytes they
    /// hold, all of them.
    static func join(_ parts: [DeflatedPart], crc: UInt32) -> ByteBuffer {
        var output = ByteBuffer()
        output.reserveCapacity(parts.reduce(20) { $0 + $1.deflated.count })
        // The header: no name, no time, from a Unix system (RFC 1952).
        output.writeBytes([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])
        var length = 0
        for part in parts {
            output.writeBytes(part.deflated)
            length += part.length
        }
        // The last block: empty, fixed codes, marked final; then the CRC-32 and the length.
        output.writeBytes([0x03, 0x00])
        output.writeInteger(crc, endianness: .little)
        output.writeInteger(UInt32(truncatingIfNeeded: length), endianness: .little)
        return output
    }

    /// What `gzipped` inflates to: `length` bytes.
    static func decompress(_ gzipped: ByteBuffer, length: Int) throws -> ByteBuffer {
        var input = gzipped
        var output = ByteBuffer()
        output.reserveCapacity(length)
        try input.decompress(to: &output, with: .gzip)
        return output
    }

    /// Whether the request's `Accept-Encoding` takes gzip (named, with a weight above 0).
    static func isAccepted(by request: Request) -> Bool {
        guard let header = request.headers[.acceptEncoding] else { return false }
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" || parts.first == "x-gzip" else { continue }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
        return false
    }

    /// The ETag of the gzipped form of what `eTag` names (a representation of its own).
    static func eTag(_ eTag: String) -> String {
        eTag.hasSuffix("\"") ? String(eTag.dropLast()) + "-gzip\"" : eTag + "-gzip"
    }
}

/// Bytes deflated on their own, to be joined with others into a gzip stream by
/// ``Gzip/join(_:crc:)``: raw deflate blocks, none final, ending on a byte boundary.
struct DeflatedPart: Sendable {
    let deflated: Data
    /// How many bytes it holds.
    let length: Int

    enum Level {
        /// zlib's fastest, with compressors kept and reset rather than made for each page
        /// (making one cost more than deflating a page): a page as it is rendered.
        case fast
        /// zlib's best: what is deflated once.
        case best
    }

    /// The deflated blocks of `gzipped`, a stream ``Gzip/compress(_:)`` made, with the CRC-32
    /// and the length its trailer declares (nil past `maximumLength`), read without inflating
    /// it; nil if it is not such a stream.
    static func member(_ gzipped: Data, maximumLength: Int) -> (part: DeflatedPart, crc: UInt32)? {
        guard gzipped.count >= 20 else { return nil }
        func little(_ bytes: Data.SubSequence) -> Int { bytes.reversed().reduce(0) { $0 << 8 | Int($1) } }
        let length = little(gzipped.suffix(4))
        let crc = UInt32(little(gzipped.dropLast(4).suffix(4)))
        guard length <= maximumLength, let part = DeflatedPart(blocksOf: gzipped, length: length) else { return nil }
        return (part, crc)
    }

    /// The deflated blocks of `gzipped`, a stream ``Gzip/compress(_:)`` made of `length`
    /// bytes (between its header and its final empty block); nil if it is not one.
    init?(blocksOf gzipped: Data, length: Int) {
        let header: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]
        guard gzipped.count >= 20, gzipped.prefix(10).elementsEqual(header),
            gzipped.dropLast(8).suffix(2).elementsEqual([0x03, 0x00])
        else { return nil }
        deflated = Data(gzipped.dropFirst(10).dropLast(10))
        self.length = length
    }

    /// `bytes` as they are, in stored blocks (no compression: a few bytes that differ from
    /// one request to the next, as the site's address).
    init(storing bytes: Data) {
        var blocks = Data()
        var start = bytes.startIndex
        repeat {
            let count = min(bytes.endIndex - start, 0xFFFF)
            // Not final, stored (three bits 0, then up to the byte's end), then the length and
            // its complement, little-endian.
            blocks.append(contentsOf: [
                0, UInt8(count & 0xFF), UInt8(count >> 8), ~UInt8(count & 0xFF), ~UInt8(count >> 8),
            ])
            blocks.append(bytes[start..<(start + count)])
            start += count
        } while start < bytes.endIndex
        deflated = blocks
        length = bytes.count
    }

    /// `parts` one after the other, as one part.
    init(joining parts: [DeflatedPart]) {
        var blocks = Data()
        blocks.reserveCapacity(parts.reduce(0) { $0 + $1.deflated.count })
        for part in parts { blocks.append(part.deflated) }
        deflated = blocks
        length = parts.reduce(0) { $0 + $1.length }
    }

    /// nil if zlib failed (out of memory).
    init?(_ bytes: Data, level: Level) {
        let deflater = level == .fast ? Deflater.pool.take() : Deflater(level: 9)
        guard let deflater else { return nil }
        defer { if level == .fast { Deflater.pool.giveBack(deflater) } }
        // (Made in a buffer with room for the most it can be, then copied to its size: a page
        // is kept as it is made.)
        var output = ByteBuffer()
        guard bytes.isEmpty || deflater.deflate(bytes, into: &output) else { return nil }
        deflated = Data(output.readableBytesView)
        length = bytes.count
    }
}

/// A file the pages load (`style.css`, a script), as served: its bytes, gzipped once, and their tags.
struct WebAsset: Sendable {
    let bytes: Data
    let gzipped: Data?
    let eTag: String

    init(_ bytes: Data) {
        self.bytes = bytes
        gzipped = Gzip.compress(bytes)
        eTag = "\"" + Hex.string(SHA256.hash(data: bytes).prefix(12)) + "\""
    }
}

/// A zlib compressor making raw deflate blocks, reset for each use; used by one caller at a
/// time (taken from ``pool`` and given back).
private final class Deflater: @unchecked Sendable {
    private let compressor: ZlibCompressor

    init?(level: Int32) {
        guard
            let compressor = try? ZlibCompressor(
                algorithm: .deflate, configuration: ZlibConfiguration(windowSize: 15, compressionLevel: level))
        else { return nil }
        self.compressor = compressor
    }

    /// Writes `bytes` (not empty) to `output` deflated, in blocks that end on a byte boundary
    /// (zlib's sync flush), none of them final; false if zlib failed.
    func deflate(_ bytes: Data, into output: inout ByteBuffer) -> Bool {
        var input = ByteBuffer(bytes: bytes)
        output.reserveCapacity(output.writerIndex + compressor.maxSize(from: input))
        do {
            try compressor.reset()
            try compressor.deflate(from: &input, to: &output, flush: .sync)
        } catch {
            return false
        }
        return input.readableBytes == 0
    }

    /// Compressors at zlib's fastest level, kept between pages: at most as many as pages are
    /// deflated at once, up to 8.
    static let pool = Pool()

    final class Pool: Sendable {
        private let kept = Mutex<[Deflater]>([])

        /// A kept compressor, or a new one; nil if zlib could not set one up (out of memory).
        func take() -> Deflater? {
            kept.withLock { $0.popLast() } ?? Deflater(level: 1)
        }

        func giveBack(_ deflater: Deflater) {
            kept.withLock { if $0.count < 8 { $0.append(deflater) } }
        }
    }
}
