import Foundation
import NIOCore
import Testing
import ZIPFoundation

@testable import LoopLibraryServer

/// gzip joined from parts deflated apart (a page's own text, the stylesheet deflated once), read back by the `gzip` tool, which checks the stream, its CRC and length.
struct GzipTests {
    /// What `gzip -dc` makes of `gzipped`, or nil if it finds the stream broken.
    static func gunzip(_ gzipped: Data) throws -> Data? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("page.gz")
        try gzipped.write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }

    /// Text like a page's: lines that repeat with small changes (what deflate finds matches in).
    static func pageText(_ seed: Int, lines: Int) -> Data {
        Data(
            (0..<lines).map {
                "<li data-group=\"\($0 % 7)\" data-duration=\"\(($0 * 7919 + seed) % 100_000)\">phrase \($0)</li>\n"
            }
            .joined().utf8)
    }

    @Test func partsDeflatedApartJoinIntoOneStreamThatGzipReads() throws {
        let stylesheet = Data("body { margin: 0 auto; max-width: 40rem } li { list-style: none }\n".utf8)
        let head = Self.pageText(1, lines: 3)
        let long = Self.pageText(2, lines: 3_000) // over 64 KB: blocks of its own
        let style = try #require(DeflatedPart(stylesheet, level: .best))
        let parts = try [head, Data(), long, head].map { try #require(DeflatedPart($0, level: .fast)) }
        let expected = head + stylesheet + long + stylesheet + head
        let gzipped = Gzip.join(
            [parts[0], style, parts[1], parts[2], style, parts[3]], crc: expected.crc32(checksum: 0))
        #expect(try Self.gunzip(Data(gzipped.readableBytesView)) == expected)
        #expect(
            gzipped.readableBytes * 4 < expected.count, "\(gzipped.readableBytes) bytes gzipped of \(expected.count)")
        // A stream of one part, and one of nothing, are streams too.
        #expect(try Self.gunzip(try #require(Gzip.compress(stylesheet))) == stylesheet)
        #expect(try Self.gunzip(Data(Gzip.join([], crc: 0).readableBytesView)) == Data())
    }

    /// Compressors are kept and used again: each page deflated, one after another and many at
    /// once, holds its own text and nothing of the page deflated before it.
    @Test func pagesDeflatedOneAfterAnotherAndAtOnceEachHoldTheirOwnText() async throws {
        let pages = (0..<24).map { Self.pageText($0, lines: 40 + $0 * 13) }
        let stylesheet = Data(String(repeating: "p { color: #222 }\n", count: 50).utf8)
        let style = try #require(DeflatedPart(stylesheet, level: .best))
        for page in pages {
            let before = try #require(DeflatedPart(page.prefix(100), level: .fast))
            let after = try #require(DeflatedPart(page.dropFirst(100), level: .fast))
            let whole = page.prefix(100) + stylesheet + page.dropFirst(100)
            let gzipped = Gzip.join([before, style, after], crc: whole.crc32(checksum: 0))
            #expect(try Self.gunzip(Data(gzipped.readableBytesView)) == whole)
        }
        let results = await withTaskGroup(of: (Int, DeflatedPart?).self) { group in
            for _ in 0..<4 {
                for (index, page) in pages.enumerated() { group.addTask { (index, DeflatedPart(page, level: .fast)) } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4 * pages.count)
        for (index, part) in results {
            let gzipped = Gzip.join([try #require(part)], crc: pages[index].crc32(checksum: 0))
            #expect(try Self.gunzip(Data(gzipped.readableBytesView)) == pages[index], "page \(index)")
        }
    }
}

/// A page as the server sends it to a browser: its own text deflated, the stylesheet joined in.
struct GzippedPageTests {
    /// `groups` as a loop's part keeps them deflated when it is published, read back.
    static func deflatedAhead(_ groups: String) throws -> DeflatedPart {
        let part = LoopPagePart(firstPhrase: "Bonjour.", pictureHTML: "", groupsHTML: groups)
        let kept = try #require(part.stored(for: "k"))
        return try #require(LoopPagePart.read(kept, for: "k")?.groups.part)
    }

    /// The CRC-32 read eight bytes a step is ZIPFoundation's, over every length around the
    /// step and continued from any split of the bytes.
    @Test func theCRCIsZIPFoundationsWhereverTheBytesAreSplit() {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<4_099).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for length in Array(0..<40) + [1_000, 4_096, 4_099] {
            let part = bytes.prefix(length)
            #expect(Gzip.crc32(part) == part.crc32(checksum: 0), "\(length) bytes")
        }
        for split in [0, 1, 7, 8, 9, 1_234, 4_099] {
            let joined = Gzip.crc32(bytes.dropFirst(split), continuing: Gzip.crc32(bytes.prefix(split)))
            #expect(joined == bytes.crc32(checksum: 0), "split at \(split)")
        }
    }

    /// A loop's page part as kept reads back only for what it was rendered for; bytes that are
    /// not a part, or that would inflate past its bound, read as no part.
    @Test func aPagePartReadsBackOnlyForWhatItWasRenderedFor() throws {
        let part = LoopPagePart(
            firstPhrase: "Bonjour, madame.", pictureHTML: "<img class=\"picture\">\n",
            groupsHTML: "<section class=\"group\">é 駅</section>\n")
        let key = LoopPagePart.key(version: "abc", revision: 3, shortID: "b7e6e2")
        let stored = try #require(part.stored(for: key))
        let read = try #require(LoopPagePart.read(stored, for: key))
        #expect(read.inflated() == part && read.page == nil)
        #expect(read.groups.part.length == part.groupsHTML.utf8.count)
        let none = LoopPagePart(firstPhrase: nil, pictureHTML: "", groupsHTML: "")
        let noneStored = try #require(none.stored(for: key))
        #expect(LoopPagePart.read(noneStored, for: key)?.inflated() == none)
        for other in [
            LoopPagePart.key(version: "abd", revision: 3, shortID: "b7e6e2"),
            LoopPagePart.key(version: "abc", revision: 4, shortID: "b7e6e2"),
            LoopPagePart.key(version: "abc", revision: 3, shortID: "b7e6e3"),
        ] {
            #expect(LoopPagePart.read(stored, for: other) == nil, "\(other)")
        }
        #expect(LoopPagePart(firstPhrase: "a\0b", pictureHTML: "", groupsHTML: "").stored(for: key) == nil)
        let huge = LoopPagePart(
            firstPhrase: nil, pictureHTML: "", groupsHTML: String(repeating: "a", count: LoopPagePart.byteLimit + 1))
        let hugeStored = try #require(huge.stored(for: key))
        #expect(LoopPagePart.read(hugeStored, for: key) == nil, "past its bound")
        var lying = stored
        lying.replaceSubrange(lying.count - 4..<lying.count, with: [0, 0, 0, 1])
        #expect(LoopPagePart.read(lying, for: key)?.inflated() == nil, "a length that lies")
        #expect(LoopPagePart.read(stored.prefix(stored.count - 3), for: key) == nil, "cut short")
        #expect(LoopPagePart.read(Data([0xff, 0xff, 0xff, 0xff]) + stored.dropFirst(4), for: key) == nil)
        #expect(LoopPagePart.read(Data("not a part".utf8), for: key) == nil)
    }

    /// A page gzipped with a run of it deflated already (a loop's phrases, rendered ahead) is
    /// the page, its stylesheet in; a run that is not where it says is deflated with the rest.
    @Test func aPageGzippedWithItsPhrasesDeflatedAheadIsThePage() throws {
        let folder = try #require(WebTemplates.locate(executable: #filePath), "Resources/web")
        let web = try WebTemplates(folder: folder)
        let groups = String(decoding: GzipTests.pageText(7, lines: 40), as: UTF8.self)
        let deflated = try Self.deflatedAhead(groups)
        let body = Data(
            ("<html><head><style></style></head><body><main><h1>Bonjour</h1>\n" + groups
                + "</main>\n<footer>Loop Library</footer></body></html>\n").utf8)
        let offset = WebTemplates.styleOffset(in: body)
        let range = try #require(WebTemplates.range(of: Data(groups.utf8), beforeMainEnd: body))
        #expect(body[range] == Data(groups.utf8))
        let page = try #require(web.deflate(body, at: offset, keeping: (range, deflated)))
        #expect(page.afterStyle?.count == 3)
        let expected = Data(web.withStylesheet(body, at: offset).readableBytesView)
        #expect(try GzipTests.gunzip(Data(web.gzipped(page).readableBytesView)) == expected)
        #expect(WebTemplates.range(of: Data("not there".utf8), beforeMainEnd: body) == nil)
    }

    /// Pages that open alike up to their stylesheet (every page of these templates), or end
    /// alike after their phrases (every loop's page), share those parts deflated once; pages
    /// that open otherwise (templates that write a loop's title there) still gzip to themselves.
    @Test func pagesThatOpenOrEndAlikeShareThosePartsAndEachGzipsToItself() throws {
        let folder = try #require(WebTemplates.locate(executable: #filePath), "Resources/web")
        let web = try WebTemplates(folder: folder)
        let groups = String(decoding: GzipTests.pageText(3, lines: 30), as: UTF8.self)
        let deflated = try Self.deflatedAhead(groups)
        let openings = ["<html><head><meta charset=\"utf-8\"><style>", "<html><head><title>Café 2</title><style>"]
        let endings = [
            "</main>\n<footer>Loop Library</footer></body></html>\n", "</main>\n<p>Hier</p></body></html>\n",
        ]
        for round in 0..<2 {
            for (number, opening) in (openings + [openings[0]]).enumerated() {
                for ending in endings {
                    let body = Data(
                        (opening + "</style></head><body><main><h1>Loop \(number) \(round)</h1>\n" + groups + ending)
                            .utf8)
                    let offset = WebTemplates.styleOffset(in: body)
                    let range = try #require(WebTemplates.range(of: Data(groups.utf8), beforeMainEnd: body))
                    let page = try #require(web.deflate(body, at: offset, keeping: (range, deflated)))
                    let expected = Data(web.withStylesheet(body, at: offset).readableBytesView)
                    #expect(try GzipTests.gunzip(Data(web.gzipped(page).readableBytesView)) == expected)
                }
            }
        }
        #expect(web.sharedOpenings.count == 2)
        #expect(web.sharedEndings.count == 2)
    }

    /// A part is made once for its bytes; one longer than a part kept, or made when the parts
    /// kept are as many as they may be, is made each time.
    @Test func sharedPartsAreMadeOnceForEachTextAndKeptBounded() {
        let parts = SharedParts<Int>()
        var made = 0
        let make = { (bytes: Data) -> Int? in
            made += 1
            return bytes.count
        }
        let short = Data("<html><head><style>".utf8)
        #expect(parts.part(short, make) == short.count)
        #expect(parts.part(Data(short), make) == short.count)
        #expect(made == 1)
        let long = Data(repeating: 0x61, count: SharedParts<Int>.longest + 1)
        #expect(parts.part(long, make) == long.count)
        #expect(parts.part(long, make) == long.count)
        #expect(made == 3)
        for number in 0..<(2 * SharedParts<Int>.most) { _ = parts.part(Data("opening \(number)".utf8), make) }
        #expect(parts.count == SharedParts<Int>.most)
        #expect(parts.part(short, make) == short.count)
        #expect(made == 3 + 2 * SharedParts<Int>.most)
    }

    @Test func aPageGzippedIsThePageWithItsStylesheetIn() throws {
        let folder = try #require(WebTemplates.locate(executable: #filePath), "Resources/web")
        let web = try WebTemplates(folder: folder)
        for body in [
            Data("<html><head><style></style></head><body><ol><li>Bonjour.</li></ol></body></html>\n".utf8),
            Data("<feed>no style here</feed>\n".utf8),
        ] {
            let offset = WebTemplates.styleOffset(in: body)
            let deflated = try #require(web.deflate(body, at: offset))
            let expected = Data(web.withStylesheet(body, at: offset).readableBytesView)
            #expect(try GzipTests.gunzip(Data(web.gzipped(deflated).readableBytesView)) == expected)
        }
    }
}
