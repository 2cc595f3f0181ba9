import Crypto
import Foundation
import Hummingbird
import Logging
import LoopFoundation
import LoopLibraryAPI
import Metrics
import NIOCore
import Prometheus

/// A Loop Library server: the catalog, the blobs beside it, and the HTTP API over them
/// (docs/server.md).
public struct LibraryServer: Sendable {
    /// What the server takes from the open internet (`loop serve --help` names each).
    public struct Limits: Sendable {
        /// The largest bundle a publish may upload.
        public var maxUploadBytes: Int = 200 << 20
        /// Publishes and unpublishes one author key may make a minute.
        public var changesPerMinute: Int = 30
        /// Publishes and unpublishes one client address may make a minute, whatever its keys.
        public var changesPerAddressPerMinute: Int = 60
        /// Bundle bytes one client address may upload a day (UTC), whatever its keys.
        public var addressBytesPerDay: Int = 4 << 30
        /// Loops and bytes a day for each author key.
        public var keyQuota = KeyQuota()
        /// Uploads received at once; one more is answered 503 at once.
        public var concurrentUploads: Int = 8
        /// Connections open at once; one more is closed as it is accepted. Nil: half the
        /// open-file limit (at most 16,384).
        public var maxConnections: Int?
        /// Seconds a connection may sit idle, or take to send a request's head, before it is
        /// closed (a response being written is never cut short).
        public var idleSeconds: Int = 30

        /// The limits a server starts with unless told otherwise.
        public init() {}
    }

    /// Where loops are listed.
    public let catalog: any Catalog
    /// Where bundles, takes and pictures are kept.
    public let blobs: BlobStore
    /// What one client, key and upload may use.
    public let limits: Limits
    let limiter: RateLimiter
    let addressLimiter: RateLimiter
    let addressBudget: AddressBudget
    let uploads: Slots
    let logger: Logger
    /// The web pages: their templates, what was rendered, the clips they play.
    let web: WebTemplates
    let pages: PageCache
    /// Each loop's detail as the API answers it (`GET /api/loops/ID`), kept as the pages are.
    let details: PageCache
    /// Pages of the catalog as the API answers a search (`GET /api/loops?q=...`), kept as the
    /// details are.
    let searches: PageCache
    let clips: ClipStore
    /// The address pages give for this server (`https://loops.example.org`), or nil for the
    /// one each request names in its Host header.
    let publicURL: String?
    /// What `/metrics` shows, and to whom.
    let metrics: MetricsAccess?
    /// The access log as JSON lines, or nil for a line of text a request in the log.
    let accessLog: AccessLogFile?

    /// Who may read `/metrics`.
    public struct MetricsAccess: Sendable {
        let registry: PrometheusCollectorRegistry
        /// Any client; else only clients on this machine (loopback).
        let open: Bool
    }

    /// Makes swift-metrics record the server's figures for `/metrics` (once a process), shown
    /// to clients on this machine, or to any with `open`.
    public static func recordMetrics(open: Bool) -> MetricsAccess {
        MetricsAccess(registry: LibraryMetrics.bootstrap(), open: open)
    }

    /// The access log as JSON lines appended to `path` (`-`: standard output).
    public static func accessLog(at path: String) throws -> AccessLogFile {
        try AccessLogFile(path: path)
    }

    /// A server over `catalog` and the data folder, with its pages from `web`; it serves once ``run(host:port:)`` is called.
    public init(
        catalog: any Catalog, dataFolder: String, web: WebTemplates, publicURL: String? = nil,
        limits: Limits = Limits(),
        metrics: MetricsAccess? = nil, accessLog: AccessLogFile? = nil, logger: Logger
    ) {
        self.catalog = catalog
        // Where other servers change the catalog too, each page asks for its stamp.
        let stampLifetime = catalog.isShared ? 0 : PageCache.stampLifetimeAlone
        self.pages = PageCache(name: "pages", byteLimit: PageCache.pagesBytes, stampLifetime: stampLifetime)
        self.details = PageCache(name: "details", byteLimit: PageCache.detailsBytes, stampLifetime: stampLifetime)
        self.searches = PageCache(name: "searches", byteLimit: PageCache.searchesBytes, stampLifetime: stampLifetime)
        self.blobs = BlobStore(layout: ServerLayout(root: dataFolder))
        self.clips = ClipStore(blobs: blobs)
        self.web = web
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.limits = limits
        self.limiter = RateLimiter(perMinute: limits.changesPerMinute)
        self.addressLimiter = RateLimiter(perMinute: limits.changesPerAddressPerMinute)
        self.addressBudget = AddressBudget(bytesPerDay: limits.addressBytesPerDay)
        self.uploads = Slots(limit: limits.concurrentUploads)
        self.logger = logger
        self.metrics = metrics
        self.accessLog = accessLog
    }

