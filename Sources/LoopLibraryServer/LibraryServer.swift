import Crypto
import Foundation
import Hummingbird
import LoopFoundation
import LoopLibraryAPI
import Logging
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

        public init() {}
    }

    public let catalog: any Catalog
    public let blobs: BlobStore
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

    public init(catalog: any Catalog, dataFolder: String, web: WebTemplates, publicURL: String? = nil, limits: Limits = Limits(),
                metrics: MetricsAccess? = nil, accessLog: AccessLogFile? = nil, logger: Logger) {
        self.catalog = catalog
        self.pages = PageCache(stampLifetime: catalog.isShared ? 0 : 50_000_000)
        self.details = PageCache(byteLimit: 16 << 20, stampLifetime: catalog.isShared ? 0 : 50_000_000)
        self.blobs = BlobStore(root: dataFolder)
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
    public func run(host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try FileManager.default.createDirectory(atPath: blobs.incoming, withIntermediateDirectories: true)
        // Uploads of a server killed mid-way: nothing of them was visible; their files go now.
        ScratchFolder.removeAbandoned(in: blobs.incoming, prefix: "upload-")
        try await catalog.prepare()
        let fileLimit = Self.raiseFileLimit(logger: logger)
        let connections = Slots(limit: limits.maxConnections ?? max(64, min(16_384, fileLimit / 2)))
        logger.info("connections: at most \(connections.limit) at once")
        let app = Application(
            router: router(),
            server: .http1(configuration: .init(
                additionalChannelHandlers: [ConnectionCap(slots: connections, refused: { LibraryMetrics.connectionsRefused.increment() })],
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
        router.get(RouterPath(LoopLibraryPaths.loopPattern)) { request, context in try await self.loopDetail(request, ref: context.parameters.require("ref")) }
        router.get(RouterPath(LoopLibraryPaths.bundlePattern)) { request, context in
            try await self.bundle(request, context: context, ref: context.parameters.require("ref"))
        }
        router.head(RouterPath(LoopLibraryPaths.bundlePattern)) { request, context in
            try await self.bundle(request, context: context, ref: context.parameters.require("ref"))
        }
        router.get(RouterPath(LoopLibraryPaths.blobPattern)) { request, context in try await self.blob(request, context: context, name: context.parameters.require("name")) }
        router.head(RouterPath(LoopLibraryPaths.blobPattern)) { request, context in try await self.blob(request, context: context, name: context.parameters.require("name")) }
        router.post(RouterPath(LoopLibraryPaths.loops)) { request, context in try await self.publish(request, context: context) }
        router.delete(RouterPath(LoopLibraryPaths.loopPattern)) { request, context in
            try await self.unpublish(request, context: context, id: context.parameters.require("ref"))
        }
        addPageRoutes(to: router)
        return router
    }

    // MARK: Reading

    /// The figures in Prometheus's text format, for clients on this machine unless opened to all.
    func metricsText(context: LibraryRequestContext) throws -> Response {
        guard let metrics, metrics.open || Self.isLoopback(context.clientAddress) else {
            throw APIError.notFound("no such page (the metrics are shown to this machine only)")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
    }

    static func isLoopback(_ address: String?) -> Bool {
        guard let address else { return false }
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    func listLoops(_ request: Request) async throws -> Response {
        let page = try await catalog.search(Self.catalogQuery(request.uri.queryParameters), now: Date())
        return try Self.json(page)
    }

    func frontPage(_ request: Request) async throws -> Response {
        let limit = request.uri.queryParameters.get("limit", as: Int.self) ?? 10
        let now = Date()
        async let latest = catalog.search(CatalogQuery(sort: .latest, limit: limit), now: now)
        async let hot = catalog.search(CatalogQuery(sort: .hot, limit: limit), now: now)
        async let featured = catalog.search(CatalogQuery(featuredOnly: true, limit: limit), now: now)
        return try Self.json(FrontPage(latest: try await latest.loops, hot: try await hot.loops, featured: try await featured.loops))
    }

    /// A loop's detail, kept while the catalog has not changed (at most a minute, for its
    /// download counts): the catalog's read, the JSON and its hash were a third of a request.
    func loopDetail(_ request: Request, ref: String) async throws -> Response {
        let catalog = self.catalog
        let stamp = try await details.stamp { try await catalog.changeStamp() }
        let detail = try await details.page(ref, stamp: stamp) {
            guard let loop = try await catalog.loop(ref, now: Date()) else { throw APIError.noSuchLoop(ref) }
            let body = try loop.detailJSON()
            return PageCache.Page(status: 200, body: body, eTag: "\"" + Hex.string(SHA256.hash(data: body).prefix(12)) + "\"",
                                  stamp: stamp, made: DispatchTime.now().uptimeNanoseconds)
        }
        let body = detail.body ?? Data(), tag = detail.eTag
        var headers = HTTPFields()
        headers[.eTag] = tag
        headers[.cacheControl] = "no-cache"
        if Self.matches(request.headers[.ifNoneMatch], tag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    func bundle(_ request: Request, context: LibraryRequestContext, ref: String) async throws -> Response {
        guard let loop = try await catalog.loop(ref, now: Date()) else { throw APIError.noSuchLoop(ref) }
        var response = try await serveBlob(request, context: context, sha256: loop.bundleSHA256, kind: .bundle,
                                           downloadName: Self.downloadName(loop.summary))
        // A whole download counts toward Hot once its last byte is sent (a download cancelled
        // half-way does not), once per client address a day; a HEAD, a revalidation or a
        // range does not count.
        guard request.method == .get, response.status == .ok else { return response }
        let body = response.body, catalog = self.catalog, id = loop.summary.id, client = Self.clientKey(context.clientAddress)
        let details = self.details
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            await TestStop.reachedWithoutBlocking("download.starting")
            try await body.write(writer)
            try? await catalog.countDownload(id: id, client: client, now: Date())
            details.removeAll()   // the details show the count (the pages, within a minute)
        }
        return response
    }

    /// A client as downloads and uploads are counted: a hash of its IP address (not the
    /// address itself).
    static func clientKey(_ address: String?) -> String {
        Hex.string(SHA256.hash(data: Data((address ?? "unknown").utf8)).prefix(12))
    }

    func blob(_ request: Request, context: LibraryRequestContext, name: String) async throws -> Response {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = BlobStore.Kind(rawValue: parts[1]), BlobStore.isSHA256(parts[0]),
              try await catalog.servesBlob(parts[0]) else { throw APIError.notFound("no such blob") }
        return try await serveBlob(request, context: context, sha256: parts[0], kind: kind, downloadName: nil)
    }

    /// A blob, with its hash as ETag, long cache headers (it never changes), and Range support.
    func serveBlob(_ request: Request, context: LibraryRequestContext, sha256: String, kind: BlobStore.Kind, downloadName: String?) async throws -> Response {
        guard let path = blobs.path(sha256, kind: kind) else { throw APIError.notFound("no such blob") }
        return try await serveFile(request, context: context, path: path, eTag: "\"" + sha256 + "\"", contentType: kind.contentType,
                                   cacheControl: "public, max-age=31536000, immutable", downloadName: downloadName)
    }

    /// A file, with its ETag, Range support and the cache headers given.
    func serveFile(_ request: Request, context: LibraryRequestContext, path: String, eTag: String, contentType: String, cacheControl: String,
                   downloadName: String? = nil) async throws -> Response {
        guard let size = Self.fileSize(path) else { throw APIError.notFound("no such file") }
        var headers = HTTPFields()
        headers[.eTag] = eTag
        headers[.cacheControl] = cacheControl
        headers[.acceptRanges] = "bytes"
        headers[.contentType] = contentType
        if let downloadName { headers[.contentDisposition] = "attachment; filename=\"\(downloadName)\"" }
        if Self.matches(request.headers[.ifNoneMatch], eTag) { return Response(status: .notModified, headers: headers) }
        var status = HTTPResponse.Status.ok
        var range = 0...(size - 1)
        if let header = request.headers[.range] {
            switch ByteRange.parse(header, size: size) {
            case .whole: break
            case .part(let part):
                range = part
                status = .partialContent
                headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        headers[.contentLength] = String(range.count)
        if request.method == .head { return Response(status: status, headers: headers) }
        return Response(status: status, headers: headers, body: Self.fileBody(path: path, range: range, connection: context.channel))
    }

    /// The bytes `range` of the file, read a 128 KiB chunk at a time, each once `connection`
    /// takes more (its buffer below NIO's high-water mark): a download holds a chunk or two,
    /// however slow its reader, never the file. (The response writer hands each chunk to the
    /// connection's event loop and returns at once: read as fast as the disk gives it, the
    /// whole file was queued there for each slow reader, and 256 of them held a gigabyte.)
    static func fileBody(path: String, range: ClosedRange<Int>, connection: (any Channel)?, chunkLength: Int = 128 << 10) -> ResponseBody {
        ResponseBody(contentLength: range.count) { writer in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FileSystemError(code: errno, path: path) }
            defer { close(descriptor) }
            var offset = range.lowerBound
            let end = range.upperBound + 1
            while offset < end {
                let count = min(chunkLength, end - offset)
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
                    while true {
                        let read = pread(descriptor, bytes.baseAddress, count, off_t(offset))
                        if read >= 0 { return read }
                        if errno != EINTR { throw FileSystemError(code: errno, path: path) }
                    }
                }
                // The file shrank under us: a blob never does, so this is a broken disk.
                guard read > 0 else { throw FileSystemError(code: EIO, path: path) }
                offset += read
                try await writer.write(buffer)
                try await waitUntilWritable(connection)
            }
            try await writer.finish(nil)
        }
    }

    /// Waits until the chunk written has reached the connection (a write goes to the
    /// connection's event loop as a task: a round trip through that loop comes after it), then
    /// while the connection holds as much as NIO lets it buffer (its reader is slow), looking
    /// again every few milliseconds (at most 50); stops when the connection closes.
    static func waitUntilWritable(_ connection: (any Channel)?) async throws {
        guard let connection else { return }
        try await connection.eventLoop.submit {}.get()
        var pause = 2
        while !connection.isWritable {
            guard connection.isActive else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(pause))
            pause = min(pause * 2, 50)
        }
    }

    // MARK: Changing

    /// A publish is judged on its signed headers before a byte of its body is read: its
    /// signature (naming this Loop Library, the body's length and hash, the loop and revision),
    /// its clock, its nonce, the key's allowance, and the catalog's ownership and revision
    /// rules. Only then is the body received, into `incoming`, up to the length signed, and
    /// kept only if it hashes to the hash signed and passes every check `loop import` makes.
    func publish(_ request: Request, context: LibraryRequestContext) async throws -> Response {
        let signed = try RequestSignature { Self.header(request, $0) }
        guard let loopID = signed.loopID, let revision = signed.revision else {
            throw PublishError(.badRequest, "a publish names its loop and revision (\(SignedRequest.loopIDHeader), \(SignedRequest.revisionHeader))")
        }
        guard let length = request.headers[.contentLength].flatMap(Int.init), length > 0 else {
            throw PublishError(.lengthRequired, "a publish gives its body's length (Content-Length)")
        }
        guard length <= limits.maxUploadBytes else {
            throw PublishError(.tooLarge, "the bundle is \(length >> 20) MiB; this server takes at most \(limits.maxUploadBytes >> 20) MiB")
        }
        let now = Date()
        try signed.verify(method: "POST", authority: authority(of: request), path: LoopLibraryPaths.loops, bodyLength: length, now: now)
        await TestStop.reachedWithoutBlocking("publish.verified")
        let address = Self.clientKey(context.clientAddress)
        try allowChange(by: signed, from: address)
        guard try await catalog.useNonce(signed.nonce, expires: now.addingTimeInterval(SignedRequest.allowedSkew * 2), now: now) else {
            throw PublishError(.unauthorized, "this request was sent before (a replay)")
        }
        try await catalog.judge(publishOf: loopID, revision: revision, authorKey: signed.keyBase64)
        try limits.keyQuota.check(try await catalog.usage(ofKey: signed.keyBase64, loop: loopID, now: now), bytes: length, now: now)
        guard addressBudget.take(length, from: address, now: now) else {
            LibraryMetrics.quotaHit("addressBytes")
            throw PublishError(.quota, "this address may upload at most \(KeyQuota.mebibytes(limits.addressBytesPerDay)) a day here: try again tomorrow (UTC)")
        }
        var kept = false
        defer { if !kept { addressBudget.giveBack(length, to: address) } }
        guard uploads.take() else {
            LibraryMetrics.quotaHit("uploads")
            throw PublishError(.busy, "the server is receiving as many uploads as it takes at once (\(limits.concurrentUploads)): try again in a few seconds")
        }
        defer { uploads.giveBack() }

        let scratch = try ScratchFolder(in: blobs.incoming, prefix: "upload-")
        let file = scratch.path + "/bundle.loop"
        let sha256 = try await receive(request.body, into: file, length: length)
        guard sha256 == signed.bodySHA256 else {
            throw PublishError(.badRequest, "the body is not the one signed (its SHA-256 differs): changed on the way")
        }
        let intake = BundleIntake(blobs: blobs)
        let folder = scratch.path
        let entry = try await BlockingWork.run("loop-server publish") {
            let entry = try intake.take(file, sha256: sha256, in: folder, signedBy: signed.key, expected: (loopID, revision))
            TestStop.reached("publish.stored")
            return entry
        }
        let result = try await catalog.publish(entry, authorName: signed.authorName, now: Date())
        kept = true
        LibraryMetrics.published.increment()
        pages.forgetStamp()
        details.forgetStamp()
        _ = consume scratch
        logger.info("published \(entry.id) revision \(entry.revision) '\(entry.title)' by \(entry.authorFingerprint)")
        return try Self.json(result, status: result.previousRevision == nil ? .created : .ok)
    }

    func unpublish(_ request: Request, context: LibraryRequestContext, id: String) async throws -> Response {
        let signed = try RequestSignature { Self.header(request, $0) }
        let now = Date()
        try signed.verify(method: "DELETE", authority: authority(of: request), path: LoopLibraryPaths.loop(id), bodyLength: 0, now: now)
        try allowChange(by: signed, from: Self.clientKey(context.clientAddress))
        guard try await catalog.useNonce(signed.nonce, expires: now.addingTimeInterval(SignedRequest.allowedSkew * 2), now: now) else {
            throw PublishError(.unauthorized, "this request was sent before (a replay)")
        }
        try await catalog.unpublish(id: id, authorKey: signed.keyBase64, now: now)
        pages.forgetStamp()
        details.forgetStamp()
        return Response(status: .noContent)
    }

    /// Takes a change from the key's allowance and the address's, or refuses it (429).
    private func allowChange(by signed: RequestSignature, from address: String) throws(PublishError) {
        guard limiter.allow(signed.keyBase64) else {
            LibraryMetrics.quotaHit("keyRate")
            throw PublishError(.rateLimited, "too many changes from this key: at most \(limits.changesPerMinute) a minute")
        }
        guard addressLimiter.allow(address) else {
            LibraryMetrics.quotaHit("addressRate")
            throw PublishError(.rateLimited, "too many changes from this address: at most \(limits.changesPerAddressPerMinute) a minute")
        }
    }

    /// The name signed requests must give this Loop Library: its public URL's host and port
    /// when it has one (`--public-url`), else the Host the request was sent to.
    func authority(of request: Request) -> String {
        if let publicURL, let url = URL(string: publicURL), let authority = SignedRequest.authority(of: url) { return authority }
        let host = request.head.authority ?? Self.header(request, "Host") ?? ""
        return URL(string: "http://" + host).flatMap(SignedRequest.authority(of:)) ?? host.lowercased()
    }

    /// Streams the request body into `file` (never the whole bundle in memory), exactly the
    /// `length` bytes signed, and returns its SHA-256.
    private func receive(_ body: RequestBody, into file: String, length: Int) async throws -> String {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileSystemError(code: errno, path: file) }
        defer { close(descriptor) }
        var hasher = SHA256()
        var received = 0, chunks = 0
        for try await buffer in body {
            chunks += 1
            // Part of the body is on disk, the rest still to come.
            if chunks == 2 { await TestStop.reachedWithoutBlocking("publish.receiving") }
            received += buffer.readableBytes
            LibraryMetrics.receivedBytes.increment(by: buffer.readableBytes)
            guard received <= length, received <= limits.maxUploadBytes else {
                throw PublishError(.tooLarge, "the body is longer than the \(length) bytes signed")
            }
            try buffer.withUnsafeReadableBytes { bytes in
                hasher.update(bufferPointer: bytes)
                var offset = 0
                while offset < bytes.count, let base = bytes.baseAddress {
                    let written = write(descriptor, base + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw FileSystemError(code: errno, path: file)
                    }
                    offset += written
                }
            }
        }
        guard received == length else { throw PublishError(.badRequest, "the body ended after \(received) of the \(length) bytes signed") }
        return Hex.string(hasher.finalize())
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
            text: (text("q") ?? "").replacingOccurrences(of: "+", with: " "), language: text("language"), translationLanguage: text("translation"), tag: text("tag"),
            author: text("author"), featuredOnly: text("featured") == "1",
            sort: text("sort").flatMap(CatalogQuery.Sort.init(rawValue:)) ?? .latest,
            offset: text("offset").flatMap(Int.init) ?? 0, limit: text("limit").flatMap(Int.init) ?? 20)
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try CatalogText.encoder.encode(value))))
    }

    static func matches(_ ifNoneMatch: String?, _ tag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch == "*" || ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "") == tag }
    }

    static func fileSize(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { return nil }
        return Int(status.st_size)
    }

    static func downloadName(_ loop: CatalogLoop) -> String {
        let slug = loop.title.lowercased().unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "-" }
        let trimmed = String(slug).split(separator: "-").joined(separator: "-").prefix(40)
        return (trimmed.isEmpty ? "" : trimmed + "-") + loop.id.prefix(8) + ".loop"
    }
}

/// The context of the Loop Library's requests: Hummingbird's, and the address the request
/// came from (a download counts toward Hot once per address a day).
public struct LibraryRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address, as the connection gives it.
    public let clientAddress: String?
    /// The connection: a download waits while it is full (``LibraryServer/fileBody(path:range:connection:chunkLength:)``).
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
        channel = source.channel
    }
}

/// Errors of the API itself (a missing loop or blob).
enum APIError: Error {
    case notFound(String)

    static func noSuchLoop(_ ref: String) -> APIError { .notFound("no loop '\(ref.prefix(80))' is published here") }
}
