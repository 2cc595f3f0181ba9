import Crypto
import Foundation
import LoopFoundation
import LoopLibraryAPI

/// The ways a Loop Library request can fail, with the HTTP status when there was an answer.
public struct ClientFailure: LoopErrorKind {
    /// What kind of failure it was.
    public enum Reason: String, Sendable {
        /// No answer: the address is wrong, or the server is down.
        case unreachable
        /// No such loop on the server (or no longer published).
        case notFound
        /// Another author owns the loop.
        case forbidden
        /// A stale revision, or a name another author holds.
        case conflict
        /// The server refused the request or the bundle (the message says why).
        case refused
        /// The server failed, or answered with something that is not the API.
        case server
        /// The request failed on this machine: a file it reads or writes, memory, or libcurl.
        case local
    }

    /// What kind of failure it was.
    public var reason: Reason
    /// The HTTP status, when there was an answer.
    public var status: Int?

    /// A failure of `reason`, with the HTTP status when there was an answer.
    public init(_ reason: Reason, status: Int? = nil) {
        self.reason = reason
        self.status = status
    }

    /// Where these errors come from: a Loop Library.
    public static let domain = ErrorDomain.server
    /// The reason's name.
    public var name: String { reason.rawValue }

    /// No answer.
    public static let unreachable = ClientFailure(.unreachable)
    /// A failure on this machine.
    public static let local = ClientFailure(.local)
    /// Refused by the server.
    public static let refused = ClientFailure(.refused)
    /// The server failed.
    public static let server = ClientFailure(.server)
}

/// Why a Loop Library request failed: the server's own one-line message where it sent one.
public typealias ClientError = LoopError<ClientFailure>

extension LoopError where Kind == ClientFailure {
    /// The server's answer `status` for `reason`.
    public init(_ reason: ClientFailure.Reason, _ message: String, status: Int?, path: String? = nil) {
        self.init(ClientFailure(reason, status: status), message, path: path)
    }

    /// The HTTP status, when there was an answer.
    public var status: Int? { kind.status }
}

/// Signs requests as an author: the public key and a way to sign bytes with its private key.
public struct RequestSigner: Sendable {
    /// The author's Ed25519 public key.
    public var publicKey: Data
    /// Signs bytes with the private key.
    public var sign: @Sendable (Data) throws -> Data
    /// The display name to bind to the key, if any.
    public var authorName: String?

    /// A signer for `publicKey`, binding `authorName` when given.
    public init(publicKey: Data, authorName: String?, sign: @escaping @Sendable (Data) throws -> Data) {
        self.publicKey = publicKey
        self.authorName = authorName
        self.sign = sign
    }
}

/// A client of one Loop Library server (docs/server.md), over libcurl (``HTTPTransport``).
///
/// A server is not trusted to be well-behaved: every answer has a size limit (applied after
/// decompression) and a deadline, a server that crawls is given up after ``crawlSeconds``, and
/// redirects are followed only on the same host.
public struct LibraryClient: Sendable {
    /// The most a JSON answer (a catalog page, a loop's detail, an error) may hold.
    public static let maxJSONBytes: Int64 = 8 << 20
    /// The most a bundle may hold: above any Loop Library's upload limit (200 MiB by default).
    public static let maxBundleBytes: Int64 = 512 << 20
    /// Seconds a JSON request may take in all.
    public static let jsonDeadline = 60
    /// Seconds a bundle's download or upload may take in all (an hour: 512 MiB at 150 KB/s).
    public static let bundleDeadline = 3_600
    /// Seconds below 512 bytes a second after which a request is given up.
    public static let crawlSeconds = 30

    /// The server's base address, without a trailing slash.
    public let server: URL