    /// Serves on `host:port` until SIGTERM or SIGINT: then it stops accepting, lets the requests
    /// in flight finish (a publish commits or rolls back), and returns. `onRunning` gets the
    /// port bound (useful when `port` is 0).
    public func run(host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws
    {
        try FileManager.default.createDirectory(atPath: blobs.layout.incoming, withIntermediateDirectories: true)
        // Uploads of a server killed mid-way: nothing of them was visible; their files go now.
        ScratchFolder.removeAbandoned(in: blobs.layout.incoming, prefix: "upload-")
        try await catalog.prepare()
        let fileLimit = Self.raiseFileLimit(logger: logger)
        let connections = Slots(limit: limits.maxConnections ?? max(64, min(16_384, fileLimit / 2)))
        logger.info("connections: at most \(connections.limit) at once")
        let app = Application(
            router: router(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        ConnectionCap(slots: connections, refused: { LibraryMetrics.connectionsRefused.increment() }),
                        FileRegionInstaller(),
                    ],
                    idleTimeout: .seconds(Int64(limits.idleSeconds)))),
            configuration: .init(address: .hostname(host, port: port), serverName: "loop-library"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
        try await app.runService()
        try await catalog.close()
    }

    /// Raises the soft limit on open files to the hard one: every connection is a descriptor,
    /// and the common soft limit of 1,024 would leave honest clients unanswered under load.
    /// Returns the soft limit in force after.
    static func raiseFileLimit(logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        guard limit.rlim_cur < limit.rlim_max else { return Int(clamping: limit.rlim_cur) }
        let before = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int(clamping: before) }
        logger.info("open files: at most \(limit.rlim_cur) (was \(before))")
        return Int(clamping: limit.rlim_cur)
    }

    /// The routes (docs/server.md).
    public func router() -> Router<LibraryRequestContext> {
        let router = Router(context: LibraryRequestContext.self)
        router.add(middleware: RequestLog(logger: logger, file: accessLog))
        router.get(RouterPath(LoopLibraryPaths.health)) { _, _ in "ok\n" }
        router.get("/metrics") { _, context in try self.metricsText(context: context) }
        router.get(RouterPath(LoopLibraryPaths.loops)) { request, _ in try await self.listLoops(request) }
        router.get(RouterPath(LoopLibraryPaths.front)) { request, _ in try await self.frontPage(request) }
        router.get(RouterPath(LoopLibraryPaths.loopPattern)) { request, context in
            try await self.loopDetail(request, ref: context.parameters.require("ref"))
        }
        router.get(RouterPath(LoopLibraryPaths.bundlePattern)) { request, context in
            try await self.bundle(request, context: context, ref: context.parameters.require("ref"))
        }
        router.head(RouterPath(LoopLibraryPaths.bundlePattern)) { request, context in
            try await self.bundle(request, context: context, ref: context.parameters.require("ref"))
        }
        router.get(RouterPath(LoopLibraryPaths.blobPattern)) { request, context in
            try await self.blob(request, context: context, name: context.parameters.require("name"))
        }
        router.head(RouterPath(LoopLibraryPaths.blobPattern)) { request, context in
            try await self.blob(request, context: context, name: context.parameters.require("name"))
        }
        router.post(RouterPath(LoopLibraryPaths.loops)) { request, context in
            try await self.publish(request, context: context)
        }
        router.delete(RouterPath(LoopLibraryPaths.loopPattern)) { request, context in
            try await self.unpublish(request, context: context, id: context.parameters.require("ref"))
        }
        addPageRoutes(to: router)
        return router
    }

    // MARK: Helpers

    /// The value of the header called `name` (any case), if the request has it.
    static func header(_ request: Request, _ name: String) -> String? {
        let lowercased = name.lowercased()
        return request.headers.first { $0.name.canonicalName == lowercased }?.value
    }

    static func catalogQuery(_ parameters: Parameters) -> CatalogQuery {
        func text(_ name: String) -> String? { parameters.get(name).flatMap { $0.isEmpty ? nil : $0 } }
        return CatalogQuery(
            // `+` is a space, as an HTML form sends it.
            text: (text("q") ?? "").replacingOccurrences(of: "+", with: " "), language: text("language"),
            translationLanguage: text("translation"), tag: text("tag"),
            author: text("author"), featuredOnly: text("featured") == "1",
            sort: text("sort").flatMap(CatalogQuery.Sort.init(rawValue:)) ?? .latest,
            offset: text("offset").flatMap(Int.init) ?? 0, limit: text("limit").flatMap(Int.init) ?? 20)
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try CatalogText.encoder.encode(value))))
    }

    static func downloadName(_ loop: CatalogLoop) -> String {
        let slug = loop.title.lowercased().unicodeScalars.map {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "-"
        }
        let trimmed = String(slug).split(separator: "-").joined(separator: "-").prefix(40)
        return (trimmed.isEmpty ? "" : trimmed + "-") + loop.id.prefix(8) + ".loop"
    }
}
