import Foundation
import Logging
import LoopFoundation
import PostgresNIO
import Synchronization
import _ConnectionPoolModule

/// Whether PostgreSQL answers, as this server last found. While it does not, what the catalog
/// would ask of it is refused at once (503, with the reason) rather than left waiting in
/// PostgresNIO's pool, which queues a request for a minute before it gives up.
final class CatalogReachability: Sendable {
    private let reason = Mutex<String?>(nil)

    /// Why PostgreSQL cannot be reached, or nil while it can.
    var unreachableReason: String? { reason.withLock { $0 } }

    /// PostgreSQL answered: nil; else why not. Returns whether that changed.
    @discardableResult
    func found(_ unreachable: String?) -> Bool {
        reason.withLock { reason in
            defer { reason = unreachable }
            return (reason == nil) != (unreachable == nil)
        }
    }
}

extension PostgresCatalog {
    /// Seconds PostgreSQL is given to accept a connection made to check it answers.
    public static let connectSeconds: Int64 = 5

    /// The pool, unless PostgreSQL was last found unreachable: then the refusal, at once.
    var pool: PostgresClient {
        get throws(CatalogError) {
            if let reason = reachability.unreachableReason { throw Self.unavailable(reason) }
            return client
        }
    }

    /// The refusal of a request while PostgreSQL cannot be reached.
    static func unavailable(_ reason: String) -> CatalogError {
        CatalogError(.unavailable, "the catalog's database cannot be reached (\(reason)); try again in a moment")
    }

    /// Connects once, apart from the pool, within ``connectSeconds``: nil when PostgreSQL
    /// answered and took the user and database, else why not, in words.
    static func probe(_ configuration: PostgresConnection.Configuration) async -> String? {
        let quiet = Logger(label: "loop-library.probe") { _ in SwiftLogNoOpLogHandler() }
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet)
            try? await connection.close()
            return nil
        } catch {
            return reason(error)
        }
    }

    /// Why `error` says PostgreSQL cannot be reached (no connection can be made, one was lost),
    /// or nil when it says something else (a query's own failure).
    static func unreachableReason(of error: any Error) -> String? {
        if let error = error as? PostgresTransactionError {
            return [error.beginError, error.closureError, error.commitError].lazy.compactMap { $0 }.compactMap {
                unreachableReason(of: $0)
            }.first
        }
        if let error = error as? ConnectionPoolError, error == .connectionCreationCircuitBreakerTripped {
            return "no connection could be made to it for a minute"
        }
        if let error = error as? PSQLError,
            [.connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed].contains(error.code)
        {
            return reason(error)
        }
        return nil
    }

    /// `error` in words: PostgreSQL's own message where it sent one (`database "x" does not
    /// exist`), the system's for a connection (`Connection refused`), never a type's dump.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return reason(underlying) }
            switch error.code {
            case .serverClosedConnection, .uncleanShutdown: return "the connection was closed"
            case .connectionError: return "the connection failed"
            default: return "\(error.code)"
            }
        }
        if let error = error as? NIOConnectionError {
            if let failure = error.connectionErrors.first { return reason(failure.error) }
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "\(error.host): " + reason(dns) }
            return "\(error.host) was not found"
        }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return "no answer within \(connectSeconds) s"
        }
        return String(describing: error)
    }
}
