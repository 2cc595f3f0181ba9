import Crypto
import Foundation
import LoopFoundation
import LoopLibraryAPI
import NIOCore

/// The part of a loop's page that its published revision alone decides: its picture, its
/// groups and phrases (with their clips and pictures), and the first phrase its description
/// quotes; and the loop's whole page rendered ahead (``PageAhead``). Rendered once, when the
/// loop is published, and kept in the catalog beside its content (``CatalogEntry/pagePart``),
/// so a page's first visit renders nothing while the loop is as it was then, and only the rest
/// of the page (the head, the card, the install line), not every phrase, once it is not:
/// reading the content and rendering its phrases was a third of a first visit's time, and
/// rendering and deflating the rest half of what was left.
///
/// Kept gzipped, with what it was rendered for (``key(version:revision:shortID:)``: the version
/// of the templates, the revision, the short id its clips' links name): a part of another
/// version (a server upgraded), revision or loop is not used, and the page renders from the
/// content as it would without one.
struct LoopPagePart: Equatable {
    /// The first phrase's text, nil if the loop has none.
    var firstPhrase: String?
    /// The loop's picture, `<img>` and its line's end; empty if it has none.
    var pictureHTML: String
    /// Every group, its phrases in it.
    var groupsHTML: String
    /// The loop's page rendered ahead; nil if it could not be (``WebTemplates/pageAhead(of:part:bundleBytes:)``).
    var page: PageAhead?

    private static let mark = "loop-page-part 2"
    /// The most bytes a kept part, or a piece of its page, may inflate to (a loop's text is
    /// bounded well below it).
    static let byteLimit = 16 << 20

    /// What a part is rendered for: the templates' version, the loop's revision and short id.
    static func key(version: String, revision: Int, shortID: String) -> String {
        "\(version) \(revision) \(shortID)"
    }

    /// The part as the catalog keeps it, rendered for `key`: its head's length (4 bytes,
    /// big-endian) and its head as it is (the mark, `key`, the first phrase, the picture, the
    /// page's source and its pieces' kinds, NUL between them: a few hundred bytes, read on
    /// every first visit, where inflating them cost as much as inflating the groups), its
    /// groups' length and its groups gzipped, then each text of its page, its length and its
    /// text gzipped: so that their deflated blocks join a gzipped page as they are. Nil if a
    /// field holds a NUL (the fields' separator; such a loop renders its page from its content
    /// on each first visit).
    func stored(for key: String) -> Data? {
        let kinds = page.map { String($0.pieces.map(\.kind)) } ?? ""
        let fields = [Self.mark, key, firstPhrase.map { "+" + $0 } ?? "-", pictureHTML, page?.source ?? "", kinds]
        guard !(fields + [groupsHTML]).contains(where: { $0.utf8.contains(0) }) else { return nil }
        let head = Data(fields.joined(separator: "\0").utf8)
        var texts = [groupsHTML]
        for case .text(let text) in page?.pieces ?? [] { texts.append(text) }
        var stored = Self.length(head.count) + head
        for text in texts {
            guard let gzipped = Gzip.compress(Data(text.utf8)) else { return nil }
            stored += Self.length(gzipped.count) + gzipped
        }
        return stored
    }

    private static func length(_ count: Int) -> Data {
        Data((0..<4).map { UInt8(truncatingIfNeeded: count >> (24 - 8 * $0)) })
    }

