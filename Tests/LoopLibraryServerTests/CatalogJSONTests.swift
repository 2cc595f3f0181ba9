import Foundation
import LoopLibraryAPI
import Testing

@testable import LoopLibraryServer

/// The catalog's lists written by hand are the bytes Foundation's encoder writes for them.
struct CatalogJSONTests {
    /// Text with every control, quotes, backslashes, slashes, and letters from beyond ASCII.
    static func text(_ generator: inout some RandomNumberGenerator) -> String {
        let pieces = ["\"", "\\", "/", "é", "漢", "😀", "\u{2028}", "\u{7F}", "a", "Bonjour, madame", " ", "</script>"]
        var text = ""
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            if Bool.random(using: &generator) {
                text.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0..<0x20, using: &generator)))
            } else {
                text += pieces.randomElement(using: &generator)!
            }
        }
        return text
    }

    static func seconds(_ generator: inout some RandomNumberGenerator) -> Double {
        [
            0, -0.0, 3, 14.54, 0.1, 1e-7, 2.5e-5, 1e15, 1e16, 1e21, 123_456_789_012_345_680, .leastNonzeroMagnitude,
            Double.random(in: 0..<100_000, using: &generator), Double(Int.random(in: 0..<10_000, using: &generator)),
        ].randomElement(using: &generator)!
    }

    static func loop(_ generator: inout some RandomNumberGenerator) -> CatalogLoop {
        func maybe(_ value: String) -> String? { Bool.random(using: &generator) ? value : nil }
        return CatalogLoop(
            authored: CatalogLoop.Authored(
                id: text(&generator), revision: Int.random(in: 0...Int.max, using: &generator),
                authorFingerprint: text(&generator), title: text(&generator), language: maybe(text(&generator)),
                translationLanguage: maybe(text(&generator)),
                tags: (0..<Int.random(in: 0...3, using: &generator)).map { _ in text(&generator) },
                groupCount: Int.random(in: -3...300, using: &generator),
                phraseCount: Int.random(in: 0...3000, using: &generator), seconds: seconds(&generator)),
            shortID: text(&generator), author: maybe(text(&generator)), published: text(&generator),
            updated: text(&generator), recentDownloads: Int.random(in: 0...1_000_000, using: &generator),
            featured: Bool.random(using: &generator))
    }

    @Test func listsAndSummariesAreTheBytesFoundationsEncoderWrites() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let loops = (0..<Int.random(in: 0...4)).map { _ in Self.loop(&generator) }
            let page = CatalogPage(
                loops: loops, total: Int.random(in: 0...1000), offset: Int.random(in: 0...100),
                limit: Int.random(in: 1...100), totalIsLowerBound: [nil, true, false].randomElement()!)
            let expected = try CatalogText.encoder.encode(page)
            #expect(try CatalogJSON.page(page) == expected, "\(String(decoding: expected, as: UTF8.self))")
            let front = FrontPage(latest: loops, hot: loops.reversed(), featured: Array(loops.prefix(1)))
            let expectedFront = try CatalogText.encoder.encode(front)
            #expect(try CatalogJSON.front(front) == expectedFront)
            for loop in loops {
                let expectedLoop = try CatalogText.encoder.encode(loop)
                #expect(try CatalogJSON.loop(loop) == expectedLoop)
            }
        }
    }

    @Test func aNumberThatIsNotFiniteIsRefusedAsFoundationsEncoderRefusesIt() throws {
        var generator = SystemRandomNumberGenerator()
        var loop = Self.loop(&generator)
        for seconds in [Double.nan, .infinity, -.infinity] {
            loop.seconds = seconds
            #expect(throws: EncodingError.self) { try CatalogJSON.loop(loop) }
            #expect(throws: EncodingError.self) { try CatalogText.encoder.encode(loop) }
        }
    }
}
