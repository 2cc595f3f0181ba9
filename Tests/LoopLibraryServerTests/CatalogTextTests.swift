import Foundation
import Testing

@testable import LoopLibraryServer

/// What the catalogs keep of a loop, read back as it was written.
struct CatalogTextTests {
    /// A loop's tags come back from their JSON array whatever they hold: the hand reader takes
    /// the plain ones, the decoder the rest, and both give the tags written.
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
}
