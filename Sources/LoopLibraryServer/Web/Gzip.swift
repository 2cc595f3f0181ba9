import CompressNIO
import Crypto
import Foundation
import Hummingbird
import LoopLibraryAPI

/// gzip for what a browser loads (pages, their stylesheet and scripts): a third of the bytes
/// on a phone's slow network. Clips, pictures and bundles are compressed already and go as
/// they are.
enum Gzip {
    /// `data` gzipped (zlib through compress-nio); nil if zlib failed (then it goes as it is).
    static func compress(_ data: Data) -> Data? {
        var input = ByteBuffer(bytes: data)
        return (try? input.compress(with: .gzip())).map { Data($0.readableBytesView) }
    }

    /// What `gzipped` (made by ``compress(_:)``) inflates to: `length` bytes.
    static func decompress(_ gzipped: Data, length: Int) throws -> ByteBuffer {
        var input = ByteBuffer(bytes: gzipped)
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
