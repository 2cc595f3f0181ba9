import Foundation
import LoopFoundation
import LoopLibraryAPI

/// What a Loop Library knows of its loops and authors: the one place that is shared by every
/// server process of a library. Two implementations run the same rules: ``SQLiteCatalog`` (one
/// machine, nothing to install) and ``PostgresCatalog`` (several servers behind a proxy).
///
/// Every method that changes the catalog is one transaction: a publish is visible whole or not
/// at all, and two publishes of the same loop are decided one after the other.
public protocol Catalog: Sendable {
    /// Whether several servers may share the catalog (PostgreSQL): the pages then re-read its
    /// change stamp for every request.
    var isShared: Bool { get }

    /// Creates or migrates the schema.
    func prepare() async throws

    /// Publishes a loop (a first publish or an update), under the rules of ownership: the
    /// first publish of an id binds it to its key; an update needs the same key and a higher
    /// revision. A display name given is bound to the key on first use, and refused when
    /// another key holds it.
    func publish(_ entry: CatalogEntry, authorName: String?, now: Date) async throws -> PublishResult

    /// Refuses, before anything is received, a publish of revision `revision` of loop `id` by
    /// `authorKey` that ``publish(_:authorName:now:)`` would refuse as it stands (another
    /// author's loop, a revision not newer). The publish checks again in its transaction.
    func judge(publishOf id: String, revision: Int, authorKey: String) async throws

    /// What `authorKey` has used of its quota at `now`: its listed loops (and whether loop
    /// `id` is one of them), the bytes it published today (UTC), and when it first published.
    func usage(ofKey authorKey: String, loop id: String, now: Date) async throws -> KeyUsage

    /// The SHA-256 of every blob a listed loop refers to: what `loop serve gc` keeps.
    func listedBlobs() async throws -> Set<String>

    /// Whether a listed loop refers to the blob (its bundle, a take, a picture): only those
    /// are served, so an unpublished loop's files are gone from the server's addresses at once.
    func servesBlob(_ sha256: String) async throws -> Bool

    /// Takes a loop down (the operator's decision: copyright, abuse): unlisted at once, as an
    /// unpublish, and its author cannot publish it again. The id of the loop taken down, or nil
    /// when no loop has that id or short id.
    func takeDown(_ ref: String, reason: String, now: Date) async throws -> String?

    /// Blocks an author's key (base64, or its fingerprint): its publishes and unpublishes are
    /// refused, and its listed loops are taken down. The number of loops taken down, or nil when
    /// no author has that key.
    func blockKey(_ key: String, reason: String, now: Date) async throws -> Int?

    /// Hides a loop from the catalog; the id stays bound to its author's key.
    func unpublish(id: String, authorKey: String, now: Date) async throws

    /// Records a request's nonce; false when it was seen before (a replay).
    func useNonce(_ nonce: String, expires: Date, now: Date) async throws -> Bool

    /// A listed loop by id or short id.
    func loop(_ ref: String, now: Date) async throws -> StoredLoop?

    /// The ids of the listed loops, in no order.
    func listedLoopIDs() async throws -> [String]

    /// Keeps `part` as the part of loop `id`'s page its revision `revision` alone decides
    /// (``StoredLoop/pagePart``), if that is still the revision listed; whether it was kept.
    @discardableResult
    func keepPagePart(_ part: Data, id: String, revision: Int) async throws -> Bool

    /// The listed loops matching `query`, a page of them.
    func search(_ query: CatalogQuery, now: Date) async throws -> CatalogPage

    /// Counts a completed download of a loop's bundle by `client` (a hash of its address) on the
    /// day of `now`: once per client per loop per day. Whether it counted (the first that day).
    func countDownload(id: String, client: String, now: Date) async throws -> Bool

    /// Features a loop on the front page, or stops featuring it; false when no loop has `ref`.
    func setFeatured(_ ref: String, featured: Bool) async throws -> Bool

    /// A number that grows whenever a loop is published, updated, unpublished or (un)featured,
    /// or an author's name changes: what the web pages' cache compares (downloads do not change it).
    /// A change made through this catalog is in it at once; one made elsewhere on a shared
    /// catalog, once it is announced (PostgreSQL: milliseconds).
    func changeStamp() async throws -> Int64

    /// Stops what the catalog holds open (connections).
    func close() async throws
}

extension CatalogPage {
    /// A search for words counts its matches up to this many: past it, the total says "at
    /// least" (a word in every loop would otherwise have each search count the whole catalog),
    /// and no page starts beyond it. Browsing without words counts every loop.
    static let countLimit = 1_000

