import Crypto
import Foundation
import Hummingbird
import LoopFoundation
import LoopLibraryAPI
import NIOFoundationCompat
import Synchronization

/// The Loop Library's web pages (docs/server.md, "Pages"): the front page, a preview page per
/// loop with its phrases playable, an author's page, the Atom feed, and the clips they play.
extension LibraryServer {
    /// Loops a page of the front page, an author's page or the results lists.
    static let pageSize = 20

    func addPageRoutes(to router: Router<LibraryRequestContext>) {
        // Every page and file answers HEAD as it answers GET, without the body.
        func route(
            _ path: String, _ answer: @escaping @Sendable (Request, LibraryRequestContext) async throws -> Response
        ) {
            router.get(RouterPath(path), use: answer)
            router.head(RouterPath(path)) { request, context in Self.headOnly(try await answer(request, context)) }
        }
        route(LoopLibraryPaths.frontPage) { request, _ in
            try await self.page(request, type: .html) { try await self.frontPage(request, base: $0) }
        }
        route(LoopLibraryPaths.feed) { request, _ in
            try await self.page(request, type: .atom) { try await self.feed(base: $0) }
        }
        route(LoopLibraryPaths.stylesheet) { request, _ in
            Self.asset(request, self.web.stylesheet, type: "text/css; charset=utf-8")
        }
        route(LoopLibraryPaths.script) { request, _ in
            Self.asset(request, self.web.script, type: "text/javascript; charset=utf-8")
        }
        route(LoopLibraryPaths.player) { request, _ in
            Self.asset(request, self.web.player, type: "text/javascript; charset=utf-8")
        }
        route(LoopLibraryPaths.compare) { request, _ in
            Self.asset(request, self.web.compare, type: "text/javascript; charset=utf-8")
        }
        route(LoopLibraryPaths.serviceWorker) { request, _ in
            Self.asset(request, self.web.serviceWorker, type: "text/javascript; charset=utf-8")
        }
        route(LoopLibraryPaths.icon) { request, _ in
            Self.asset(request, self.web.icon, type: "image/svg+xml")
        }
        route(LoopLibraryPaths.iconFallback) { _, _ in
            Response(
                status: .movedPermanently,
                headers: [.location: LoopLibraryPaths.icon, .cacheControl: "public, max-age=86400"])
        }
        route(LoopLibraryPaths.pagePattern) { request, context in
            let ref = try context.parameters.require("ref")
            let gzip = Gzip.isAccepted(by: request)
            return try await self.page(request, type: .html) { base -> RenderedPage in
                if ref.hasPrefix("@") {
                    let (status, text) = try await self.authorPage(request, name: String(ref.dropFirst()), base: base)
                    return RenderedPage(status: status, text: text)
                }
                return try await self.previewPage(ref, base: base, gzipped: gzip)
            }
        }
        router.get(RouterPath(LoopLibraryPaths.clipPattern)) { request, context in
            try await self.phraseClip(
                request, context: context, ref: context.parameters.require("ref"),
                file: context.parameters.require("clip"))
        }
        router.head(RouterPath(LoopLibraryPaths.clipPattern)) { request, context in
            try await self.phraseClip(
                request, context: context, ref: context.parameters.require("ref"),
                file: context.parameters.require("clip"))
        }
    }

    /// A GET's answer as a HEAD's: its status and headers (its length among them), no body.
    static func headOnly(_ response: Response) -> Response {
        var headers = response.headers
        if let length = response.body.contentLength { headers[.contentLength] = String(length) }
        return Response(status: response.status, headers: headers)
    }

    enum PageType {
        case html, atom

        var contentType: String {
            switch self {
            case .html: "text/html; charset=utf-8"
            case .atom: "application/atom+xml; charset=utf-8"
            }
        }
    }

    /// A page as rendered: its status, its text, and a run of its text deflated already (a
    /// loop's phrases, rendered ahead), joined into its gzip stream as it is; or a page
    /// rendered ahead whole (`ahead`, deflated, with its length and ETag; `text` empty).
    struct RenderedPage: Sendable {
        var status: HTTPResponse.Status
        var text: String
        var deflatedRun: (text: String, part: DeflatedPart)?
        var ahead: (deflated: DeflatedPage, length: Int, eTag: String)?
    }

