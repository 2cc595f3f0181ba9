import CCurlLoader
import Foundation
import LoopFoundation

/// One HTTP request: what ``HTTPTransport`` sends.
struct HTTPRequest: Sendable {
    var method = "GET"
    var url: URL
    /// Header lines, in order.
    var headers: [(name: String, value: String)] = []
    /// The body, streamed from this file.
    var uploadPath: String?
    /// The answer's body goes to this file instead of memory.
    var downloadPath: String?
    /// Seconds of crawling (under 512 bytes a second) after which the request is given up.
    var timeout: Int = 30
    /// Seconds after which the request is given up however it goes.
    var deadline: Int = 120
    /// The most bytes the answer's body may hold, after decompression.
    var maxBodyBytes: Int64 = 8 << 20

    init(_ url: URL) { self.url = url }

    mutating func setHeader(_ name: String, _ value: String) { headers.append((name, value)) }
}

/// What the server answered.
struct HTTPAnswer: Sendable {
    var status: Int
    /// The body, unless it went to the request's ``HTTPRequest/downloadPath``.
    var body: Data
    var etag: String?
    /// Where a redirect points, when the answer is one (not followed by ``HTTPTransport/send(_:)``).
    var redirect: String?
}

/// HTTP through libcurl, opened on the first request (`CCurlLoader`), so that `loop` does not
/// load libcurl and its thirty-odd libraries at every start the way Foundation's URLSession would.
enum HTTPTransport {
    /// Sends `request` as blocking work (the transfer blocks its thread) and waits for the
    /// answer; throws the reason, one line, when no answer came.
    private static func send(_ request: HTTPRequest) async throws(TransferFailure) -> HTTPAnswer {
        let result: Result<HTTPAnswer, TransferFailure>
        do {
            result = try await BlockingWork.run("loop HTTP request") { perform(request) }
        } catch {
            throw TransferFailure(reason: String(describing: error), isLocal: true) // perform itself never throws
        }
        return try result.get()
    }

    struct TransferFailure: Error {
        var reason: String
        /// It failed here (a file the request reads or writes, memory, libcurl itself), not on
        /// the way to the server or at it.
        var isLocal = false
        /// The server answered, but not as loop takes an answer: too large, too slow, or
        /// redirected elsewhere.
        var isServersFault = false
    }

    /// Redirects followed at most.
    static let maximumRedirects = 5

    /// Sends `request`, following redirects that stay on the same host (an `http` address may
    /// move to `https`, never back) for GET requests; any other redirect is refused with the
    /// place it pointed to. A redirect to another host would let a server send loop to any
    /// address this machine reaches (its own loopback, the cloud's metadata address).
    static func sendFollowingRedirects(_ request: HTTPRequest) async throws(TransferFailure) -> HTTPAnswer {
        var current = request
        for _ in 0...maximumRedirects {
            let answer = try await send(current)
            guard let target = answer.redirect else { return answer }
            guard current.method == "GET", let next = URL(string: target, relativeTo: current.url)?.absoluteURL,
                isAllowedRedirect(from: current.url, to: next)
            else {
                throw TransferFailure(
                    reason:
                        "it redirected to \(target), which loop does not follow (only the same host, over http or https)",
                    isServersFault: true)
            }
            current.url = next
        }
        throw TransferFailure(reason: "more than \(maximumRedirects) redirects", isServersFault: true)
    }

    /// Whether a redirect from `origin` to `target` stays on the same host and port, over http
    /// or https, without going from https to http.
    static func isAllowedRedirect(from origin: URL, to target: URL) -> Bool {
        guard let scheme = target.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let fromHost = origin.host?.lowercased(), let toHost = target.host?.lowercased(), fromHost == toHost
        else { return false }
        let fromScheme = origin.scheme?.lowercased() ?? "http"
        if fromScheme == "https" && scheme == "http" { return false }
        let defaultPort = { (scheme: String) in scheme == "https" ? 443 : 80 }
        let fromPort = origin.port ?? defaultPort(fromScheme)
        let toPort = target.port ?? defaultPort(scheme)
        // http to https on the same host moves to https's port.
        return fromPort == toPort || (fromScheme == "http" && scheme == "https" && toPort == 443 && origin.port == nil)
    }

    private static func perform(_ request: HTTPRequest) -> Result<HTTPAnswer, TransferFailure> {
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        var cLines = lines.map { strdup($0) }
        defer { for line in cLines { free(line) } }
        var response = loop_http_response()
        defer { loop_http_response_free(&response) }
        let status: Int32 = request.method.withCString { method in
            request.url.absoluteString.withCString { url in
                withOptionalCString(request.uploadPath) { upload in
                    withOptionalCString(request.downloadPath) { download in
                        cLines.withUnsafeMutableBufferPointer { buffer in
                            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { headers in
                                var cRequest = loop_http_request(
                                    method: method, url: url, headers: headers.baseAddress,
                                    header_count: Int32(headers.count),
                                    upload_path: upload, download_path: download, timeout_seconds: request.timeout,
                                    deadline_seconds: request.deadline, max_body_bytes: request.maxBodyBytes)
                                return loop_http_perform(&cRequest, &response)
                            }
                        }
                    }
                }
            }
        }
        guard status == 0 else {
            if response.too_large != 0 {
                return .failure(
                    TransferFailure(
                        reason:
                            "its answer is larger than \(request.maxBodyBytes >> 20) MiB, more than loop takes for it",
                        isServersFault: true))
            }
            if response.timed_out != 0 {
                return .failure(
                    TransferFailure(
                        reason:
                            "it sent too little within \(request.deadline) s, or crawled below 512 bytes a second for \(request.timeout) s",
                        isServersFault: true))
            }
            let reason = withUnsafeBytes(of: response.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .failure(TransferFailure(reason: reason, isLocal: response.local_failure != 0))
        }
        let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
        let etag = response.etag.map { String(cString: $0) }
        let redirect = response.redirect_url.map { String(cString: $0) }
        return .success(HTTPAnswer(status: Int(response.status), body: body, etag: etag, redirect: redirect))
    }

    private static func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let text else { return body(nil) }
        return text.withCString { body($0) }
    }
}