    /// A client of the server at `address` (`http://` or `https://`, a host, maybe a port and a
    /// path prefix).
    public init(server address: String) throws(ClientError) {
        var text = address.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            if let suggested = Self.suggestedAddress(for: text) {
                throw ClientError(.unreachable, "not a Loop Library address: did you mean \(suggested)?", path: address)
            }
            throw ClientError(.unreachable, "not a Loop Library address (http://HOST[:PORT])", path: address)
        }
        server = url
    }

    /// The address a user most likely meant by `text` when it names a server without its
    /// scheme: `localhost:8080` is `http://localhost:8080`, `loops.example.org` is
    /// `https://loops.example.org`; nil when `text` does not look like a host.
    public static func suggestedAddress(for text: String) -> String? {
        guard !text.contains("://"), !text.hasPrefix("/"), !text.hasPrefix(".") else { return nil }
        let hostAndPort = text.prefix { $0 != "/" }
        let parts = hostAndPort.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
        else { return nil }
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65_535).contains(port) else { return nil }
            return "http://" + text
        }
        // A name with a dot and a last label of letters (a domain), localhost, or an IPv4 address.
        let labels = host.split(separator: ".")
        if host == "localhost" || (labels.count == 4 && labels.allSatisfy { UInt8($0) != nil }) {
            return "http://" + text
        }
        guard labels.count >= 2, let last = labels.last, last.count >= 2, last.allSatisfy(\.isLetter) else {
            return nil
        }
        return "https://" + text
    }

    /// Where a loop's preview page is: `https://HOST/<shortID>`.
    public func previewLink(shortID: String) -> String { server.absoluteString + LoopLibraryPaths.page(shortID) }

    /// A loop named by a link or a reference: a preview link (`https://HOST/9ddbb9`), an API
    /// link (`https://HOST/api/loops/ID`), or an id or short id on `server`.
    public static func parseLink(_ link: String) -> (server: String, ref: String)? {
        guard let url = URL(string: link), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else { return nil }
        var parts = url.path.split(separator: "/").map(String.init)
        if parts.last == "bundle" { parts.removeLast() }
        guard let ref = parts.last, !ref.isEmpty, ref.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        parts.removeLast()
        if parts.suffix(2) == ["api", "loops"] { parts.removeLast(2) }
        guard var base = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        base.path = parts.isEmpty ? "" : "/" + parts.joined(separator: "/")
        base.query = nil
        base.fragment = nil
        return (base.string ?? link, ref)
    }

    // MARK: Reading

    /// A page of the catalog.
    public func catalog(_ query: CatalogQuery) async throws(ClientError) -> CatalogPage {
        var components = URLComponents(url: try url(LoopLibraryPaths.loops), resolvingAgainstBaseURL: false)
        components?.queryItems = query.queryItems
        guard let address = components?.url else { throw Self.notAnAddress(LoopLibraryPaths.loops) }
        return try await getJSON(address)
    }

    /// The front page's lists.
    public func front() async throws(ClientError) -> FrontPage {
        try await getJSON(try url(LoopLibraryPaths.front))
    }

    /// A loop's detail, by id or short id.
    public func loop(_ ref: String) async throws(ClientError) -> CatalogLoopDetail {
        try await getJSON(try url(LoopLibraryPaths.loop(escape(ref))))
    }

    /// What fetching a bundle found.
    public enum Download: Sendable, Equatable {
        /// The bundle is at the path given, with this ETag.
        case downloaded(etag: String?)
        /// The server holds the same bundle as `ifNoneMatch` named.
        case notModified
    }

    /// Downloads a loop's current bundle to `path`, unless its ETag is `ifNoneMatch`.
    public func downloadBundle(_ ref: String, to path: String, ifNoneMatch: String? = nil) async throws(ClientError)
        -> Download
    {
        var request = HTTPRequest(try url(LoopLibraryPaths.bundle(escape(ref))))
        request.deadline = Self.bundleDeadline
        request.maxBodyBytes = Self.maxBundleBytes
        if let ifNoneMatch { request.setHeader("If-None-Match", ifNoneMatch) }
        // Into a file beside `path`, renamed over it only once the whole bundle is there.
        let partial = path + ".part-\(UUID().uuidString.prefix(8))"
        request.downloadPath = partial
        defer { try? FileManager.default.removeItem(atPath: partial) }
        let response = try await send(request)
        if response.status == 304 { return .notModified }
        guard response.status == 200 else {
            // An error's body is a line of JSON: its first 64 KiB are plenty.
            let handle = FileHandle(forReadingAtPath: partial)
            let body = (try? handle?.read(upToCount: 64 << 10)) ?? nil
            try? handle?.close()
            throw Self.error(status: response.status, body: body ?? Data(), what: ref)
        }
        guard rename(partial, path) == 0 else {
            throw ClientError(.local, "cannot save the download (\(String(cString: strerror(errno))))", path: path)
        }
        return .downloaded(etag: response.etag)
    }

    // MARK: Changing

    /// Publishes the bundle at `path`, which holds revision `revision` of loop `loopID`, signed
    /// by `signer`'s key. The request's headers say all that (signed, with the bundle's length
    /// and hash), so a server refuses a publish it will not take before the bundle is sent.
    public func publish(bundle path: String, loopID: String, revision: Int, signer: RequestSigner)
        async throws(ClientError) -> PublishResult
    {
        let sha256: String
        let length: Int
        do {
            (sha256, length) = try Self.sha256(ofFile: path)
        } catch {
            throw ClientError(.refused, "cannot read the bundle (\(error.localizedDescription))", path: path)
        }
        return try await publish(
            bundle: path, sha256: sha256, length: length, loopID: loopID, revision: revision, signer: signer)
    }

    /// Publishes the bundle at `path` as ``publish(bundle:loopID:revision:signer:)`` does, its
    /// SHA-256 (hex) and length given by the one who wrote it rather than read again.
    public func publish(
        bundle path: String, sha256: String, length: Int, loopID: String, revision: Int, signer: RequestSigner
    ) async throws(ClientError) -> PublishResult {
        var request = try signed(
            "POST", LoopLibraryPaths.loops, bodyLength: length, bodySHA256: sha256, loopID: loopID, revision: revision,
            signer: signer)
        request.setHeader("Content-Type", "application/vnd.looplearn.loop+zip")
        request.deadline = Self.bundleDeadline
        request.uploadPath = path
        let response = try await send(request)
        guard response.status == 200 || response.status == 201 else {
            throw Self.error(status: response.status, body: response.body, what: path)
        }
        return try decode(response.body)
    }

    /// Takes a loop off the server (its author only).
    public func unpublish(id: String, signer: RequestSigner) async throws(ClientError) {
        let request = try signed(
            "DELETE", LoopLibraryPaths.loop(id), bodyLength: 0, bodySHA256: SignedRequest.emptyBodySHA256,
            signer: signer)
        let response = try await send(request)
        guard response.status == 204 || response.status == 200 else {
            throw Self.error(status: response.status, body: response.body, what: id)
        }
    }

    // MARK: Plumbing

    /// The address of `path` on the server.
    private func url(_ path: String) throws(ClientError) -> URL {
        guard let url = URL(string: server.absoluteString + path) else { throw Self.notAnAddress(path) }
        return url
    }

    private static func notAnAddress(_ path: String) -> ClientError {
        ClientError(.local, "'\(path.prefix(200))' makes no address on this server", status: nil)
    }

    private func escape(_ ref: String) -> String {
        ref.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["-"])) ?? ref
    }

    private func signed(
        _ method: String, _ path: String, bodyLength: Int, bodySHA256: String, loopID: String? = nil,
        revision: Int? = nil,
        signer: RequestSigner
    ) throws(ClientError) -> HTTPRequest {
        var request = HTTPRequest(try url(path))
        request.method = method
        let content = SignedRequest.Content(
            method: method, authority: SignedRequest.authority(of: server) ?? "",
            // The path as the server sees it: after any prefix of the server's address.
            path: server.path + path, timestamp: Int(Date().timeIntervalSince1970),
            nonce: Hex.string((0..<16).map { _ in UInt8.random(in: 0...255) }),
            bodyLength: bodyLength, bodySHA256: bodySHA256, loopID: loopID, revision: revision,
            authorName: signer.authorName)
        for (name, value) in try Self.signatureHeaders(content, signer: signer) { request.setHeader(name, value) }
        return request
    }

    /// The headers that carry `content`, signed by `signer` (docs/server.md).
    public static func signatureHeaders(_ content: SignedRequest.Content, signer: RequestSigner) throws(ClientError)
        -> [(String, String)]
    {
        let signature: Data
        do {
            signature = try signer.sign(content.canonicalText)
        } catch {
            throw ClientError(.refused, "cannot sign the request (\(error))")
        }
        var headers = [
            (SignedRequest.keyHeader, signer.publicKey.base64EncodedString()),
            (SignedRequest.timestampHeader, String(content.timestamp)),
            (SignedRequest.nonceHeader, content.nonce), (SignedRequest.contentSHA256Header, content.bodySHA256),
            (SignedRequest.signatureHeader, signature.base64EncodedString()),
        ]
        if let loopID = content.loopID { headers.append((SignedRequest.loopIDHeader, loopID)) }
        if let revision = content.revision { headers.append((SignedRequest.revisionHeader, String(revision))) }
        if let name = content.authorName {
            headers.append((SignedRequest.authorNameHeader, SignedRequest.encodeName(name)))
        }
        return headers
    }

    private func getJSON<Value: Decodable>(_ url: URL) async throws(ClientError) -> Value {
        let response = try await send(HTTPRequest(url))
        guard response.status == 200 else {
            throw Self.error(status: response.status, body: response.body, what: url.path)
        }
        return try decode(response.body)
    }

    private func decode<Value: Decodable>(_ data: Data) throws(ClientError) -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw ClientError(.server, "the answer is not a Loop Library's (\(server.absoluteString))")
        }
    }

    private func send(_ request: HTTPRequest) async throws(ClientError) -> HTTPAnswer {
        var request = request
        request.timeout = Self.crawlSeconds
        if request.downloadPath == nil { request.maxBodyBytes = Self.maxJSONBytes }
        if request.uploadPath == nil && request.downloadPath == nil { request.deadline = Self.jsonDeadline }
        do {
            return try await HTTPTransport.sendFollowingRedirects(request)
        } catch  where error.isLocal {
            throw ClientError(.local, "\(error.reason) (a request to \(server.absoluteString))")
        } catch  where error.isServersFault {
            throw ClientError(.server, "\(server.absoluteString): \(error.reason)")
        } catch {
            throw ClientError(.unreachable, "no answer from \(server.absoluteString) (\(error.reason))")
        }
    }

    /// The error for a status, with the server's message when its body is `{"error": "..."}`.
    static func error(status: Int, body: Data, what: String) -> ClientError {
        let message = (try? JSONDecoder().decode(ErrorBody.self, from: body))?.error ?? "the server answered \(status)"
        let reason: ClientFailure.Reason =
            switch status {
            case 404, 410: .notFound
            case 403: .forbidden
            case 409: .conflict
            case 400..<500: .refused
            default: .server
            }
        return ClientError(reason, message, status: status)
    }

    /// The file's SHA-256 (hex) and length.
    static func sha256(ofFile path: String) throws -> (String, Int) {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        var length = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            length += chunk.count
        }
        return (Hex.string(hasher.finalize()), length)
    }
}

extension ErrorDomain {
    /// A Loop Library as its client meets it.
    public static let server = ErrorDomain(rawValue: "server")
}