    /// A page from the cache while the catalog has not changed, or rendered by `render` (given
    /// the site's base address) and kept; with an ETag, and 304 to a browser that has it.
    func page(
        _ request: Request, type: PageType,
        render: @escaping @Sendable (String) async throws -> (HTTPResponse.Status, String)
    ) async throws -> Response {
        try await page(request, type: type) { base in
            let (status, text) = try await render(base)
            return RenderedPage(status: status, text: text)
        }
    }

    /// ``page(_:type:render:)`` of a page that may hold a run deflated already.
    func page(
        _ request: Request, type: PageType,
        render: @escaping @Sendable (String) async throws -> RenderedPage
    ) async throws -> Response {
        let base = siteAddress(request)
        let stamp = try await pages.stamp { try await self.catalog.changeStamp() }
        let key = base + Self.cacheKey(path: request.uri.path, query: request.uri.queryParameters)
        let gzip = Gzip.isAccepted(by: request)
        let page = try await pages.page(key, stamp: stamp) {
            let rendered = try await render(base)
            if let ahead = rendered.ahead {
                // Kept deflated (a client that does not take gzip gets it inflated).
                return PageCache.Page(
                    status: rendered.status.code, body: nil, styleOffset: nil, deflated: ahead.deflated,
                    length: ahead.length, eTag: ahead.eTag, stamp: stamp)
            }
            let status = rendered.status
            let body = Data(rendered.text.utf8)
            // (The ETag names the stylesheet too, by its own ETag: a page is not the same under another.)
            var hash = SHA256()
            hash.update(data: body)
            hash.update(data: Data(self.web.stylesheet.eTag.utf8))
            let styleOffset = WebTemplates.styleOffset(in: body)
            // Kept in the form the request that rendered it takes (the other is made if asked).
            let run = rendered.deflatedRun.flatMap { run in
                WebTemplates.range(of: Data(run.text.utf8), beforeMainEnd: body).map { (range: $0, part: run.part) }
            }
            let deflated = gzip ? self.web.deflate(body, at: styleOffset, keeping: run) : nil
            return PageCache.Page(
                status: status.code, body: deflated == nil ? body : nil, styleOffset: styleOffset,
                deflated: deflated, length: body.count + (styleOffset == nil ? 0 : self.web.stylesheet.bytes.count),
                eTag: "\"" + Hex.string(hash.finalize().prefix(12)) + "\"", stamp: stamp)
        }
        // Gzipped for a client that takes it: as kept, or deflated now and kept in its place.
        var deflated: DeflatedPage?
        if gzip {
            deflated = page.deflated ?? page.body.flatMap { web.deflate($0, at: page.styleOffset) }
            if let deflated, page.deflated == nil { pages.keepDeflated(deflated, for: key, eTag: page.eTag) }
        }
        var headers = HTTPFields()
        headers[.contentType] = type.contentType
        headers[.cacheControl] = "no-cache"
        headers[.eTag] = deflated != nil ? Gzip.eTag(page.eTag) : page.eTag
        headers[.vary] = "Accept-Encoding"
        headers[.contentSecurityPolicy] = web.contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        if let referrerPolicy = HTTPFields.Element.Name.referrerPolicy { headers[referrerPolicy] = "same-origin" }
        if page.status == 200, Self.matches(request.headers[.ifNoneMatch], headers[.eTag] ?? "") {
            return Response(status: .notModified, headers: headers)
        }
        if let deflated {
            headers[.contentEncoding] = "gzip"
            return Response(
                status: .init(code: page.status), headers: headers,
                body: ResponseBody(byteBuffer: web.gzipped(deflated)))
        }
        let whole =
            try page.body.map { web.withStylesheet($0, at: page.styleOffset) }
            ?? Gzip.decompress(page.deflated.map(web.gzipped) ?? ByteBuffer(), length: page.length)
        return Response(status: .init(code: page.status), headers: headers, body: ResponseBody(byteBuffer: whole))
    }