    /// The part `stored` holds, if it was rendered for `key`: its head, its groups and its
    /// page's texts as they are kept (deflated); nil if it was rendered for another key, or is
    /// not a part as ``stored(for:)`` writes one.
    static func read(_ stored: Data, for key: String) -> KeptPagePart? {
        var rest = stored
        func next() -> Data? {
            guard rest.count >= 4 else { return nil }
            let length = rest.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            guard length <= rest.count - 4 else { return nil }
            defer { rest = rest.dropFirst(4 + length) }
            return rest.dropFirst(4).prefix(length)
        }
        guard let head = next() else { return nil }
        let fields = head.split(separator: 0, maxSplits: 5, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 6, fields[0] == Self.mark, fields[1] == key,
            let kind = fields[2].first, kind == "+" || fields[2] == "-",
            let groupsGzipped = next(), let groups = DeflatedPart.member(groupsGzipped, maximumLength: byteLimit)
        else { return nil }
        var kept = KeptPagePart(
            firstPhrase: kind == "+" ? String(fields[2].dropFirst()) : nil, pictureHTML: fields[3], groups: groups,
            groupsGzipped: groupsGzipped)
        if !fields[5].isEmpty {
            var pieces: [KeptPagePart.Piece] = []
            for kind in fields[5] {
                switch kind {
                case "t":
                    guard let text = next().flatMap({ DeflatedPart.member($0, maximumLength: byteLimit) }) else {
                        return nil
                    }
                    pieces.append(.text(text.part, crc: text.crc))
                case "a": pieces.append(.address)
                case "s": pieces.append(.stylesheet)
                case "g": pieces.append(.groups)
                default: return nil
                }
            }
            kept.page = (fields[4], pieces)
        }
        return rest.isEmpty ? kept : nil
    }

    /// What the gzip stream `gzipped` holds; nil if it does not inflate, or would inflate past
    /// ``byteLimit`` (its last four bytes, the length it declares, are checked first, and
    /// inflating stops at them).
    static func inflate(_ gzipped: Data) -> Data? {
        guard gzipped.count > 18 else { return nil }
        let length = gzipped.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        guard length <= Self.byteLimit,
            let inflated = try? Gzip.decompress(ByteBuffer(bytes: gzipped), length: length),
            inflated.readableBytes == length
        else { return nil }
        return Data(inflated.readableBytesView)
    }

    /// What a loop's page is rendered from beyond its part: the loop as listed (its title,
    /// author, featured mark, counts...) and its bundle's size. A page rendered ahead is used
    /// for a visit that reads the same.
    static func source(of loop: CatalogLoop, bundleBytes: Int) -> String? {
        guard let listed = try? CatalogJSON.loop(loop) else { return nil }
        return String(decoding: listed, as: UTF8.self) + " \(bundleBytes)"
    }

    init(firstPhrase: String?, pictureHTML: String, groupsHTML: String, page: PageAhead? = nil) {
        self.firstPhrase = firstPhrase
        self.pictureHTML = pictureHTML
        self.groupsHTML = groupsHTML
        self.page = page
    }
}

/// A loop's page rendered ahead, in pieces: its texts, and where the site's address (which
/// a request names), the stylesheet and the loop's groups go between them.
struct PageAhead: Equatable {
    /// What it was rendered from (``LoopPagePart/source(of:bundleBytes:)``).
    var source: String
    var pieces: [Piece]

    enum Piece: Equatable {
        case text(String)
        case address
        case stylesheet
        case groups

        /// Its letter in the kept part.
        var kind: Character {
            switch self {
            case .text: "t"
            case .address: "a"
            case .stylesheet: "s"
            case .groups: "g"
            }
        }
    }
}

/// A part as the catalog keeps it, read (``LoopPagePart/read(_:for:)``): its head, and its
/// groups and page as they are kept, deflated, with their CRC-32s: a page made of them is not
/// inflated.
struct KeptPagePart {
    var firstPhrase: String?
    var pictureHTML: String
    var groups: (part: DeflatedPart, crc: UInt32)
    /// The groups as kept, gzipped.
    var groupsGzipped: Data
    /// The page rendered ahead, from its source; nil if there is none.
    var page: (source: String, pieces: [Piece])?

    enum Piece {
        case text(DeflatedPart, crc: UInt32)
        case address
        case stylesheet
        case groups
    }

    init(
        firstPhrase: String?, pictureHTML: String, groups: (part: DeflatedPart, crc: UInt32), groupsGzipped: Data
    ) {
        self.firstPhrase = firstPhrase
        self.pictureHTML = pictureHTML
        self.groups = groups
        self.groupsGzipped = groupsGzipped
    }

