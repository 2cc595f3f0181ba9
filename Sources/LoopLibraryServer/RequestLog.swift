import Foundation
import Hummingbird
import Logging
import LoopFoundation
import LoopLibraryAPI

/// One access-log entry per request, the request metrics, and every error as the API's JSON
/// error body with its status: `{"error": "..."}`.
///
/// The entry goes to the log as a line of text (method, path, status, milliseconds), or, with
/// an ``AccessLogFile``, as a line of JSON to that file (docs/server.md lists its fields).
struct RequestLog: RouterMiddleware {
    typealias Context = LibraryRequestContext
    let logger: Logger
    let file: AccessLogFile?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        var response: Response
        var cause: String?
        do {
            response = try await next(request, context)
        } catch {
            cause = Self.cause(of: error)
            response = Self.response(for: error, logger: logger)
        }
        let status = response.status.code
        let route = context.endpointPath ?? "unknown"
        if let cause { LibraryMetrics.refused(cause: cause) }
        // The entry and the figures once the body is written (a download's last byte sent),
        // or its client went away.
        let body = response.body, logger = self.logger, file = self.file, refusal = cause
        let method = request.method, path = request.uri.path, client = context.clientAddress
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            let sent = ByteCount()
            var failure: (any Error)?
            do {
                try await body.write(CountingWriter(base: writer, count: sent))
            } catch {
                failure = error
            }
            let completed = failure == nil
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            LibraryMetrics.request(
                route: route, method: method.rawValue, status: status, seconds: seconds, bytesSent: sent.bytes)
            if let file {
                file.write(
                    AccessLogFile.Entry(
                        time: Date(), client: client, method: method.rawValue, path: path, route: route, status: status,
                        bytes: sent.bytes, milliseconds: (seconds * 10_000).rounded() / 10, completed: completed,
                        cause: refusal))
            } else {
                logger.info("\(method) \(path) \(status) \(String(format: "%.1f", seconds * 1000)) ms")
            }
            if let failure { throw failure }
        }
        return response
    }

    /// What a refusal is counted under: the kind of the error (`unauthorized`, `quota`, ...).
    static func cause(of error: any Error) -> String {
        switch error {
        case APIError.notFound: "notFound"
        case let error as PublishError: error.kind.rawValue
        case let error as CatalogError: error.kind.rawValue
        case let error as HTTPError: "http\(error.status.code)"
        case let error as FileSystemError where error.code == ENOSPC: "diskFull"
        default: "internal"
        }
    }

    static func response(for error: any Error, logger: Logger) -> Response {
        let (status, message) = statusAndMessage(error)
        if status == .internalServerError { logger.error("\(String(reflecting: error))") }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        // When to try again: a rate's minute, a busy server's few seconds.
        if status == .tooManyRequests { headers[.retryAfter] = "60" }
        if status == .serviceUnavailable { headers[.retryAfter] = "5" }
        let body =
            (try? CatalogText.encoder.encode(ErrorBody(error: message))) ?? Data("{\"error\":\"internal error\"}".utf8)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func statusAndMessage(_ error: any Error) -> (HTTPResponse.Status, String) {
        switch error {
        case APIError.notFound(let message):
            return (.notFound, message)
        case let error as PublishError:
            switch error.kind {
            case .unauthorized: return (.unauthorized, error.message)
            case .tooLarge: return (.contentTooLarge, error.message)
            case .lengthRequired: return (.lengthRequired, error.message)
            case .rateLimited, .quota: return (.tooManyRequests, error.message)
            case .busy: return (.serviceUnavailable, error.message)
            case .badRequest: return (.badRequest, error.message)
            case .badBundle: return (.unprocessableContent, error.message)
            }
        case let error as CatalogError:
            switch error.kind {
            case .notTheAuthor, .takenDown: return (.forbidden, error.message)
            case .staleRevision, .nameTaken: return (.conflict, error.message)
            case .notFound: return (.notFound, error.message)
            case .database, .templates: return (.internalServerError, "the catalog failed; try again later")
            }
        case let error as HTTPError:
            return (error.status, error.body ?? error.status.reasonPhrase.lowercased())
        case let error as FileSystemError where error.code == ENOSPC:
            return (
                HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "the server is out of disk space"
            )
        default:
            return (.internalServerError, "internal error")
        }
    }
}

/// A `Range: bytes=...` header against a file's size (one range; several are served whole).
enum ByteRange: Equatable {
    case whole
    case part(ClosedRange<Int>)
    case unsatisfiable

    static func parse(_ header: String, size: Int) -> ByteRange {
        guard header.hasPrefix("bytes="), !header.contains(","), size > 0 else { return .whole }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let sides = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard sides.count == 2 else { return .whole }
        if sides[0].isEmpty {
            // The last N bytes.
            guard let suffix = Int(sides[1]), suffix > 0 else { return .unsatisfiable }
            return .part(max(0, size - suffix)...(size - 1))
        }
        guard let start = Int(sides[0]), start >= 0 else { return .whole }
        guard start < size else { return .unsatisfiable }
        guard !sides[1].isEmpty else { return .part(start...(size - 1)) }
        guard let end = Int(sides[1]), end >= start else { return .whole }
        return .part(start...min(end, size - 1))
    }
}

/// A response body writer that counts the bytes written through it into `count`.
struct CountingWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let count: ByteCount

    mutating func write(_ buffer: ByteBuffer) async throws {
        count.bytes += FileRegions.bytesSent(by: buffer)
        try await base.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}

/// Bytes counted by a ``CountingWriter``.
final class ByteCount {
    var bytes = 0
}
