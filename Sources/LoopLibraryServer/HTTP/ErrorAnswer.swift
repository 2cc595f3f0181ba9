import Foundation
import Hummingbird
import LoopFoundation
import LoopLibraryAPI

/// What the server answers an error with: its status, the API's JSON error body
/// (`{"error": "..."}`), when to try again, and what `/metrics` counts it under. An error the
/// server refuses with says its own answer (``ServerRefusal``); any other is the server's own
/// failure (507 when the disk is full, else 500), its words kept out of the answer.
struct ErrorAnswer {
    var status: HTTPResponse.Status
    var message: String
    /// What the refusal is counted under (`unauthorized`, `quota`, `diskFull`, ...).
    var cause: String
    /// Seconds after which to try again, for a refusal that passes.
    var retryAfter: Int?

    /// A rate is counted by the minute: try again after one.
    static let rateRetry = 60
    /// A server busy with as many uploads as it takes: a few seconds.
    static let busyRetry = 5

    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")

    init(status: HTTPResponse.Status, message: String, cause: String, retryAfter: Int? = nil) {
        (self.status, self.message, self.cause, self.retryAfter) = (status, message, cause, retryAfter)
    }

    /// The answer to `error`.
    init(for error: any Error) {
        if let refusal = error as? any ServerRefusal {
            self = refusal.answer
        } else if let reason = PostgresCatalog.unreachableReason(of: error) {
            self = PostgresCatalog.unavailable(reason).answer
        } else if DiskSpace.isOutOfSpace(error) {
            self.init(status: Self.insufficientStorage, message: "the server is out of disk space", cause: "diskFull")
        } else {
            self.init(status: .internalServerError, message: "internal error", cause: "internal")
        }
    }

    /// The answer as a response.
    var response: Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        let body =
            (try? CatalogText.encoder.encode(ErrorBody(error: message))) ?? Data("{\"error\":\"internal error\"}".utf8)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// An error the server answers as it says.
protocol ServerRefusal: Error {
    var answer: ErrorAnswer { get }
}

extension APIError: ServerRefusal {
    var answer: ErrorAnswer {
        switch self {
        case .notFound(let message): ErrorAnswer(status: .notFound, message: message, cause: "notFound")
        }
    }
}

/// A kind of refusal that says its own answer.
protocol ServerRefusalKind: LoopErrorKind {
    /// The answer to a refusal of this kind that says `message`.
    func answer(saying message: String) -> ErrorAnswer
}

extension LoopError: ServerRefusal where Kind: ServerRefusalKind {
    var answer: ErrorAnswer { kind.answer(saying: message) }
}

extension PublishFailure: ServerRefusalKind {
    func answer(saying message: String) -> ErrorAnswer {
        let (status, retryAfter): (HTTPResponse.Status, Int?) =
            switch self {
            case .unauthorized: (.unauthorized, nil)
            case .tooLarge: (.contentTooLarge, nil)
            case .lengthRequired: (.lengthRequired, nil)
            case .rateLimited, .quota: (.tooManyRequests, ErrorAnswer.rateRetry)
            case .busy: (.serviceUnavailable, ErrorAnswer.busyRetry)
            case .badRequest: (.badRequest, nil)
            case .badBundle: (.unprocessableContent, nil)
            }
        return ErrorAnswer(status: status, message: message, cause: rawValue, retryAfter: retryAfter)
    }
}

extension CatalogFailure: ServerRefusalKind {
    func answer(saying message: String) -> ErrorAnswer {
        let status: HTTPResponse.Status
        switch self {
        case .notTheAuthor, .takenDown: status = .forbidden
        case .staleRevision, .nameTaken: status = .conflict
        case .notFound: status = .notFound
        case .unavailable:
            return ErrorAnswer(
                status: .serviceUnavailable, message: message, cause: rawValue, retryAfter: ErrorAnswer.busyRetry)
        case .database, .templates:
            // The server's own failure: its words stay in the log.
            return ErrorAnswer(
                status: .internalServerError, message: "the catalog failed; try again later", cause: rawValue)
        }
        return ErrorAnswer(status: status, message: message, cause: rawValue)
    }
}

extension HTTPError: ServerRefusal {
    var answer: ErrorAnswer {
        ErrorAnswer(status: status, message: body ?? status.reasonPhrase.lowercased(), cause: "http\(status.code)")
    }
}