    /// A search's two ranks (the loops whose title holds every term, then the rest), counted up
    /// to ``countLimit`` + 1 each: the title's matches and all matches.
    struct Ranked {
        /// Loops in each rank, within the limit.
        let counts: [Int]
        let total: Int
        let capped: Bool

        init(title: Int, all: Int) {
            total = min(all, CatalogPage.countLimit)
            capped = all > CatalogPage.countLimit
            let first = min(title, total)
            counts = [first, total - first]
        }

        /// Where a page of `limit` loops from `offset` falls in the ranks, one after another:
        /// for each rank it reaches, the offset and the number of loops taken there.
        func slices(offset: Int, limit: Int) -> [(rank: Int, offset: Int, limit: Int)] {
            var slices: [(rank: Int, offset: Int, limit: Int)] = []
            var start = offset
            var wanted = limit
            for (rank, count) in counts.enumerated() where wanted > 0 {
                if start >= count {
                    start -= count
                    continue
                }
                let taken = min(wanted, count - start)
                slices.append((rank, start, taken))
                wanted -= taken
                start = 0
            }
            return slices
        }

        func page(_ loops: [CatalogLoop], offset: Int, limit: Int) -> CatalogPage {
            CatalogPage(
                loops: loops, total: total, offset: offset, limit: limit, totalIsLowerBound: capped ? true : nil)
        }
    }

    /// Where `limit` loops from `offset` of a list in Hot's order fall: the list's `hot` loops
    /// (downloaded in the last days), most downloaded first, come before the rest, newest
    /// first. The offset and number taken from each part (nil: none). Each part is read on
    /// its own: the hot loops from the last days' downloads, the rest off the newest-first
    /// index, so Hot never reads every loop's downloads.
    static func hotParts(offset: Int, limit: Int, hot: Int) -> (
        hot: (offset: Int, limit: Int)?, rest: (offset: Int, limit: Int)?
    ) {
        let fromHot = offset < hot ? min(limit, hot - offset) : 0
        return (
            fromHot > 0 ? (offset, fromHot) : nil,
            limit > fromHot ? (max(0, offset - hot), limit - fromHot) : nil
        )
    }
}

/// A catalog the benchmark fills with a large number of loops at once.
public protocol BenchmarkSeeding: Catalog {
    /// Loops inserted as they are (no rules applied), oldest first, published a few seconds
    /// apart up to `now`.
    func insertForBenchmark(_ entries: [CatalogEntry], now: Date) async throws
}

/// What an author's key has used of its quota (``Catalog/usage(ofKey:loop:now:)``).
public struct KeyUsage: Sendable, Equatable {
    /// Its loops listed now.
    public var listedLoops: Int
    /// Whether the loop a publish names is one of them (an update takes no new loop).
    public var holdsLoop: Bool
    /// The bundle bytes it published on the day of `now` (UTC).
    public var bytesToday: Int
    /// When it first published a loop, or nil for a key that never has.
    public var firstPublished: Date?

    /// A key's usage from its figures.
    public init(listedLoops: Int, holdsLoop: Bool, bytesToday: Int, firstPublished: Date?) {
        self.listedLoops = listedLoops
        self.holdsLoop = holdsLoop
        self.bytesToday = bytesToday
        self.firstPublished = firstPublished
    }
}

/// A loop as a publish writes it into the catalog: what its listing shows of the author's
/// publish (``CatalogLoop/Authored``, the one record both share), and what the catalog keeps
/// to serve and find it. Its authored fields read as its own (`entry.title`).
@dynamicMemberLookup
public struct CatalogEntry: Sendable {
    /// What the listing shows of the publish.
    public var authored: CatalogLoop.Authored
    /// The author's public key (base64).
    public var authorKey: String
    /// `{"groups": [...], "takes": [...]}` of ``CatalogLoopDetail``, encoded once at publish.
    public var content: Data
    /// The SHA-256 of its bundle (its name under `/blobs/`).
    public var bundleSHA256: String
    /// The bundle's size in bytes.
    public var bundleBytes: Int
    /// The words of the title, as search matches them (``CatalogText/searchWords(_:)``),
    /// parted by spaces: a search finds a loop whose title holds every term first.
    public var searchTitle: String
    /// The words of the title, tags, phrases and translations, parted by spaces.
    public var searchText: String

    /// An entry from its fields.
    public init(
        authored: CatalogLoop.Authored, authorKey: String, content: Data, bundleSHA256: String, bundleBytes: Int,
        searchTitle: String, searchText: String
    ) {
        self.authored = authored
        self.authorKey = authorKey
        self.content = content
        self.bundleSHA256 = bundleSHA256
        self.bundleBytes = bundleBytes
        self.searchTitle = searchTitle
        self.searchText = searchText
    }