    /// The part, its groups inflated (its page left out); nil if they do not inflate.
    func inflated() -> LoopPagePart? {
        guard let groupsText = LoopPagePart.inflate(groupsGzipped) else { return nil }
        return LoopPagePart(
            firstPhrase: firstPhrase, pictureHTML: pictureHTML, groupsHTML: String(decoding: groupsText, as: UTF8.self))
    }
}

extension WebTemplates {
    /// The part of the page of `loop` (published as `shortID`) that its revision alone decides,
    /// rendered from its stored content.
    func pagePart(
        _ content: LibraryServer.StoredContent, shortID: String, language: String?, translationLanguage: String?
    ) -> LoopPagePart {
        let lang = LibraryServer.languageTag(language)
        let translationLang = LibraryServer.languageTag(translationLanguage)
        var number = 0
        let groups = content.groups.enumerated().map { index, phrases in
            let first = number + 1
            let rows = phrases.map { phrase in
                number += 1
                var row = PhraseRowModel(
                    number: number, group: index, text: phrase.text, lang: lang, translationLang: translationLang)
                if let translation = phrase.translation, !translation.isEmpty { row.translation = translation }
                row.recordedAs = phrase.recordedText
                if let clip = phrase.clip {
                    row.clip = LoopLibraryPaths.clip(shortID, phrase: number)
                    row.duration = Int(((clip.end - clip.start) * 1_000_000).rounded())
                }
                if let pictures = content.pictures, pictures.phrases.indices.contains(number - 1) {
                    row.phrasePicture = LibraryServer.pictureModel(pictures.phrases[number - 1])
                }
                return row
            }
            var group = GroupModel(number: index + 1, index: index, first: first, phrases: rows)
            if let pictures = content.pictures, pictures.groups.indices.contains(index) {
                group.groupPicture = LibraryServer.pictureModel(pictures.groups[index])
            }
            return group
        }
        return LoopPagePart(
            firstPhrase: content.groups.first?.first?.text,
            pictureHTML: LibraryServer.pictureModel(content.pictures?.loop).map { render("loop-picture", $0) } ?? "",
            groupsHTML: render("loop-groups", LoopGroupsModel(groups: groups)))
    }

    /// The part of the page of `loop` as the catalog keeps it (``CatalogEntry/pagePart``),
    /// its whole page rendered ahead in it where that can be; nil if its content does not read
    /// or a field holds a NUL.
    public func storedPagePart(for loop: StoredLoop) -> Data? {
        let summary = loop.summary
        guard let content = try? LibraryServer.StoredContent.read(loop.content) else { return nil }
        var part = pagePart(
            content, shortID: summary.shortID, language: summary.language,
            translationLanguage: summary.translationLanguage)
        part.page = pageAhead(of: summary, part: part, bundleBytes: loop.bundleBytes)
        return part.stored(
            for: LoopPagePart.key(version: partVersion, revision: summary.revision, shortID: summary.shortID))
    }

    /// The page of `loop` rendered ahead, in pieces around the site's address, the stylesheet
    /// and the groups; nil where they cannot be told apart. (It is rendered for two addresses
    /// no text holds and cut at them: the pieces must be the same, so that a title holding one
    /// of them, or an address written other than as it is, leaves the page to render on its
    /// first visit.)
    func pageAhead(of loop: CatalogLoop, part: LoopPagePart, bundleBytes: Int) -> PageAhead? {
        guard let source = LoopPagePart.source(of: loop, bundleBytes: bundleBytes) else { return nil }
        let addresses = ["\u{E000}address\u{E001}", "\u{E002}site\u{E003}"]
        let cuts = addresses.map { address -> [PageAhead.Piece]? in
            let text = render(
                "loop", LibraryServer.loopPageModel(loop, part: part, bundleBytes: bundleBytes, base: address))
            return Self.pieces(of: text, address: address, groups: part.groupsHTML)
        }
        guard let pieces = cuts[0], pieces == cuts[1] else { return nil }
        return PageAhead(source: source, pieces: pieces)
    }

    /// `page` cut where `address` is, where its stylesheet goes (after its first `<style>`),
    /// and around `groups` (just before its last `</main>`); nil if it has no such place for
    /// the stylesheet or the groups.
    static func pieces(of page: String, address: String, groups: String) -> [PageAhead.Piece]? {
        let bytes = Data(page.utf8)
        guard let style = styleOffset(in: bytes), let run = range(of: Data(groups.utf8), beforeMainEnd: bytes),
            style <= run.lowerBound
        else { return nil }
        var pieces: [PageAhead.Piece] = []
        func add(_ slice: Data) {
            let texts = String(decoding: slice, as: UTF8.self).components(separatedBy: address)
            for (index, text) in texts.enumerated() {
                if index > 0 { pieces.append(.address) }
                if !text.isEmpty { pieces.append(.text(text)) }
            }
        }
        add(bytes[..<style])
        pieces.append(.stylesheet)
        add(bytes[style..<run.lowerBound])
        pieces.append(.groups)
        add(bytes[run.upperBound...])
        return pieces
    }

