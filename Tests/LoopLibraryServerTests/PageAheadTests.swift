import Foundation
import LoopLibraryAPI
import NIOCore
import Testing
import ZIPFoundation

@testable import LoopLibraryServer

/// A loop's whole page rendered ahead when it is published, kept in pieces, and made from them
/// for each first visit without rendering or deflating: the page a visit would render, byte
/// for byte, at whatever address the visit names; and left to render while the loop is not
/// listed as it was.
struct PageAheadTests {
    static func loop(
        title: String = "Café de la gare", author: String? = "Élodie B", featured: Bool = false, downloads: Int = 0
    ) -> CatalogLoop {
        CatalogLoop(
            authored: CatalogLoop.Authored(
                id: "845385cc-5efe-4f88-a72b-1740142d0b4c", revision: 2,
                authorFingerprint: "3d21c8ea0864398c3031627a2dea93d0", title: title, language: "fr",
                translationLanguage: "en", tags: ["gare", "level 1"], groupCount: 1, phraseCount: 2, seconds: 4.5),
            shortID: "845385cc5e", author: author, published: "2026-11-06T19:09:53Z", updated: "2026-11-07T10:00:00Z",
            recentDownloads: downloads, featured: featured)
    }

    static let part = LoopPagePart(
        firstPhrase: "Bonjour, madame !", pictureHTML: "<img class=\"picture\" src=\"/blobs/ab.jpg\" alt=\"\">\n",
        groupsHTML: """
            <section class="group" aria-labelledby="group-1">
            <h2 id="group-1">Group 1</h2>
            <ol class="phrases" start="1">
            <li id="phrase-1"><p class="text" lang="fr">Bonjour, madame !</p></li>
            <li id="phrase-2"><p class="text" lang="fr">Où est la gare ?</p></li>
            </ol>
            </section>

            """)
    static let bundleBytes = 278_000

    static func templates() throws -> WebTemplates {
        try WebTemplates(folder: try #require(WebTemplates.locate(executable: #filePath), "Resources/web"))
    }

    /// `loop`'s part with its page rendered ahead, as the catalog keeps it and read back.
    static func kept(_ loop: CatalogLoop, _ web: WebTemplates) throws -> (stored: Data, kept: KeptPagePart) {
        var part = Self.part
        part.page = web.pageAhead(of: loop, part: part, bundleBytes: bundleBytes)
        #expect(part.page != nil, "\(loop.title)")
        let key = LoopPagePart.key(version: web.partVersion, revision: loop.revision, shortID: loop.shortID)
        let stored = try #require(part.stored(for: key))
        return (stored, try #require(LoopPagePart.read(stored, for: key)))
    }

    /// The page a visit at `base` renders, its stylesheet in.
    static func rendered(_ loop: CatalogLoop, _ web: WebTemplates, base: String) -> Data {
        let text = Data(
            web.render("loop", LibraryServer.loopPageModel(loop, part: part, bundleBytes: bundleBytes, base: base)).utf8
        )
        return Data(web.withStylesheet(text, at: WebTemplates.styleOffset(in: text)).readableBytesView)
    }

    @Test func aPageRenderedAheadIsThePageAVisitRendersAtAnyAddress() throws {
        let web = try Self.templates()
        for loop in [
            Self.loop(), Self.loop(title: "A & B <i>“q”</i> 駅 \u{E000}", author: nil),
            Self.loop(featured: true, downloads: 3),
        ] {
            let (stored, kept) = try Self.kept(loop, web)
            let source = LoopPagePart.source(of: loop, bundleBytes: Self.bundleBytes)
            var eTags: Set<String> = []
            for base in ["http://localhost", "http://127.0.0.1:8080", "http://[::1]:9", "https://loops.example.org"] {
                let made = try #require(web.page(kept, stored: stored, source: source, base: base), "\(base)")
                let expected = Self.rendered(loop, web, base: base)
                let gzipped = Data(web.gzipped(made.deflated).readableBytesView)
                #expect(try GzipTests.gunzip(gzipped) == expected, "\(loop.title) at \(base)")
                #expect(made.length == expected.count)
                eTags.insert(made.eTag)
            }
            #expect(eTags.count == 4, "an ETag for each address")
        }
    }

    /// A page rendered ahead for a loop listed otherwise since (featured, its author renamed,
    /// a download counted) is not used, nor at an address that markup would write otherwise;
    /// a title holding the very text the address is rendered as leaves no page ahead at all.
    @Test func aPageRenderedAheadIsLeftWhereItWouldNotBeThePage() throws {
        let web = try Self.templates()
        let loop = Self.loop()
        let (stored, kept) = try Self.kept(loop, web)
        for other in [Self.loop(featured: true), Self.loop(author: "Élodie"), Self.loop(downloads: 1)] {
            let source = LoopPagePart.source(of: other, bundleBytes: Self.bundleBytes)
            #expect(web.page(kept, stored: stored, source: source, base: "http://localhost") == nil)
        }
        let source = LoopPagePart.source(of: loop, bundleBytes: Self.bundleBytes)
        #expect(web.page(kept, stored: stored, source: source, base: "http://localhost") != nil)
        #expect(web.page(kept, stored: stored, source: source, base: "https://example.org/?a&b") == nil)
        let tricky = Self.loop(title: "Café \u{E000}address\u{E001}")
        #expect(web.pageAhead(of: tricky, part: Self.part, bundleBytes: Self.bundleBytes) == nil)
    }

    /// Two runs' CRC-32s give the CRC-32 of both, the second's bytes unread.
    @Test func twoCRCsMakeTheCRCOfBothRuns() {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<70_001).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for (first, second) in [(0, 0), (0, 9), (9, 0), (1, 1), (7, 8), (100, 1_000), (3, 70_000)] {
            let a = bytes.prefix(first)
            let b = bytes.dropFirst(first).prefix(second)
            #expect(
                Gzip.crc32(Gzip.crc32(a), followedBy: Gzip.crc32(b), length: b.count) == (a + b).crc32(checksum: 0),
                "\(first) then \(second)")
        }
    }

    /// Bytes stored as they are (past a stored block's 65,535) join deflated parts.
    @Test func bytesStoredAsTheyAreJoinDeflatedParts() throws {
        let text = GzipTests.pageText(5, lines: 30)
        let address = Data(repeating: 0x61, count: 70_000)
        let parts = [
            try #require(DeflatedPart(text, level: .fast)), DeflatedPart(storing: address),
            DeflatedPart(storing: Data()), try #require(DeflatedPart(text, level: .fast)),
        ]
        let whole = text + address + text
        let gzipped = Gzip.join([DeflatedPart(joining: parts)], crc: whole.crc32(checksum: 0))
        #expect(try GzipTests.gunzip(Data(gzipped.readableBytesView)) == whole)
    }
}