    /// An authored field, read as the entry's own.
    public subscript<Value>(dynamicMember field: KeyPath<CatalogLoop.Authored, Value>) -> Value {
        authored[keyPath: field]
    }
}

/// A listed loop as the catalog holds it.
public struct StoredLoop: Sendable {
    /// The loop as a listing shows it.
    public var summary: CatalogLoop
    /// The author's public key (base64).
    public var authorKey: String
    /// See ``CatalogEntry/content``.
    public var content: Data
    /// The SHA-256 of its bundle.
    public var bundleSHA256: String
    /// The bundle's size in bytes.
    public var bundleBytes: Int
    /// The part of its web page its revision alone decides, with the page rendered ahead (a
    /// server's `LoopPagePart`), kept after the loop is in the catalog
    /// (``Catalog/keepPagePart(_:id:revision:)``), or nil until kept.
    public var pagePart: Data?

    /// The loop's detail as JSON (``CatalogLoopDetail``), spliced from the stored content.
    public func detailJSON() throws -> Data {
        var json = Data("{\"bundle\":".utf8)
        json += try CatalogText.encoder.encode(CatalogLoopDetail.Blob(sha256: bundleSHA256, bytes: bundleBytes))
        json += Data(",\"loop\":".utf8)
        json += try CatalogJSON.loop(summary)
        json += Data(",".utf8)
        json += content.dropFirst() // `{"groups":...,"takes":...}` without its opening brace
        return json
    }
}

/// The ways the catalog can refuse a change.
public enum CatalogFailure: String, LoopErrorKind {
    /// Another key published this loop first.
    case notTheAuthor
    /// Taken down by the operator, or from a key the operator blocked.
    case takenDown
    /// The catalog holds this revision or a newer one.
    case staleRevision
    /// Another author holds this display name.
    case nameTaken
    case notFound
    /// The database failed.
    case database
    /// The database cannot be reached (PostgreSQL stopped, or unreachable from here).
    case unavailable
    /// A templates folder that cannot serve pages.
    case templates

    /// Where these errors come from: the catalog.
    public static let domain = ErrorDomain.catalog
}

/// Why the catalog refused a change, or the server cannot serve.
public typealias CatalogError = LoopError<CatalogFailure>

/// The blobs a catalog entry refers to: its bundle, its takes and its pictures.
enum CatalogBlobs {
    private struct Content: Decodable {
        struct Take: Decodable { var sha256: String }
        struct Picture: Decodable { var blob: String }
        struct Pictures: Decodable {
            var loop: Picture?
            var groups: [Picture?]
            var phrases: [Picture?]
        }

        var takes: [Take]
        var pictures: Pictures?
    }

    /// The SHA-256 of every blob the entry with this bundle and content (as stored) refers to.
    static func hashes(bundleSHA256: String, content: Data) -> Set<String> {
        var hashes: Set<String> = [bundleSHA256]
        guard let decoded = try? CatalogText.decoder.decode(Content.self, from: content) else { return hashes }
        hashes.formUnion(decoded.takes.map(\.sha256))
        let pictures = [decoded.pictures?.loop] + (decoded.pictures?.groups ?? []) + (decoded.pictures?.phrases ?? [])
        hashes.formUnion(pictures.compactMap { $0?.blob.split(separator: ".").first.map(String.init) })
        return hashes
    }
}

/// Text as the catalog stores and matches it.
public enum CatalogText {
    /// Lower case, no diacritics, no width variants, NFC: what search compares.
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// The words of a search (``searchWords(_:)``), at most eight; a loop is found when each is
    /// the start of one of its words.
    public static func searchTerms(_ text: String) -> [String] {
        Array(searchWords(text).prefix(8))
    }

