import Foundation

/// How an author signs a request that changes the catalog (publish, unpublish): Ed25519 over a
/// canonical text of the request, which names the Loop Library it is for, with a timestamp and a
/// nonce so that it cannot be replayed, there or anywhere else.
///
///     Loop-Key: <public key, base64>
///     Loop-Timestamp: <seconds since 1970>
///     Loop-Nonce: <16 random bytes, hex>
///     Loop-Content-SHA256: <the body's SHA-256, hex>
///     Loop-Id: <the loop's id>                 (publish: the loop the bundle holds)
///     Loop-Revision: <its revision>            (publish)
///     Loop-Author-Name: <display name, percent-encoded>   (optional)
///     Loop-Signature: <signature of `canonicalText`, base64>
///
/// Everything a server judges a publish by (who, which loop, which revision, how long, what
/// hash) is signed and in the headers, so it is judged before a byte of the body is read. A
/// server accepts a timestamp within ``allowedSkew`` of its clock and each nonce once.
public enum SignedRequest {
    /// The header that carries the author's public key.
    public static let keyHeader = "Loop-Key"
    /// The header that carries the request's time (seconds since 1970).
    public static let timestampHeader = "Loop-Timestamp"
    /// The header that carries a nonce used once.
    public static let nonceHeader = "Loop-Nonce"
    /// The header that carries the body's SHA-256.
    public static let contentSHA256Header = "Loop-Content-SHA256"
    /// The header that names the loop a publish carries.
    public static let loopIDHeader = "Loop-Id"
    /// The header that carries a publish's revision.
    public static let revisionHeader = "Loop-Revision"
    /// The header that carries the author's display name (percent-encoded).
    public static let authorNameHeader = "Loop-Author-Name"
    /// The header that carries the signature.
    public static let signatureHeader = "Loop-Signature"

    /// How far a request's timestamp may be from the server's clock.
    public static let allowedSkew: TimeInterval = 300

    /// The latest timestamp a request may carry: the end of the year 9999 (seconds since 1970).
    public static let latestTimestamp = 253_402_300_799

    /// What a signed request is about, beside who signs it.
    public struct Content: Sendable, Equatable {
        /// The HTTP method, as sent.
        public var method: String
        /// The Loop Library's host and port as ``authority(of:)`` writes them.
        public var authority: String
        /// After any path prefix of the server's address.
        public var path: String
        /// Seconds since 1970 when the request was made.
        public var timestamp: Int
        /// Random hex digits that make the request one of a kind.
        public var nonce: String
        /// The body's length in bytes.
        public var bodyLength: Int
        /// The body's SHA-256 (hex).
        public var bodySHA256: String
        /// The loop a publish carries (nil for other requests).
        public var loopID: String?
        /// The revision a publish carries.
        public var revision: Int?
        /// The author's display name, when given.
        public var authorName: String?

        /// A request's content from its parts.
        public init(
            method: String, authority: String, path: String, timestamp: Int, nonce: String, bodyLength: Int,
            bodySHA256: String,
            loopID: String? = nil, revision: Int? = nil, authorName: String? = nil
        ) {
            self.method = method
            self.authority = authority
            self.path = path
            self.timestamp = timestamp
            self.nonce = nonce
            self.bodyLength = bodyLength
            self.bodySHA256 = bodySHA256
            self.loopID = loopID
            self.revision = revision
            self.authorName = authorName
        }

        /// The text signed: one line each, absent values empty (docs/server.md).
        public var canonicalText: Data {
            Data(
                [
                    "loop-library-request-v2", method.uppercased(), authority, path, String(timestamp), nonce,
                    String(bodyLength), bodySHA256,
                    loopID ?? "", revision.map(String.init) ?? "", authorName ?? "",
                ].joined(separator: "\n").utf8)
        }
    }

    /// A Loop Library's address as signed requests name it: its host in lower case, and its
    /// port unless it is the scheme's own (`loops.example.org`, `127.0.0.1:8080`).
    public static func authority(of url: URL) -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let scheme = url.scheme?.lowercased() ?? "http"
        guard let port = url.port, port != (scheme == "https" ? 443 : 80) else { return host }
        return host + ":" + String(port)
    }

    /// The SHA-256 of no bytes, in hex: the body hash of a request without one.
    public static let emptyBodySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// A display name as the header carries it (percent-encoded UTF-8), and back.
    public static func encodeName(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// See ``encodeName(_:)``; nil when the header is not percent-encoded UTF-8.
    public static func decodeName(_ header: String) -> String? {
        header.removingPercentEncoding
    }
}

/// Every path a Loop Library serves, defined once: the pattern the server's router matches (a
/// `:name` is a parameter) beside the function that builds it for a client or a page.
public enum LoopLibraryPaths {
    // The API.
    /// The listing, and publishing (`POST`).
    public static let loops = "/api/loops"
    /// The front page's lists.
    public static let front = "/api/front"
    /// The health check.
    public static let health = "/healthz"
    /// One loop's detail (by id or short id), and unpublishing (`DELETE`).
    public static let loopPattern = "/api/loops/:ref"
    /// The path of one loop's detail.
    public static func loop(_ ref: String) -> String { "/api/loops/\(ref)" }
    /// The route of a loop's bundle.
    public static let bundlePattern = "/api/loops/:ref/bundle"
    /// The path of a loop's bundle.
    public static func bundle(_ ref: String) -> String { "/api/loops/\(ref)/bundle" }
    /// The route of a stored file (by SHA-256).
    public static let blobPattern = "/blobs/:name"
    /// The path of a stored file.
    public static func blob(_ sha256: String) -> String { "/blobs/\(sha256)" }

    // The pages.
    /// The front page.
    public static let frontPage = "/"
    /// The Atom feed of the latest loops.
    public static let feed = "/feed.atom"
    /// The pages' stylesheet.
    public static let stylesheet = "/style.css"
    /// The pages' script (copying an install link).
    public static let script = "/copy.js"
    /// The loop page's study player: the study engine and the player, one file.
    public static let player = "/player.js"
    /// What "Model, then mine" draws (the two recordings' waveforms and pitch), which the player
    /// fetches the first time it is used.
    public static let compare = "/compare.js"
    /// The service worker that keeps a loop's page, player and clips for studying offline.
    public static let serviceWorker = "/sw.js"
    /// The site's icon (SVG), which every page names; `/favicon.ico` redirects to it.
    public static let icon = "/icon.svg"
    /// The icon's old name, which browsers ask for unbidden.
    public static let iconFallback = "/favicon.ico"
    /// A loop's preview page (`/SHORTID`), or an author's (`/@NAME`).
    public static let pagePattern = "/:ref"
    /// The path of a loop's or an author's page.
    public static func page(_ ref: String) -> String { "/\(ref)" }
    /// The route of a phrase's clip on its page.
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
            trimmed.unicodeScalars.allSatisfy({
                CharacterSet.alphanumerics.contains($0) || " .-_".unicodeScalars.contains($0)
            })
        else { return nil }
        return trimmed
    }
}

/// Bytes as lowercase hex (hashes, ETags, nonces), without String(format:)'s cost.
public enum Hex {
    /// The bytes as lowercase hex digits, two a byte.
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
