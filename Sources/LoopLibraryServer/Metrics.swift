import Foundation
import LoopFoundation
import Metrics
import Prometheus
import Synchronization

/// The server's figures, through swift-metrics: `/metrics` shows them in Prometheus's text
/// format when `loop serve` bootstraps ``LibraryMetrics/bootstrap()`` (docs/server.md lists
/// them). Without a bootstrap they go nowhere.
enum LibraryMetrics {
    /// Makes swift-metrics record into a Prometheus registry, and returns it (once a process).
    static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }

    private struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct RequestFigures {
        var count: Metrics.Counter
        var duration: Metrics.Timer
        var sent: Metrics.Counter
    }

    /// A request's figures, made once for each route, method and status (the routes are the
    /// router's patterns, so there are few).
    private static let figures = Mutex<[RequestKey: RequestFigures]>([:])

    /// A request answered: counted by route, method and status, its time, the bytes sent.
    static func request(route: String, method: String, status: Int, seconds: Double, bytesSent: Int) {
        let key = RequestKey(route: route, method: method, status: status)
        let figures = figures.withLock { figures in
            if let kept = figures[key] { return kept }
            let dimensions = [("route", route), ("method", method), ("status", String(status))]
            let made = RequestFigures(
                count: Metrics.Counter(label: "loop_library_requests_total", dimensions: dimensions),
                duration: Metrics.Timer(
                    label: "loop_library_request_duration_seconds", dimensions: dimensions,
                    preferredDisplayUnit: .seconds),
                sent: Metrics.Counter(label: "loop_library_sent_bytes_total", dimensions: [("route", route)]))
            figures[key] = made
            return made
        }
        figures.count.increment()
        figures.duration.recordNanoseconds(Int64(seconds * 1e9))
        if bytesSent > 0 { figures.sent.increment(by: bytesSent) }
    }

    /// A request refused, by cause (the kind of its error: `unauthorized`, `quota`, `notFound`...).
    static func refused(cause: String) {
        Metrics.Counter(label: "loop_library_refusals_total", dimensions: [("cause", cause)]).increment()
    }

    /// A publish refused by a quota: `keyLoops`, `keyBytes`, `addressBytes`, `keyRate`,
    /// `addressRate`, `uploads` (concurrent).
    static func quotaHit(_ quota: String) {
        Metrics.Counter(label: "loop_library_quota_hits_total", dimensions: [("quota", quota)]).increment()
    }

    /// Upload bytes received (kept or not).
    static let receivedBytes = Metrics.Counter(label: "loop_library_received_bytes_total")

    /// Connections closed as they were accepted: the connection cap was reached.
    static let connectionsRefused = Metrics.Counter(label: "loop_library_connections_refused_total")

    /// Loops published (first publishes and updates).
    static let published = Metrics.Counter(label: "loop_library_publishes_total")

    /// A search of a catalog in PostgreSQL, counted by what answered it: the server's mirror
    /// of its search (`mirror`), or PostgreSQL itself (`postgres`: before the mirror is read,
    /// or where it failed).
    static func searched(inMirror: Bool) {
        (inMirror ? searchedInMirror : searchedInPostgres).increment()
    }
    private static let searchedInMirror = Metrics.Counter(
        label: "loop_library_postgres_searches_total", dimensions: [("answered_by", "mirror")])
    private static let searchedInPostgres = Metrics.Counter(
        label: "loop_library_postgres_searches_total", dimensions: [("answered_by", "postgres")])

    /// A loop's page made for a visit the page cache did not answer, counted by how: sent as
    /// rendered ahead when the loop was published (`ahead`), or rendered (`rendered`: for a
    /// client that does not take gzip, a loop listed otherwise since, a part other templates
    /// rendered).
    static func loopPageMade(ahead: Bool) {
        (ahead ? loopPagesSentAhead : loopPagesRendered).increment()
    }
    private static let loopPagesSentAhead = Metrics.Counter(
        label: "loop_library_loop_pages_total", dimensions: [("made", "ahead")])
    private static let loopPagesRendered = Metrics.Counter(
        label: "loop_library_loop_pages_total", dimensions: [("made", "rendered")])
}

/// The access log as JSON lines, one a request, appended to a file (`loop serve --access-log`).
public final class AccessLogFile: Sendable {
    /// One request: its fields, in the order an operator reads them.
    struct Entry: Encodable {
        var time: Date
        /// The client's IP address.
        var client: String?
        var method: String
        var path: String
        /// The route the request matched (`/api/loops/{ref}`): what the metrics count by.
        var route: String
        var status: Int
        /// Body bytes sent.
        var bytes: Int
        var milliseconds: Double
        /// False when the client went away before the body was sent.
        var completed: Bool
        /// Why the request was refused (`unauthorized`, `quota`, ...), when it was.
        var cause: String?
    }

    private let descriptor: Int32
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// Appends to `path` (created if need be), or to standard output for `-`.
    init(path: String) throws {
        if path == "-" {
            descriptor = STDOUT_FILENO
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
            guard descriptor >= 0 else { throw FileSystemError(code: errno, path: path) }
        }
    }

    deinit {
        if descriptor != STDOUT_FILENO { close(descriptor) }
    }

    /// Writes the entry as one line, in one write (lines of concurrent requests never mix).
    func write(_ entry: Entry) {
        guard var line = try? encoder.encode(entry) else { return }
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            _ = Foundation.write(descriptor, base, bytes.count)
        }
    }
}
