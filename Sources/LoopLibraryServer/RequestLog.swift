import Foundation
import Hummingbird
import LoopFoundation
import LoopLibraryAPI
import Logging

/// One log line per request (method, path, status, milliseconds), and every error as the
/// API's JSON error body with its status: `{"error": "..."}`.
struct RequestLog<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Self.response(for: error, logger: logger)
        }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", milliseconds)) ms")
        return response
    }

    static func response(for error: any Error, logger: Logger) -> Response {
        let (status, message) = statusAndMessage(error)
        if status == .internalServerError { logger.error("\(String(reflecting: error))") }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let body = (try? CatalogText.encoder.encode(ErrorBody(error: message))) ?? Data("{\"error\":\"internal error\"}".utf8)
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
            case .rateLimited: return (.tooManyRequests, error.message)
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
            return (HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "the server is out of disk space")
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
