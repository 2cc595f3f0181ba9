import Crypto
import Foundation
import Hummingbird
import Logging
import LoopFoundation
import LoopLibraryAPI
import NIOCore
import Prometheus

// Reading: the catalog, loops, bundles and blobs, and the figures.
extension LibraryServer {

    /// The figures in Prometheus's text format, for clients on this machine unless opened to all.
    func metricsText(context: LibraryRequestContext) throws -> Response {
        guard let metrics, metrics.open || Self.isLoopback(context.clientAddress) else {
            throw APIError.notFound("no such page (the metrics are shown to this machine only)")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
    }

    static func isLoopback(_ address: String?) -> Bool {
        guard let address else { return false }
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    /// A page of the catalog, kept as the details are: the same search asked again, however its
    /// words are cased or accented, is answered from memory until the catalog changes.
    func listLoops(_ request: Request) async throws -> Response {
        let query = Self.catalogQuery(request.uri.queryParameters)
        let catalog = self.catalog
        return try await keptJSON(Self.cacheKey(query)) {
            try CatalogJSON.page(try await catalog.search(query, now: Date()))
        }
    }

    /// The JSON `make` makes, kept under `key` with the searches until the catalog changes (at
    /// most a minute, for the download counts).
    private func keptJSON(_ key: String, _ make: @escaping @Sendable () async throws -> Data) async throws -> Response {
        let catalog = self.catalog
        let stamp = try await searches.stamp { try await catalog.changeStamp() }
        let page = try await searches.page(key, stamp: stamp) {
            PageCache.Page(
                status: 200, body: try await make(), eTag: "", stamp: stamp)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: page.body ?? Data())))
    }

    /// What a search is kept under: its terms and filters as the catalog reads them.
    static func cacheKey(_ query: CatalogQuery) -> String {
        [
            CatalogText.searchTerms(query.text).joined(separator: " "), query.language?.lowercased() ?? "",
            query.translationLanguage?.lowercased() ?? "", query.tag.map(CatalogText.fold) ?? "",
            query.author ?? "", query.featuredOnly ? "featured" : "", query.sort.rawValue, String(query.offset),
            String(query.limit),
        ].joined(separator: "\u{1}")
    }

    /// The front page's lists, kept as a search is (until the catalog changes, at most a
    /// minute for Hot's downloads).
    func frontPage(_ request: Request) async throws -> Response {
        let limit = CatalogQuery(limit: request.uri.queryParameters.get("limit", as: Int.self) ?? 10).limit
        let catalog = self.catalog
        return try await keptJSON("\u{2}front\u{1}\(limit)") {
            let now = Date()
            async let latest = catalog.search(CatalogQuery(sort: .latest, limit: limit), now: now)
            async let hot = catalog.search(CatalogQuery(sort: .hot, limit: limit), now: now)
            async let featured = catalog.search(CatalogQuery(featuredOnly: true, limit: limit), now: now)
            return try CatalogJSON.front(
                FrontPage(latest: try await latest.loops, hot: try await hot.loops, featured: try await featured.loops))
        }
    }

    /// A loop's detail, kept while the catalog has not changed (at most a minute, for its
    /// download counts): the catalog's read, the JSON and its hash were a third of a request.
    func loopDetail(_ request: Request, ref: String) async throws -> Response {
        let catalog = self.catalog
        let stamp = try await details.stamp { try await catalog.changeStamp() }
        let detail = try await details.page(ref, stamp: stamp) {
            guard let loop = try await catalog.loop(ref, now: Date()) else { throw APIError.noSuchLoop(ref) }
            let body = try loop.detailJSON()
            return PageCache.Page(
                status: 200, body: body, eTag: "\"" + Hex.string(SHA256.hash(data: body).prefix(12)) + "\"",
                stamp: stamp)
        }
        let body = detail.body ?? Data()
        let tag = detail.eTag
        var headers = HTTPFields()
        headers[.eTag] = tag
        headers[.cacheControl] = "no-cache"
        if Self.matches(request.headers[.ifNoneMatch], tag) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    func bundle(_ request: Request, context: LibraryRequestContext, ref: String) async throws -> Response {
        guard let loop = try await catalog.loop(ref, now: Date()) else { throw APIError.noSuchLoop(ref) }
        var response = try await serveBlob(
            request, context: context, sha256: loop.bundleSHA256, kind: .bundle,
            downloadName: Self.downloadName(loop.summary))
        // A whole download counts toward Hot once its last byte is sent (a download cancelled
        // half-way does not), once per client address a day; a HEAD, a revalidation or a
        // range does not count.
        guard request.method == .get, response.status == .ok else { return response }
        let body = response.body
        let catalog = self.catalog
        let id = loop.summary.id
        let client = Self.clientKey(context.clientAddress)
        let details = self.details
        let searches = self.searches
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            await TestStop.reachedWithoutBlocking("download.starting")
            try await body.write(writer)
            // The details and searches show the counts and Hot's order (the pages, within a minute).
            guard (try? await catalog.countDownload(id: id, client: client, now: Date())) == true else { return }
            details.removeAll()
            searches.removeAll()
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
            try await catalog.servesBlob(parts[0])
        else { throw APIError.notFound("no such blob") }
        return try await serveBlob(request, context: context, sha256: parts[0], kind: kind, downloadName: nil)
    }

    /// A blob, with its hash as ETag, long cache headers (it never changes), and Range support.
    func serveBlob(
        _ request: Request, context: LibraryRequestContext, sha256: String, kind: BlobStore.Kind, downloadName: String?
    ) async throws -> Response {
        guard let path = blobs.path(sha256, kind: kind) else { throw APIError.notFound("no such blob") }
        return try await serveFile(
            request, context: context, path: path, eTag: "\"" + sha256 + "\"", contentType: kind.contentType,
            cacheControl: "public, max-age=31536000, immutable", downloadName: downloadName)
    }
}
