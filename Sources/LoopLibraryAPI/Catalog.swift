import Foundation

/// A loop as a Loop Library lists it: enough to choose it from a list. What its author's
/// publish says of it (``Authored``, the same record the server's catalog writes), and what the
/// Library adds: its link, its author's name, its dates, its downloads, its place on the front
/// page. Its JSON is one flat object; its authored fields read as its own (`loop.title`).
@dynamicMemberLookup
public struct CatalogLoop: Codable, Equatable, Sendable {
    /// What a loop's publish says of it: the part of its listing its author decides.
    public struct Authored: Codable, Equatable, Sendable {
        /// The loop's id (a UUID), the same in every library that installs it.
        public var id: String
        /// Its revision: 1 on a first publish, one more with each update.
        public var revision: Int
        /// The author's key fingerprint (the same as `loop identity` shows).
        public var authorFingerprint: String
        /// The loop's title.
        public var title: String
        /// The language of its phrases (a BCP 47 code, as the author gave it).
        public var language: String?
        /// The language of its translations, when it has them.
        public var translationLanguage: String?
        /// Its tags, as the author wrote them.
        public var tags: [String]
        /// How many groups (blocks to loop) it holds.
        public var groupCount: Int
        /// How many phrases it holds.
        public var phraseCount: Int
        /// Seconds of audio in its clips.
        public var seconds: Double

        /// A loop's authored listing from its fields.
        public init(
            id: String, revision: Int, authorFingerprint: String, title: String, language: String?,
            translationLanguage: String?, tags: [String], groupCount: Int, phraseCount: Int, seconds: Double
        ) {
            self.id = id
            self.revision = revision
            self.authorFingerprint = authorFingerprint
            self.title = title
            self.language = language
            self.translationLanguage = translationLanguage
            self.tags = tags
            self.groupCount = groupCount
            self.phraseCount = phraseCount
            self.seconds = seconds
        }
    }

    /// What its author's publish says of it.
    public var authored: Authored
    /// The short id of its preview link (`/<shortID>`).
    public var shortID: String
    /// The author's display name, when they chose one.
    public var author: String?
    /// When it was first published and last updated (ISO 8601, UTC).
    public var published: String
    /// See ``published``.
    public var updated: String
    /// Downloads of its bundle in the last seven days.
    public var recentDownloads: Int
    /// Whether the Library's operator features it on the front page.
    public var featured: Bool

    /// A listing entry: what its author published and what the Library adds.
    public init(
        authored: Authored, shortID: String, author: String?, published: String, updated: String,
        recentDownloads: Int, featured: Bool
    ) {
        self.authored = authored
        self.shortID = shortID
        self.author = author
        self.published = published
        self.updated = updated
        self.recentDownloads = recentDownloads
        self.featured = featured
    }

    /// An authored field, read (and written) as the listing's own.
    public subscript<Value>(dynamicMember field: WritableKeyPath<Authored, Value>) -> Value {
        get { authored[keyPath: field] }
        set { authored[keyPath: field] = newValue }
    }

    private enum CodingKeys: String, CodingKey {
        case shortID, author, published, updated, recentDownloads, featured
    }

    /// Reads the flat object: the authored fields and the Library's beside them.
    public init(from decoder: any Decoder) throws {
        authored = try Authored(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        shortID = try container.decode(String.self, forKey: .shortID)
        author = try container.decodeIfPresent(String.self, forKey: .author)
        published = try container.decode(String.self, forKey: .published)
        updated = try container.decode(String.self, forKey: .updated)
        recentDownloads = try container.decode(Int.self, forKey: .recentDownloads)
        featured = try container.decode(Bool.self, forKey: .featured)
    }

    /// Writes one flat object: the authored fields and the Library's beside them.
    public func encode(to encoder: any Encoder) throws {
        try authored.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(shortID, forKey: .shortID)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encode(published, forKey: .published)
        try container.encode(updated, forKey: .updated)
        try container.encode(recentDownloads, forKey: .recentDownloads)
        try container.encode(featured, forKey: .featured)
    }
}

/// A loop with its text: every group's phrases, and where each phrase's clip lies in its take.
public struct CatalogLoopDetail: Codable, Equatable, Sendable {
    /// The loop as a list shows it.
    public var loop: CatalogLoop
    /// Its phrases, group by group.
    public var groups: [[Phrase]]
    /// The bundle that installs it: `GET /api/loops/{id}/bundle`, or `/blobs/{sha256}`.
    public var bundle: Blob
    /// The takes its clips are cut from, by SHA-256 (`GET /blobs/{sha256}`, FLAC).
    public var takes: [Take]