    /// A loop's page made from the part kept for it (`stored`, read as `kept`) for a visit at
    /// `base` whose source is `source`: deflated, with its length and ETag; nil if the part
    /// holds no page rendered ahead, or one from another source, or `base` would be written
    /// other than as it is.
    func page(
        _ kept: KeptPagePart, stored: Data, source: String?, base: String
    ) -> (deflated: DeflatedPage, length: Int, eTag: String)? {
        guard let page = kept.page, let source, page.source == source,
            MarkupEscaping.escape(base) == base
        else { return nil }
        let address = Data(base.utf8)
        let storedAddress = DeflatedPart(storing: address)
        var beforeStyle: [DeflatedPart] = []
        var afterStyle: [DeflatedPart] = []
        var crc: UInt32 = 0
        var styled = false
        for piece in page.pieces {
            let part: DeflatedPart
            switch piece {
            case .text(let text, let textCRC):
                part = text
                crc = Gzip.crc32(crc, followedBy: textCRC, length: text.length)
            case .address:
                part = storedAddress
                crc = Gzip.crc32(address, continuing: crc)
            case .groups:
                part = kept.groups.part
                crc = Gzip.crc32(crc, followedBy: kept.groups.crc, length: kept.groups.part.length)
            case .stylesheet:
                guard !styled else { return nil }
                styled = true
                crc = Gzip.crc32(crc, followedBy: stylesheetCRC, length: stylesheet.bytes.count)
                continue
            }
            if styled { afterStyle.append(part) } else { beforeStyle.append(part) }
        }
        guard styled else { return nil }
        let joined = DeflatedPage(
            beforeStyle: DeflatedPart(joining: beforeStyle), afterStyle: afterStyle, crc: crc)
        let length = (beforeStyle + afterStyle).reduce(stylesheet.bytes.count) { $0 + $1.length }
        // (Named by all it is made of: the part kept, the address, the stylesheet.)
        var hash = SHA256()
        hash.update(data: stored)
        hash.update(data: Data(("\0" + base + "\0" + stylesheet.eTag).utf8))
        return (joined, length, "\"" + Hex.string(hash.finalize().prefix(12)) + "\"")
    }

    /// Renders ahead the page part of every listed loop of `catalog` that has none these
    /// templates rendered for it as it is listed now (published before parts were kept, under
    /// other templates, or featured or renamed since), and keeps it; `progress` is told the
    /// loops looked at, of how many.
    public func renderPagesAhead(
        in catalog: any Catalog, progress: (_ done: Int, _ of: Int) -> Void = { _, _ in }
    ) async throws -> PagesRenderedAhead {
        var figures = PagesRenderedAhead()
        let ids = try await catalog.listedLoopIDs()
        for (index, id) in ids.enumerated() {
            defer { progress(index + 1, ids.count) }
            guard let stored = try await catalog.loop(id, now: Date()) else { continue } // unpublished since
            let loop = stored.summary
            let key = LoopPagePart.key(version: partVersion, revision: loop.revision, shortID: loop.shortID)
            if let kept = stored.pagePart.flatMap({ LoopPagePart.read($0, for: key) }),
                kept.page?.source == LoopPagePart.source(of: loop, bundleBytes: stored.bundleBytes)
            {
                figures.current += 1
                continue
            }
            guard let part = storedPagePart(for: stored) else {
                figures.unrendered += 1
                continue
            }
            if try await catalog.keepPagePart(part, id: loop.id, revision: loop.revision) { figures.rendered += 1 }
        }
        return figures
    }
}

/// What ``WebTemplates/renderPagesAhead(in:progress:)`` did.
public struct PagesRenderedAhead: Sendable, Codable, Equatable {
    /// Loops whose part it rendered and kept.
    public var rendered = 0
    /// Loops whose kept part these templates rendered for them as they are listed now.
    public var current = 0
    /// Loops whose content did not read, or whose text holds a NUL: their pages render from
    /// their content on each first visit.
    public var unrendered = 0
}

/// `loop-groups`: a loop's groups and phrases.
struct LoopGroupsModel: Encodable {
    var groups: [GroupModel]
}
