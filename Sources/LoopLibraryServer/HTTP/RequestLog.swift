import Foundation
import Hummingbird
import Logging
import LoopFoundation
import LoopLibraryAPI

/// One access-log entry per request, the request metrics, and every error answered as the
/// error says (``ErrorAnswer``).
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
            let answer = ErrorAnswer(for: error)
            if answer.status == .internalServerError { logger.error("\(String(reflecting: error))") }
            cause = answer.cause
            response = answer.response
        }
        let status = response.status.code
        let route = context.endpointPath ?? "unknown"
        if let cause { LibraryMetrics.refused(cause: cause) }
        // The entry and the figures once the body is written (a download's last byte sent),
        // or its client went away.
        let body = response.body
        let logger = self.logger
        let file = self.file
        let refusal = cause
        let method = request.method
        let path = request.uri.path
        let client = context.clientAddress
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
}
