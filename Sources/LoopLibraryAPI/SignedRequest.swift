import Foundation

/// How an author signs a request that changes the catalog (publish, unpublish): Ed25519 over a
/// canonical text of the request, with a timestamp and a nonce so that it cannot be replayed.
///
///     Loop-Key: <public key, base64>
///     Loop-Timestamp: <seconds since 1970>
///     Loop-Nonce: <16 random bytes, hex>
///     Loop-Author-Name: <display name, percent-encoded>   (optional)
///     Loop-Signature: <signature of `canonicalText`, base64>
///
/// A server accepts a timestamp within ``allowedSkew`` of its clock and each nonce once.
public enum SignedRequest {
    public static let keyHeader = "Loop-Key"
    public static let timestampHeader = "Loop-Timestamp"
    public static let nonceHeader = "Loop-Nonce"
    public static let authorNameHeader = "Loop-Author-Name"
    public static let signatureHeader = "Loop-Signature"

    /// How far a request's timestamp may be from the server's clock.
    public static let allowedSkew: TimeInterval = 300

    /// The text signed: method, path, timestamp, nonce, the body's SHA-256 (hex; of no bytes
    /// for an empty body) and the author name (empty when none), one per line.
    public static func canonicalText(method: String, path: String, timestamp: Int, nonce: String, bodySHA256: String, authorName: String?) -> Data {
        Data(["loop-library-request-v1", method.uppercased(), path, String(timestamp), nonce, bodySHA256, authorName ?? ""].joined(separator: "\n").utf8)
    }

    /// The SHA-256 of no bytes, in hex: the body hash of a request without one.
    public static let emptyBodySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// A display name as the header carries it (percent-encoded UTF-8), and back.
    public static func encodeName(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    public static func decodeName(_ header: String) -> String? {
        header.removingPercentEncoding
    }
}

/// Every path a Loop Library serves, defined once: the pattern the server's router matches (a
/// `:name` is a parameter) beside the function that builds it for a client or a page.
public enum LoopLibraryPaths {
    // The API.
    public static let loops = "/api/loops"
    public static let front = "/api/front"
    public static let health = "/healthz"
    public static let loopPattern = "/api/loops/:ref"
    public static func loop(_ ref: String) -> String { "/api/loops/\(ref)" }
    public static let bundlePattern = "/api/loops/:ref/bundle"
    public static func bundle(_ ref: String) -> String { "/api/loops/\(ref)/bundle" }
    public static let blobPattern = "/blobs/:name"
    public static func blob(_ sha256: String) -> String { "/blobs/\(sha256)" }

    // The pages.
    public static let frontPage = "/"
    public static let feed = "/feed.atom"
    public static let stylesheet = "/style.css"
    public static let script = "/copy.js"
    /// A loop's preview page (`/SHORTID`), or an author's (`/@NAME`).
    public static let pagePattern = "/:ref"
    public static func page(_ ref: String) -> String { "/\(ref)" }
    public static let clipPattern = "/:ref/:clip"
    /// The clip of a loop's `phrase`th phrase (from 1), on its page.
    public static func clip(_ ref: String, phrase: Int) -> String { "/\(ref)/\(phrase).flac" }
}

/// Author display names: what one may be.
public enum AuthorName {
    /// The name trimmed, or nil when it is empty, longer than 40 characters, or holds other
    /// than letters, digits, spaces and `.-_` (names appear in paths: `/@name`).
    public static func validated(_ name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard (1...40).contains(trimmed.count),
              trimmed.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || " .-_".unicodeScalars.contains($0) }) else { return nil }
        return trimmed
    }
}

/// Bytes as lowercase hex (hashes, ETags, nonces), without String(format:)'s cost.
public enum Hex {
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