    /// The words search matches: the text folded (``fold(_:)``), its marks left out, and cut
    /// into runs of letters and digits (anything else, a control character included, parts
    /// words as a space does);
    /// a Han, hiragana or katakana character is a word of its own, since those scripts put no
    /// spaces between words. Both catalogs index these words as they are and match a term
    /// against their starts, so SQLite and PostgreSQL find the same loops.
    public static func searchWords(_ text: String) -> [String] {
        if let words = asciiSearchWords(text) { return words }
        var words: [String] = []
        var word = String.UnicodeScalarView()
        func end() {
            guard !word.isEmpty else { return }
            words.append(String(String(word).unicodeScalars.prefix(maximumWordLength)))
            word = String.UnicodeScalarView()
        }
        for scalar in fold(text).unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                // A mark left by the folding (a vowel sign or a virama in Devanagari or Thai,
                // Arabic's harakat) neither parts its word nor counts: `كتب` finds `كَتَبَ`.
                break
            case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
                .letterNumber, .otherNumber:
                if isWordOnItsOwn(scalar) {
                    end()
                    word.append(scalar)
                    end()
                } else {
                    word.append(scalar)
                }
            default: end()
            }
        }
        end()
        return words
    }

    /// ``searchWords(_:)`` of a text all in ASCII (most searches), byte by byte: folding leaves
    /// ASCII as it is but for its capitals, and its only letters and digits are `A-Z`, `a-z` and
    /// `0-9` (Foundation's folding, three times a search, was 3.7% of the server's time for
    /// searches asked once); nil for any other text.
    private static func asciiSearchWords(_ text: String) -> [String]? {
        var words: [String] = []
        var word: [UInt8] = []
        func end() {
            guard !word.isEmpty else { return }
            words.append(String(decoding: word.prefix(maximumWordLength), as: UTF8.self))
            word.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte + 32)
            case 0x80...: return nil
            default: end()
            }
        }
        end()
        return words
    }

    /// The words of texts as a catalog stores them: each once, parted by spaces.
    public static func searchField(_ texts: [String]) -> String {
        var seen: Set<String> = []
        return texts.flatMap(searchWords).filter { seen.insert($0).inserted }.joined(separator: " ")
    }

    /// Longer words are cut to this many characters (PostgreSQL takes lexemes of up to 2 KB).
    static let maximumWordLength = 64

    private static func isWordOnItsOwn(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isIdeographic || (0x3040...0x30FF).contains(scalar.value)
            || (0x31F0...0x31FF).contains(scalar.value)
    }

    /// A term as a LIKE pattern that matches it anywhere, `\` escaping the wildcards.
    public static func likePattern(_ term: String) -> String {
        "%"
            + term.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// Tags as stored for matching: `|tag one|tag two|`, folded.
    public static func tagKeys(_ tags: [String]) -> String {
        "|" + tags.map { fold($0).replacingOccurrences(of: "|", with: " ") }.joined(separator: "|") + "|"
    }

    /// The short id for a loop id: its first six hex digits, longer on a collision.
    public static func shortID(for id: String, length: Int) -> String {
        String(id.replacingOccurrences(of: "-", with: "").prefix(length))
    }

    /// The short id a benchmark's copy is inserted under (``BenchmarkSeeding``): long enough
    /// never to be taken.
    public static func seededShortID(for id: String) -> String { shortID(for: id, length: 10) }

    /// One decoder for every request (making one costs more than the small decode it does).
    static let decoder = JSONDecoder()

    /// A loop's tags from the JSON array the catalogs keep them in (as ``encoder`` writes it).
    /// Read by hand when no tag holds a quote or a backslash (nearly every tag: a page of search
    /// results reads 20 such arrays, and the decoder was a quarter of turning its rows into
    /// loops); by the decoder otherwise.
    static func tags(fromJSON json: String) throws -> [String] {
        let bytes = Array(json.utf8)
        let quote = UInt8(ascii: "\"")
        let comma = UInt8(ascii: ",")
        if bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]"), !bytes.contains(UInt8(ascii: "\\")) {
            // `["a","b"]`: with no backslash, every quote byte opens or closes a tag (no byte of
            // a character beyond ASCII is a quote).
            let inside = bytes[1..<(bytes.count - 1)]
            if inside.isEmpty { return [] }
            let parts = inside.split(separator: quote, omittingEmptySubsequences: false)
            // Nothing, a tag, a comma, a tag, ..., nothing: the tags at the odd places.
            if parts.count % 2 == 1, parts[0].isEmpty, parts[parts.count - 1].isEmpty,
                stride(from: 2, to: parts.count - 1, by: 2).allSatisfy({ parts[$0].elementsEqual([comma]) })
            {
                return stride(from: 1, to: parts.count, by: 2).map { String(decoding: parts[$0], as: UTF8.self) }
            }
        }
        return try decoder.decode([String].self, from: Data(json.utf8))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Seconds since 1970 as ISO 8601 in UTC.
    static func iso8601(_ milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // By hand: String(format:) took a tenth of a catalog request's time.
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2)
            + "T"
            + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2) + "Z"
    }

    /// A moment as the catalog stores `published` and `updated`: milliseconds since 1970, so
    /// that two publishes in one second still list newest first.
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The day number of a moment (days since 1970, UTC): downloads are counted by day.
    static func day(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 / 86_400) }

    /// How many days back downloads count as recent (for Hot).
    static let recentDays: Int64 = 7

    /// Downloads on days after this one count as recent (the last seven days).
    static func recentSince(_ now: Date) -> Int64 { day(now) - recentDays }
}

extension ErrorDomain {
    /// A Loop Library's catalog.
    public static let catalog = ErrorDomain(rawValue: "catalog")
}
