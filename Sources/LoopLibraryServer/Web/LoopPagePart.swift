import Crypto
import Foundation
import LoopFoundation
import LoopLibraryAPI
import NIOCore

/// The part of a loop's page that its published revision alone decides: its picture, its
/// groups and phrases (with their clips and pictures), and the first phrase its description
/// quotes. Rendered once, when the loop is published, and kept in the catalog beside its
/// content (``CatalogEntry/pagePart``), so a page's first visit renders only the rest (the
/// head, the card, the install line), not every phrase: reading the content and rendering its
/// phrases was a third of a first visit's time.
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

    private static let mark = "loop-page-part"
    /// The most bytes a kept part may inflate to (a loop's text is bounded well below it).
    static let byteLimit = 16 << 20

    /// What a part is rendered for: the templates' version, the loop's revision and short id.
    static func key(version: String, revision: Int, shortID: String) -> String {
        "\(version) \(revision) \(shortID)"
    }

    /// The part as the catalog keeps it, rendered for `key`: the length of its head (4 bytes,
    /// big-endian), its head gzipped (the mark, `key`, the first phrase, the picture), then its
    /// groups gzipped on their own, so that their deflated blocks join a gzipped page as they
    /// are. Nil if a field holds a NUL (the fields' separator; such a loop renders its page from
    /// its content on each first visit).
    func stored(for key: String) -> Data? {
        let fields = [Self.mark, key, firstPhrase.map { "+" + $0 } ?? "-", pictureHTML]
        guard !(fields + [groupsHTML]).contains(where: { $0.utf8.contains(0) }),
            let head = Gzip.compress(Data(fields.joined(separator: "\0").utf8)),
            let groups = Gzip.compress(Data(groupsHTML.utf8))
        else { return nil }
        return Data((0..<4).map { UInt8(truncatingIfNeeded: head.count >> (24 - 8 * $0)) }) + head + groups
    }

    /// The part `stored` holds, with its groups' deflated blocks, if it was rendered for `key`;
    /// nil if not, or if it is not a part as ``stored(for:)`` writes one.
    static func read(_ stored: Data, for key: String) -> (part: LoopPagePart, deflatedGroups: DeflatedPart?)? {
        guard stored.count > 4 else { return nil }
        let headLength = stored.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        guard headLength <= stored.count - 4 else { return nil }
        let head = stored.dropFirst(4).prefix(headLength), groups = stored.dropFirst(4 + headLength)
        guard let headText = inflate(head), let groupsText = inflate(groups) else { return nil }
        let fields = headText.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 4, fields[0] == Self.mark, fields[1] == key,
            let kind = fields[2].first, kind == "+" || fields[2] == "-"
        else { return nil }
        let part = LoopPagePart(
            firstPhrase: kind == "+" ? String(fields[2].dropFirst()) : nil, pictureHTML: fields[3],
            groupsHTML: String(decoding: groupsText, as: UTF8.self))
        return (part, DeflatedPart(blocksOf: groups, length: groupsText.count))
    }

    /// What the gzip stream `gzipped` holds; nil if it does not inflate, or would inflate past
    /// ``byteLimit`` (its last four bytes, the length it declares, are checked first, and
    /// inflating stops at them).
    private static func inflate(_ gzipped: Data) -> Data? {
        guard gzipped.count > 18 else { return nil }
        let length = gzipped.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        guard length <= Self.byteLimit,
            let inflated = try? Gzip.decompress(ByteBuffer(bytes: gzipped), length: length),
            inflated.readableBytes == length
        else { return nil }
        return Data(inflated.readableBytesView)
    }

    init(firstPhrase: String?, pictureHTML: String, groupsHTML: String) {
        self.firstPhrase = firstPhrase
        self.pictureHTML = pictureHTML
        self.groupsHTML = groupsHTML
    }
}

extension WebTemplates {
    /// The templates a ``LoopPagePart`` is rendered by.
    static let partTemplates = ["loop-picture", "loop-groups"]

    /// The part of the page of `loop` (published as `shortID`) that its revision alone decides,
    /// rendered from its stored content.
    func pagePart(
        _ content: LibraryServer.StoredContent, shortID: String, language: String?, translationLanguage: String?
    ) -> LoopPagePart {
        let lang = LibraryServer.languageTag(language), translationLang = LibraryServer.languageTag(translationLanguage)
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

    /// The part of the page of the loop `entry` publishes as `shortID`, as the catalog keeps
    /// it (``CatalogEntry/pagePart``); nil if its content does not read or a field holds a NUL.
    public func storedPagePart(for entry: CatalogEntry, shortID: String) -> Data? {
        storedPagePart(
            content: entry.content, revision: entry.revision, shortID: shortID, language: entry.language,
            translationLanguage: entry.translationLanguage)
    }

    private func storedPagePart(
        content: Data, revision: Int, shortID: String, language: String?, translationLanguage: String?
    ) -> Data? {
        guard let content = try? LibraryServer.StoredContent.read(content) else { return nil }
        return pagePart(content, shortID: shortID, language: language, translationLanguage: translationLanguage)
            .stored(for: LoopPagePart.key(version: partVersion, revision: revision, shortID: shortID))
    }

    /// Renders ahead the page part of every listed loop of `catalog` that has none these
    /// templates rendered for its revision (published before parts were kept, or under other
    /// templates), and keeps it; `progress` is told the loops looked at, of how many.
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
            if let kept = stored.pagePart, LoopPagePart.read(kept, for: key) != nil {
                figures.current += 1
                continue
            }
            guard
                let part = storedPagePart(
                    content: stored.content, revision: loop.revision, shortID: loop.shortID, language: loop.language,
                    translationLanguage: loop.translationLanguage)
            else {
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
    /// Loops whose kept part these templates rendered for their revision already.
    public var current = 0
    /// Loops whose content did not read, or whose text holds a NUL: their pages render from
    /// their content on each first visit.
    public var unrendered = 0
}

/// `loop-groups`: a loop's groups and phrases.
struct LoopGroupsModel: Encodable {
    var groups: [GroupModel]
}