    /// `--public-url`, or `http://` and the Host the request names (when it is a plain host
    /// name or address: it is written into cached pages).
    func siteAddress(_ request: Request) -> String {
        publicURL ?? Self.siteAddress(host: request.head.authority)
    }

    /// `http://` and `host` if it is a plain host name or address (ASCII letters, digits and
    /// `.-:[]`, at most 255 bytes), else `http://localhost`.
    static func siteAddress(host: String?) -> String {
        let host = host ?? ""
        let plain =
            !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                    UInt8(ascii: "["), UInt8(ascii: "]"):
                    true
                default: false
                }
            }
        return "http://" + (plain ? host : "localhost")
    }

    static func asset(_ request: Request, _ asset: WebAsset, type: String) -> Response {
        let gzipped = Gzip.isAccepted(by: request) ? asset.gzipped : nil
        let tag = gzipped != nil ? Gzip.eTag(asset.eTag) : asset.eTag
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "public, max-age=3600"
        headers[.eTag] = tag
        headers[.vary] = "Accept-Encoding"
        if matches(request.headers[.ifNoneMatch], tag) { return Response(status: .notModified, headers: headers) }
        if gzipped != nil { headers[.contentEncoding] = "gzip" }
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: gzipped ?? asset.bytes)))
    }

    // MARK: Pages

    func frontPage(_ request: Request, base: String) async throws -> (HTTPResponse.Status, String) {
        let parameters = request.uri.queryParameters
        var query = Self.catalogQuery(parameters)
        let number = Self.pageNumber(parameters)
        query.limit = Self.pageSize
        query.offset = (number - 1) * Self.pageSize
        let filters = FiltersModel(
            q: query.text, language: query.language ?? "", translation: query.translationLanguage ?? "",
            tag: query.tag ?? "")
        let searching =
            !query.text.isEmpty || query.language != nil || query.translationLanguage != nil || query.tag != nil
        let now = Date()
        let results = try await catalog.search(query, now: now)
        var model = FrontPageModel(
            filters: filters, searching: searching, base: base, results: results.loops.map(Self.card),
            hasResults: !results.loops.isEmpty,
            pager: pager(results, page: number, path: "/", filters: filters.parameters),
            page: Self.frontHead(base: base, query: query.text))
        var title = "Loop Library"
        if searching {
            let described = [
                query.text.isEmpty ? nil : "“\(query.text)”", query.language.map { "in \(Self.languageName($0))" },
                query.translationLanguage.map { "translated to \(Self.languageName($0))" },
                query.tag.map { "tagged \($0)" },
            ]
            .compactMap { $0 }.joined(separator: ", ")
            model.resultsTitle = "\(results.totalText) \(results.total == 1 ? "loop" : "loops") \(described)"
            title = "Loops \(described) · Loop Library"
        } else if number == 1 {
            async let featured = catalog.search(CatalogQuery(featuredOnly: true, limit: 6), now: now)
            async let hot = catalog.search(CatalogQuery(sort: .hot, limit: 6), now: now)
            let featuredLoops = try await featured.loops
            let hotLoops = try await hot.loops.filter { $0.recentDownloads > 0 }
            model.featured = featuredLoops.map(Self.card)
            model.hasFeatured = !featuredLoops.isEmpty
            model.hot = hotLoops.map(Self.card)
            model.hasHot = !hotLoops.isEmpty
        }
        model.page.title = title
        return (.ok, web.render("front", model))
    }

    func authorPage(_ request: Request, name: String, base: String) async throws -> (HTTPResponse.Status, String) {
        let name = name.removingPercentEncoding ?? name
        let number = Self.pageNumber(request.uri.queryParameters)
        let results = try await catalog.search(
            CatalogQuery(author: name, offset: (number - 1) * Self.pageSize, limit: Self.pageSize), now: Date())
        guard let first = results.loops.first else {
            return missing("No author called “\(name)” has loops here.", base: base)
        }
        let display = first.author ?? Self.shortFingerprint(first.authorFingerprint)
        let model = AuthorPageModel(
            author: display, fingerprint: first.authorFingerprint, total: results.total,
            results: results.loops.map(Self.card),
            pager: pager(results, page: number, path: Self.authorPath(first), filters: [:]),
            page: PageHead(
                title: "\(display) · Loop Library", cardTitle: "Loops by \(display)",
                url: base + Self.authorPath(first),
                description:
                    "\(results.total) \(results.total == 1 ? "loop" : "loops") by \(display) on the Loop Library.",
                query: ""))
        return (.ok, web.render("author", model))
    }

    /// The page of the loop `ref`, for a client that takes gzip or not (`gzipped`).
    func previewPage(_ ref: String, base: String, gzipped: Bool) async throws -> RenderedPage {
        guard let stored = try await catalog.loop(ref, now: Date()) else {
            let (status, text) = missing(
                "No loop “\(ref)” is published here: it may have been unpublished.", base: base)
            return RenderedPage(status: status, text: text)
        }
        let loop = stored.summary
        let kept = stored.pagePart.flatMap {
            LoopPagePart.read(
                $0, for: LoopPagePart.key(version: web.partVersion, revision: loop.revision, shortID: loop.shortID))
        }
        // The whole page, as rendered ahead when it was published, while the loop is listed as
        // it was then (a feature, an author's new name, a download counted render it again);
        // deflated, for a client that takes gzip (every browser): inflating it for one that
        // does not cost more than rendering it (0.44 ms of the server's time a first visit at
        // 100,000 loops, against 0.36).
        if gzipped, let kept, let storedPart = stored.pagePart,
            let ahead = web.page(
                kept, stored: storedPart, source: LoopPagePart.source(of: loop, bundleBytes: stored.bundleBytes),
                base: base)
        {
            LibraryMetrics.loopPageMade(ahead: true)
            return RenderedPage(status: .ok, text: "", ahead: ahead)
        }
        LibraryMetrics.loopPageMade(ahead: false)
        // The part its revision alone decides: as rendered when it was published, or now.
        let inflated = kept.flatMap { kept in kept.inflated().map { (part: $0, deflatedGroups: kept.groups.part) } }
        let part =
            try inflated?.part
            ?? web.pagePart(
                StoredContent.read(stored.content), shortID: loop.shortID, language: loop.language,
                translationLanguage: loop.translationLanguage)
        let model = Self.loopPageModel(loop, part: part, bundleBytes: stored.bundleBytes, base: base)
        return RenderedPage(
            status: .ok, text: web.render("loop", model),
            deflatedRun: inflated.map { (part.groupsHTML, $0.deflatedGroups) })
    }

    /// The model of the page of `loop`, with its part (`part`), at `base`: all a loop's page
    /// is rendered from (so that one rendered ahead is the one a visit would render).
    static func loopPageModel(_ loop: CatalogLoop, part: LoopPagePart, bundleBytes: Int, base: String) -> LoopPageModel
    {
        let install = "loop import \(base)/\(loop.shortID)"
        let description =
            "\(loop.phraseCount) phrases \(Self.languages(loop)), by \(Self.authorName(loop))"
            + (part.firstPhrase.map { ": “\($0.prefix(80))”…" } ?? ".")
        return LoopPageModel(
            loopId: loop.id, card: card(loop), pictureHTML: part.pictureHTML, groupsHTML: part.groupsHTML,
            revision: loop.revision,
            groupCount: loop.groupCount, featured: loop.featured, installLine: install,
            bundleLink: LoopLibraryPaths.bundle(loop.shortID),
            bundleSize: Self.size(bundleBytes),
            page: PageHead(
                title: "\(loop.title) · Loop Library", cardTitle: loop.title,
                url: base + LoopLibraryPaths.page(loop.shortID),
                description: description, query: "", script: true, player: true))
    }

    func feed(base: String) async throws -> (HTTPResponse.Status, String) {
        let latest = try await catalog.search(CatalogQuery(sort: .latest, limit: 30), now: Date()).loops
        let entries = latest.map { loop in
            FeedEntryModel(
                title: loop.title, id: loop.id, url: base + LoopLibraryPaths.page(loop.shortID),
                published: loop.published, updated: loop.updated,
                author: Self.authorName(loop),
                summary: "\(loop.phraseCount) phrases \(Self.languages(loop)), \(Self.duration(loop.seconds)).",
                tags: loop.tags.map { TagModel(name: $0) })
        }
        let model = FeedModel(base: base, updated: latest.first?.updated ?? "1970-01-01T00:00:00Z", entries: entries)
        return (.ok, web.render("feed", model))
    }

    func missing(_ message: String, base: String) -> (HTTPResponse.Status, String) {
        let model = MissingPageModel(
            message: message,
            page: PageHead(
                title: "Not found · Loop Library", cardTitle: "Loop Library", url: base + "/", description: message,
                query: ""))
        return (.notFound, web.render("missing", model))
    }

    // MARK: Clips

    /// `/<short id>/<n>.flac`: the clip of the loop's `n`th phrase, cut from its take on first
    /// request, with Range support (browsers seek and read a media file in ranges).
    func phraseClip(_ request: Request, context: LibraryRequestContext, ref: String, file: String) async throws
        -> Response
    {
        guard file.hasSuffix(".flac"), let number = Int(file.dropLast(5)), number >= 1,
            let stored = try await catalog.loop(ref, now: Date())
        else { throw APIError.notFound("no such clip") }
        let content = try StoredContent.read(stored.content)
        let phrases = content.groups.flatMap { $0 }
        guard number <= phrases.count, let clip = phrases[number - 1].clip,
            let take = content.takes.first(where: { $0.sha256 == clip.take })
        else {
            throw APIError.notFound("no such clip")
        }
        let clips = self.clips
        let (path, eTag) = try await BlockingWork.run("loop-server clip") { try clips.clip(clip, of: take) }
        return try await serveFile(
            request, context: context, path: path, eTag: eTag, contentType: "audio/flac", cacheControl: "no-cache")
    }

    // MARK: Models

    /// What the catalog keeps of a loop's text (``CatalogEntry/content``).
    struct StoredContent: Codable {
        var groups: [[CatalogLoopDetail.Phrase]]
        var takes: [CatalogLoopDetail.Take]
        var pictures: BundleIntake.StoredPictures?

        init(
            groups: [[CatalogLoopDetail.Phrase]], takes: [CatalogLoopDetail.Take],
            pictures: BundleIntake.StoredPictures?
        ) {
            self.groups = groups
            self.takes = takes
            self.pictures = pictures
        }

        /// The content in `data`: read by ``JSONValue`` (a page's first visit reads it), or by
        /// `JSONDecoder` where that reader finds it is not what the catalog writes (the
        /// decoder's error says why).
        static func read(_ data: Data) throws -> StoredContent {
            if let json = try? JSONValue.read(data), let content = StoredContent(json) { return content }
            return try CatalogText.decoder.decode(StoredContent.self, from: data)
        }

        /// The content `json` holds, nil if anything in it is not as the catalog writes it.
        init?(_ json: JSONValue) {
            func integer(_ value: JSONValue?) -> Int? {
                guard let number = value?.number, number.rounded() == number, abs(number) < 0x1p53 else { return nil }
                return Int(number)
            }
            /// An optional member: `.some(nil)` if absent or null, nil if there and not as read.
            func optional<T>(_ value: JSONValue?, _ read: (JSONValue) -> T?) -> T?? {
                guard let value, !value.isNull else { return .some(nil) }
                return read(value).map { .some($0) } ?? nil
            }
            func picture(_ json: JSONValue) -> BundleIntake.StoredPictures.Picture? {
                guard let blob = json["blob"]?.string, let width = integer(json["width"]),
                    let height = integer(json["height"])
                else { return nil }
                return .init(blob: blob, width: width, height: height)
            }
            func phrase(_ json: JSONValue) -> CatalogLoopDetail.Phrase? {
                guard let text = json["text"]?.string,
                    case .some(let translation) = optional(json["translation"], \.string),
                    case .some(let recordedText) = optional(json["recordedText"], \.string),
                    case .some(let clip) = optional(
                        json["clip"],
                        { clip -> CatalogLoopDetail.Clip? in
                            guard let take = clip["take"]?.string, let start = clip["start"]?.number,
                                let end = clip["end"]?.number
                            else { return nil }
                            return .init(take: take, start: start, end: end)
                        })
                else { return nil }
                return .init(text: text, translation: translation, clip: clip, recordedText: recordedText)
            }
            func list<T>(_ value: JSONValue?, _ read: (JSONValue) -> T?) -> [T]? {
                guard let items = value?.array else { return nil }
                var values: [T] = []
                values.reserveCapacity(items.count)
                for item in items {
                    guard let element = read(item) else { return nil }
                    values.append(element)
                }
                return values
            }
            /// A list whose items may be null (pictures by group and by phrase).
            func sparse<T>(_ value: JSONValue?, _ read: (JSONValue) -> T?) -> [T?]? {
                list(value) { item -> T?? in optional(item, read) }
            }
            guard let groups = list(json["groups"], { list($0, phrase) }),
                let takes = list(
                    json["takes"],
                    { take -> CatalogLoopDetail.Take? in
                        guard let sha256 = take["sha256"]?.string, let bytes = integer(take["bytes"]),
                            let sampleRate = integer(take["sampleRate"]), let channels = integer(take["channels"]),
                            let frames = integer(take["frames"])
                        else { return nil }
                        return .init(
                            sha256: sha256, bytes: bytes, sampleRate: sampleRate, channels: channels, frames: frames)
                    }),
                case .some(let pictures) = optional(
                    json["pictures"],
                    { pictures -> BundleIntake.StoredPictures? in
                        guard case .some(let loop) = optional(pictures["loop"], picture),
                            let groups = sparse(pictures["groups"], picture),
                            let phrases = sparse(pictures["phrases"], picture)
                        else { return nil }
                        return .init(loop: loop, groups: groups, phrases: phrases)
                    })
            else { return nil }
            self.init(groups: groups, takes: takes, pictures: pictures)
        }
    }

    /// A picture for a template: its source (a blob, served immutable) and size. Each place has
    /// a key of its own (`loopPicture`, `groupPicture`, `phrasePicture`): a section that finds no
    /// key in its own context looks in the enclosing ones, and would show their picture again.
    static func pictureModel(_ picture: BundleIntake.StoredPictures.Picture?) -> PictureModel? {
        picture.map { PictureModel(src: LoopLibraryPaths.blob($0.blob), width: $0.width, height: $0.height) }
    }

    /// A loop as a card of a list.
    static func card(_ loop: CatalogLoop) -> CardModel {
        CardModel(
            link: LoopLibraryPaths.page(loop.shortID), title: loop.title, languages: Self.languages(loop),
            phraseCount: loop.phraseCount,
            duration: Self.duration(loop.seconds), author: Self.authorName(loop), authorLink: Self.authorPath(loop),
            hasTags: !loop.tags.isEmpty,
            tags: loop.tags.map { TagModel(name: $0, link: "/?tag=" + Self.queryValue($0)) },
            updated: loop.updated, updatedDay: String(loop.updated.prefix(10)),
            downloads: loop.recentDownloads > 0
                ? "\(loop.recentDownloads) download\(loop.recentDownloads == 1 ? "" : "s") this week" : nil)
    }

    /// The previous and next page links of a list, keeping its filters.
    func pager(_ results: CatalogPage, page: Int, path: String, filters: [String: String]) -> PagerModel? {
        let pages = max(1, (results.total + Self.pageSize - 1) / Self.pageSize)
        guard pages > 1 else { return nil }
        func link(_ number: Int) -> String {
            let parts =
                filters.sorted { $0.key < $1.key }.filter { !$0.value.isEmpty }.map {
                    "\($0.key)=\(Self.queryValue($0.value))"
                }
                + (number > 1 ? ["page=\(number)"] : [])
            return path + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&"))
        }
        return PagerModel(
            page: page, pages: pages, previous: page > 1 ? link(page - 1) : nil,
            next: page < pages ? link(page + 1) : nil)
    }

    static func frontHead(base: String, query: String) -> PageHead {
        PageHead(
            title: "Loop Library", cardTitle: "Loop Library", url: base + "/",
            description:
                "Short loops of spoken phrases to learn a language by ear: read them, hear them, install them with loop.",
            query: query)
    }

    /// The query parameters the pages read (``frontPage(_:base:)``, ``authorPage(_:name:base:)``
    /// through ``LibraryServer/catalogQuery(_:)`` and ``pageNumber(_:)``; the front page sets
    /// its own offset and limit).
    static let pageParameters: Set<Substring> = [
        "q", "language", "translation", "tag", "author", "featured", "sort", "page",
    ]

    /// What names a page in the cache: its path and the parameters a page reads, as asked (in
    /// their order: the first of a name repeated is the one read), never the others: `/?x1=...`
    /// is the front page, not a page of its own.
    static func cacheKey(path: String, query: Parameters) -> String {
        // Values as read (decoded), their `%`, `&` and `=` escaped again: no two asks share a key.
        func escaped(_ text: Substring) -> String {
            text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "&", with: "%26")
                .replacingOccurrences(of: "=", with: "%3D")
        }
        let read = query.filter { pageParameters.contains($0.key) }.map {
            $0.key + "=" + escaped($0.value)
        }
        return path + (read.isEmpty ? "" : "?" + read.joined(separator: "&"))
    }

    static func pageNumber(_ parameters: Parameters) -> Int {
        min(max(1, parameters.get("page", as: Int.self) ?? 1), 10_000)
    }

    static func authorName(_ loop: CatalogLoop) -> String {
        loop.author ?? "author " + shortFingerprint(loop.authorFingerprint)
    }

    static func shortFingerprint(_ fingerprint: String) -> String { String(fingerprint.prefix(8)) }

    /// `/@name`, or `/@fingerprint` for an author without a name.
    static func authorPath(_ loop: CatalogLoop) -> String { "/@" + queryValue(loop.author ?? loop.authorFingerprint) }

    /// "French → English", or the codes as given when they are not languages this system names.
    static func languages(_ loop: CatalogLoop) -> String {
        let spoken = loop.language.map(languageName) ?? "a language not given"
        return loop.translationLanguage.map { "in \(spoken) → \(languageName($0))" } ?? "in \(spoken)"
    }

    static func languageName(_ code: String) -> String {
        if let known = languageNames.withLock({ $0[code] }) { return known }
        var name = code
        if languageTag(code) != nil, let found = Locale(identifier: "en").localizedString(forIdentifier: code),
            !found.isEmpty
        {
            name = found
        }
        languageNames.withLock { names in
            if names.count > 1000 { names.removeAll() }
            names[code] = name
        }
        return name
    }

    /// Language names by code, as Locale gives them (a lookup costs more than a page's render).
    private static let languageNames = Mutex<[String: String]>([:])

    /// "265 KB", "24.1 MB" (Foundation's formatter cost a tenth of a page's render).
    static func size(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) bytes" }
        if bytes < 1_000_000 { return "\(bytes / 1000) KB" }
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    /// `code` when it is a well-formed language tag (`fr`, `pt-BR`), for a `lang` attribute.
    static func languageTag(_ code: String?) -> String? {
        guard let code, !code.isEmpty, code.utf8.count <= 35 else { return nil }
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = parts.first, (2...8).contains(primary.count),
            primary.allSatisfy({ $0.isASCII && $0.isLetter }),
            parts.dropFirst().allSatisfy({
                (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            })
        else { return nil }
        return code
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total < 60 ? "\(total) s" : "\(total / 60) min \(total % 60) s"
    }

    /// Text as a URL query value (or a path segment): everything but unreserved characters
    /// percent-encoded.
    static func queryValue(_ text: String) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}

extension HTTPFields.Element.Name {
    /// `Referrer-Policy`, which HTTPTypes does not name (a valid name: never nil).
    static let referrerPolicy = Self("Referrer-Policy")
}
