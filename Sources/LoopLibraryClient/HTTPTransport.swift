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
    /// Seconds without a byte moving after which the request is given up.
    var timeout: Int = 60

    init(_ url: URL) { self.url = url }

    mutating func setHeader(_ name: String, _ value: String) { headers.append((name, value)) }
}

/// What the server answered.
struct HTTPAnswer: Sendable {
    var status: Int
    /// The body, unless it went to the request's ``HTTPRequest/downloadPath``.
    var body: Data
    var etag: String?
}

/// HTTP through libcurl, opened on the first request (`CCurlLoader`), so that `loop` does not
/// load libcurl and its thirty-odd libraries at every start the way Foundation's URLSession would.
enum HTTPTransport {
    /// Sends `request` as blocking work (the transfer blocks its thread) and waits for the
    /// answer; throws the reason, one line, when no answer came.
    static func send(_ request: HTTPRequest) async throws(TransferFailure) -> HTTPAnswer {
        let result: Result<HTTPAnswer, TransferFailure>
        do {
            result = try await BlockingWork.run("loop HTTP request") { perform(request) }
        } catch {
            throw TransferFailure(reason: String(describing: error), isLocal: true)   // perform itself never throws
        }
        return try result.get()
    }

    struct TransferFailure: Error {
        var reason: String
        /// It failed here (a file the request reads or writes, memory, libcurl itself), not on
        /// the way to the server or at it.
        var isLocal = false
    }

    private static func perform(_ request: HTTPRequest) -> Result<HTTPAnswer, TransferFailure> {
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        var cLines = lines.map { strdup($0) }
        defer { cLines.forEach { free($0) } }
        var response = loop_http_response()
        defer { loop_http_response_free(&response) }
        let status: Int32 = request.method.withCString { method in
            request.url.absoluteString.withCString { url in
                withOptionalCString(request.uploadPath) { upload in
                    withOptionalCString(request.downloadPath) { download in
                        cLines.withUnsafeMutableBufferPointer { buffer in
                            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { headers in
                                var cRequest = loop_http_request(
                                    method: method, url: url, headers: headers.baseAddress, header_count: Int32(headers.count),
                                    upload_path: upload, download_path: download, timeout_seconds: request.timeout)
                                return loop_http_perform(&cRequest, &response)
                            }
                        }
                    }
                }
            }
        }
        guard status == 0 else {
            let reason = withUnsafeBytes(of: response.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .failure(TransferFailure(reason: reason, isLocal: response.local_failure != 0))
        }
        let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
        let etag = response.etag.map { String(cString: $0) }
        return .success(HTTPAnswer(status: Int(response.status), body: body, etag: etag))
    }

    private static func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let text else { return body(nil) }
        return text.withCString { body($0) }
    }
}
