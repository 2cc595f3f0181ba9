import Foundation
import LoopLibraryAPI
import Testing

@testable import LoopLibraryServer

/// What the catalogs keep of a loop, read back as it was written.
struct CatalogTextTests {
    /// A loop's tags come back from their JSON array whatever they hold: the hand reader takes
    /// the plain ones, the decoder the rest, and both give the tags written.
    /// A page of a list in Hot's order, read as its hot loops' part and the rest's, holds what
    /// the same page of the whole list holds, wherever it falls.
    @Test func hotPartsCutAPageAsTheWholeListWould() {
        let rest = (0..<30).map { "rest \($0)" }
        for hot in 0...8 {
            let downloaded = (0..<hot).map { "hot \($0)" }
            let whole = downloaded + rest
            for offset in 0...12 {
                for limit in 1...7 {
                    let parts = CatalogPage.hotParts(offset: offset, limit: limit, hot: hot)
                    let read =
                        (parts.hot.map { Array(downloaded.dropFirst($0.offset).prefix($0.limit)) } ?? [])
                        + (parts.rest.map { Array(rest.dropFirst($0.offset).prefix($0.limit)) } ?? [])
                    #expect(
                        read == Array(whole.dropFirst(offset).prefix(limit)),
                        "hot \(hot), offset \(offset), limit \(limit)")
                    #expect(parts.hot.map { $0.limit > 0 } ?? true && parts.rest.map { $0.limit > 0 } ?? true)
                }
            }
        }
    }

    /// A text all in ASCII, read byte by byte, is cut into the words the reading of any text
    /// gives: with a word beyond ASCII after it (read the other way), the same words and that one.
    @Test func anASCIITextHasTheWordsAnyTextWouldHave() {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let others = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...(Bool.random() ? 12 : 150))
            let text = String(
                (0..<length).map { _ in Int.random(in: 0..<4) == 0 ? others.randomElement()! : letters.randomElement()!
                })
            #expect(
                CatalogText.searchWords(text + " Üb") == CatalogText.searchWords(text) + ["ub"],
                "\(text.debugDescription)")
        }
        #expect(
            CatalogText.searchWords("Bonjour, MADAME-2x ^`~\t" + String(repeating: "A", count: 70))
                == ["bonjour", "madame", "2x", String(repeating: "a", count: 64)])
    }

    @Test func tagsReadBackAsWritten() throws {
        let tagSets: [[String]] = [
            [], [""], ["level 1"], ["level 1", "café", "駅"], ["a,b", "[x]", " spaced "], ["say \"hi\""],
            ["back\\slash"], ["a/b"], ["\u{301}mark first", "x\u{301}"], ["\u{600}", ","], ["tab\there", "line\nend"],
            ["\",\"", "\""], ["emoji 👩‍👩‍👧"],
        ]
        let plain = JSONEncoder()
        let unescapedSlashes = JSONEncoder()
        unescapedSlashes.outputFormatting = [.withoutEscapingSlashes]
        for tags in tagSets {
            for encoder in [plain, unescapedSlashes] {
                let json = String(decoding: try encoder.encode(tags), as: UTF8.self)
                #expect(try CatalogText.tags(fromJSON: json) == tags, "\(json)")
            }
        }
        #expect(throws: (any Error).self) { try CatalogText.tags(fromJSON: "[\"unclosed]") }
        #expect(throws: (any Error).self) { try CatalogText.tags(fromJSON: "{}") }
    }

    /// A loop's stored content (what its page shows) is read by the server's own JSON reader as
    /// `JSONDecoder` reads it, whatever its texts hold; what the reader refuses goes to the
    /// decoder, whose error is the one thrown.
    @Test func storedContentReadsBackAsWritten() throws {
        typealias Content = LibraryServer.StoredContent
        let texts = [
            "Bonjour, madame !", "say \"hi\" \\ back", "a/b </script>", "tab\there\nline", "駅まで", "emoji 👩‍👩‍👧",
            "\u{0}nul\u{1F}", "x\u{301}", "",
        ]
        let picture = BundleIntake.StoredPictures.Picture(blob: "ab.png", width: 640, height: 480)
        var phrases: [CatalogLoopDetail.Phrase] = []
        for (index, text) in texts.enumerated() {
            phrases.append(
                .init(
                    text: text, translation: index % 3 == 0 ? nil : texts.reversed()[index],
                    clip: index % 4 == 1
                        ? nil : .init(take: "t\(index)", start: Double(index) * 1.37, end: 1e-3 + Double(index)),
                    recordedText: index == 2 ? "the old text" : nil))
        }
        let take = CatalogLoopDetail.Take(
            sha256: "t0", bytes: 12_345_678, sampleRate: 44_100, channels: 2, frames: 1 << 40)
        let contents = [
            Content(groups: [Array(phrases.prefix(4)), Array(phrases.dropFirst(4))], takes: [take], pictures: nil),
            Content(
                groups: [phrases], takes: [take, take],
                pictures: .init(
                    loop: picture, groups: [nil], phrases: phrases.indices.map { $0 % 2 == 0 ? picture : nil })),
            Content(groups: [], takes: [], pictures: .init(loop: nil, groups: [], phrases: [])),
        ]
        let plain = JSONEncoder()
        for content in contents {
            for encoder in [CatalogText.encoder, plain] {
                let data = try encoder.encode(content)
                let read = try #require(Content(try JSONValue.read(data)), "\(String(decoding: data, as: UTF8.self))")
                #expect(try CatalogText.encoder.encode(read) == CatalogText.encoder.encode(content))
            }
        }
        // Escapes JSONEncoder does not write, whitespace, and numbers in every form.
        let handWritten = """
             { "groups" : [ [ { "text" : "caf\\u00e9 \\ud83d\\ude00 \\/ \\b\\f\\r",
              "clip" : { "take" : "t", "start" : -0.5E+1, "end" : 12.25e-1 }, "translation" : null } ] ],
              "takes" : [ ] }\t
            """
        let read = try #require(Content(try JSONValue.read(Data(handWritten.utf8))))
        #expect(read.groups[0][0].text == "café 😀 / \u{8}\u{C}\r")
        #expect(read.groups[0][0].clip == .init(take: "t", start: -5, end: 1.225))
        #expect(read.groups[0][0].translation == nil)
        // Not JSON, or not as the catalog writes it: the decoder's error.
        for malformed in [
            "", "{", "{\"groups\": []} x", "{\"groups\": [], \"takes\": [01]}", "[\"\\ud800\"]", "[\"a\u{1}\"]", "[1.]",
            "[tru]", "{\"groups\": [[{\"text\": 1}]], \"takes\": []}",
        ] {
            #expect(throws: (any Error).self, "\(malformed)") { try Content.read(Data(malformed.utf8)) }
        }
        #expect(throws: (any Error).self) { try JSONValue.read(Data("[\"\\ud800\"]".utf8)) }
        #expect(throws: (any Error).self) { try JSONValue.read(Data(String(repeating: "[", count: 100).utf8)) }
        // A frame count past what a Double holds exactly is not read as a different number.
        let huge = Data(
            #"{"groups":[],"takes":[{"sha256":"t","bytes":1,"sampleRate":1,"channels":1,"frames":9007199254740993}]}"#
                .utf8)
        #expect(Content(try JSONValue.read(huge)) == nil)
    }
}