    /// One phrase: its text, its translation and its clip.
    public struct Phrase: Codable, Equatable, Sendable {
        /// The phrase's text.
        public var text: String
        /// Its translation, when the loop has one.
        public var translation: String?
        /// The clip: its take's SHA-256 and its start and end in seconds.
        public var clip: Clip?
        /// The text the clip was recorded for, when the phrase's text changed since.
        public var recordedText: String?

        /// A phrase from its parts.
        public init(text: String, translation: String?, clip: Clip?, recordedText: String? = nil) {
            self.text = text
            self.translation = translation
            self.clip = clip
            self.recordedText = recordedText
        }
    }

    /// Where a phrase's clip lies: in which take, from when to when.
    public struct Clip: Codable, Equatable, Sendable {
        /// The SHA-256 of the take (FLAC) the clip is cut from.
        public var take: String
        /// Where the clip starts, in seconds into the take.
        public var start: Double
        /// Where the clip ends, in seconds into the take.
        public var end: Double

        /// A clip from its take and its bounds.
        public init(take: String, start: Double, end: Double) {
            self.take = take
            self.start = start
            self.end = end
        }
    }

    /// A take the clips are cut from, as stored (FLAC).
    public struct Take: Codable, Equatable, Sendable {
        /// The take's SHA-256 (its name under `/blobs/`).
        public var sha256: String
        /// Its size in bytes.
        public var bytes: Int
        /// Its sample rate in hertz.
        public var sampleRate: Int
        /// Its channel count.
        public var channels: Int
        /// Its length in frames.
        public var frames: Int

        /// A take from its figures.
        public init(sha256: String, bytes: Int, sampleRate: Int, channels: Int, frames: Int) {
            self.sha256 = sha256
            self.bytes = bytes
            self.sampleRate = sampleRate
            self.channels = channels
            self.frames = frames
        }
    }

    /// A stored file: its SHA-256 (its name under `/blobs/`) and its size.
    public struct Blob: Codable, Equatable, Sendable {
        /// The file's SHA-256.
        public var sha256: String
        /// Its size in bytes.
        public var bytes: Int

        /// A blob from its hash and size.
        public init(sha256: String, bytes: Int) {
            self.sha256 = sha256
            self.bytes = bytes
        }
    }

    /// A loop's detail from its parts.
    public init(loop: CatalogLoop, groups: [[Phrase]], bundle: Blob, takes: [Take]) {
        self.loop = loop
        self.groups = groups
        self.bundle = bundle
        self.takes = takes
    }
}

/// One page of a catalog listing (`GET /api/loops`).
public struct CatalogPage: Codable, Equatable, Sendable {
    /// The loops on this page, in the query's order.
    public var loops: [CatalogLoop]
    /// How many loops match in all: counted up to 1,000 for a search with words, and then true in
    /// ``totalIsLowerBound`` (more match, and no page goes past them).
    public var total: Int
    /// Where this page starts among all the loops that match.
    public var offset: Int
    /// How many loops a page holds at most.
    public var limit: Int
    /// True when more loops than ``total`` match; absent when the total is exact.
    public var totalIsLowerBound: Bool?

    /// The total as a person reads it: `1000+` when more match.
    public var totalText: String { "\(total)" + (totalIsLowerBound == true ? "+" : "") }

    /// A page from its loops and where it lies.
    public init(loops: [CatalogLoop], total: Int, offset: Int, limit: Int, totalIsLowerBound: Bool? = nil) {
        self.loops = loops
        self.total = total
        self.offset = offset
        self.limit = limit
        self.totalIsLowerBound = totalIsLowerBound
    }
}

/// The front page's lists (`GET /api/front`).
public struct FrontPage: Codable, Equatable, Sendable {
    /// The newest updates first.
    public var latest: [CatalogLoop]
    /// The most downloaded in the last seven days first.
    public var hot: [CatalogLoop]
    /// The loops the Library's operator features.
    public var featured: [CatalogLoop]

    /// The front page's lists.
    public init(latest: [CatalogLoop], hot: [CatalogLoop], featured: [CatalogLoop]) {
        self.latest = latest
        self.hot = hot
        self.featured = featured
    }
}

/// What a catalog listing asks for.
public struct CatalogQuery: Equatable, Sendable {
    /// The order a listing comes in.
    public enum Sort: String, Codable, CaseIterable, Sendable {
        /// Newest update first.
        case latest
        /// Most downloads in the last seven days first.
        case hot
    }

    /// Words that must all appear (in the title, tags, phrases, translations or the author's
    /// name), case and diacritics aside.
    public var text: String
    /// The language of the phrases, and of their translations (codes as the loops give them).
    public var language: String?
    /// See ``language``.
    public var translationLanguage: String?
    /// Only loops with this tag (case and diacritics aside).
    public var tag: String?
    /// Only this author's loops (their display name).
    public var author: String?
    /// Only loops the Library's operator features.
    public var featuredOnly: Bool
    /// The order of the listing.
    public var sort: Sort
    /// How many matching loops to skip (a page's start).
    public var offset: Int
    /// How many loops the page holds (1 to ``maximumLimit``).
    public var limit: Int

    /// The most loops one page holds.
    public static let maximumLimit = 100

    /// A query; the offset and limit are brought into their ranges.
    public init(
        text: String = "", language: String? = nil, translationLanguage: String? = nil, tag: String? = nil,
        author: String? = nil,
        featuredOnly: Bool = false, sort: Sort = .latest, offset: Int = 0, limit: Int = 20
    ) {
        self.text = text
        self.language = language
        self.translationLanguage = translationLanguage
        self.tag = tag
        self.author = author
        self.featuredOnly = featuredOnly
        self.sort = sort
        self.offset = max(0, offset)
        self.limit = min(max(1, limit), Self.maximumLimit)
    }

    /// The query as URL query items (`GET /api/loops?...`).
    public var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if !text.isEmpty { items.append(URLQueryItem(name: "q", value: text)) }
        if let language { items.append(URLQueryItem(name: "language", value: language)) }
        if let translationLanguage { items.append(URLQueryItem(name: "translation", value: translationLanguage)) }
        if let tag { items.append(URLQueryItem(name: "tag", value: tag)) }
        if let author { items.append(URLQueryItem(name: "author", value: author)) }
        if featuredOnly { items.append(URLQueryItem(name: "featured", value: "1")) }
        if sort != .latest { items.append(URLQueryItem(name: "sort", value: sort.rawValue)) }
        if offset > 0 { items.append(URLQueryItem(name: "offset", value: String(offset))) }
        items.append(URLQueryItem(name: "limit", value: String(limit)))
        return items
    }
}

/// What a publish did (`POST /api/loops`).
public struct PublishResult: Codable, Equatable, Sendable {
    /// The loop's id.
    public var id: String
    /// The short id of its preview link (`/<shortID>`).
    public var shortID: String
    /// The revision now published.
    public var revision: Int
    /// The revision it replaced; nil on a first publish.
    public var previousRevision: Int?

    /// A publish's result.
    public init(id: String, shortID: String, revision: Int, previousRevision: Int?) {
        self.id = id
        self.shortID = shortID
        self.revision = revision
        self.previousRevision = previousRevision
    }
}

/// Every error response's body: `{"error": "..."}`, one line a person understands.
public struct ErrorBody: Codable, Equatable, Sendable {
    /// What went wrong, in one line.
    public var error: String

    /// An error body.
    public init(error: String) {
        self.error = error
    }
}
