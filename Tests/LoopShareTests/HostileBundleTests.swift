import Foundation
import LoopShare
import LoopStore
import LoopTestSupport
import Testing

/// Bundles whose content is signed but hostile or inconsistent: each is refused by the reader,
/// with a clear reason, before anything reaches a library.
struct HostileBundleContentTests {
    /// The fixture bundle with its first loop changed by `edit`, signed again.
    func withLoop(_ edit: @escaping (inout [String: Any]) -> Void) throws -> String {
        let (_, identity, _, bundle) = try exportedBundle()
        return try resigned(bundle, by: identity) { manifest in
            var loops = manifest["loops"] as! [[String: Any]]
            edit(&loops[0])
            manifest["loops"] = loops
        }
    }

    /// Changes the text of group `g`, phrase `p`.
    func phrase(_ g: Int, _ p: Int, _ edit: @escaping (inout [String: Any]) -> Void) -> (inout [String: Any]) -> Void {
        { loop in
            var groups = loop["groups"] as! [[String: Any]]
            var phrases = groups[g]["phrases"] as! [[String: Any]]
            edit(&phrases[p])
            groups[g]["phrases"] = phrases
            loop["groups"] = groups
        }
    }

    @Test func aLoopIdThatIsNotALowercaseUUIDIsRefused() throws {
        for id in [
            "x/../../pwn", "../../etc", "FE0DBD52-0000-0000-0000-000000000000", "fe0dbd52 0000 0000 0000 000000000000",
            "",
        ] {
            expectRefused(
                try withLoop { $0["id"] = id }, .badManifest,
                containing: "a loop id is not one loop makes (a lowercase UUID)")
        }
    }

    /// A bundle from anyone names its loop's language: a path into the synthesizer's data
    /// folder (which a learner's next `loop attach` would hand it) is refused on import.
    @Test func aLanguageThatIsNotACodeIsRefused() throws {
        for language in ["../../../../etc/passwd", "fr+" + String(repeating: "a", count: 60), "/dev/zero"] {
            expectRefused(
                try withLoop { $0["language"] = language }, .badManifest,
                containing: "its language is not a language code")
            expectRefused(
                try withLoop { $0["translationLanguage"] = language }, .badManifest,
                containing: "its translationLanguage is not a language code")
        }
    }

    @Test func controlCharactersAndNULInAnyTextAreRefused() throws {
        expectRefused(
            try withLoop { $0["title"] = "evil\u{1B}]0;pwned\u{7}" }, .badManifest,
            containing: "its title holds the control character U+001B (ESC)")
        expectRefused(
            try withLoop { $0["tags"] = ["ok", "\u{1B}[2J"] }, .badManifest,
            containing: "its tag holds the control character U+001B")
        expectRefused(
            try withLoop(phrase(0, 0) { $0["text"] = "Bon\u{0}jour, madame." }), .badManifest,
            containing: "its group 1 phrase 1 holds a NUL character")
        expectRefused(
            try withLoop(phrase(1, 0) { $0["translation"] = "a\u{9B}31m" }), .badManifest,
            containing: "group 2 phrase 1 translation holds the control character U+009B")
        expectRefused(
            try withLoop { $0["sourceText"] = "Bonjour.\n\u{1B}[2J\n" }, .badManifest,
            containing: "line 2 of its text holds the control character U+001B")
        expectRefused(try withLoop { $0["title"] = "nul\u{0}title" }, .badManifest, containing: "holds a NUL character")
    }

    /// The author's name is shown to whoever imports the bundle: only a name a library gives.
    @Test func anAuthorNameThatIsNotANameIsRefused() throws {
        let (_, identity, _, bundle) = try exportedBundle()
        for name in ["Ana\u{1B}[2J", String(repeating: "a", count: 41), "", "../x"] {
            expectRefused(
                try resigned(bundle, by: identity) {
                    $0["version"] = 4
                    $0["authorName"] = name
                }, .badManifest,
                containing: "the author's name")
        }
        // A name in a bundle of version 3 is a field that version does not define.
        expectRefused(
            try resigned(bundle, by: identity) {
                $0["version"] = 3
                $0["authorName"] = "Ana Test"
            }, .badManifest,
            containing: "authorName")
    }

    @Test func revisionsOutsideTheirRangeAreRefused() throws {
        for revision in [Int.max, 0, -4, 1_000_000_001] {
            expectRefused(
                try withLoop { $0["revision"] = revision }, .badManifest,
                containing: "revisions run from 1 to 1000000000")
        }
    }

    @Test func theSameLoopTwiceIsRefusedClearly() throws {
        let (_, identity, _, bundle) = try exportedBundle()
        let doubled = try resigned(bundle, by: identity) { manifest in
            let loops = manifest["loops"] as! [[String: Any]]
            manifest["loops"] = loops + loops
        }
        expectRefused(
            doubled, .badManifest,
            containing:
                "the bundle holds loop \((try BundleReader().read(bundle, extractingTo: scratch())).manifest.loops[0].id) twice"
        )
    }

    /// Found by the manifest fuzzer: a key given twice, read one way by the checks and the other
    /// by the decoder.
    @Test func aFormatOrVersionGivenTwiceIsRefused() throws {
        let manifest =
            #"{"audio":[],"authorKey":"k","created":"c","format":"%@","format":"%@","loops":[],"version":%@,"version":%@}"#
        for (formats, versions) in [
            (("elsewhere", "looplearn-bundle"), ("1", "1")), (("looplearn-bundle", "elsewhere"), ("1", "1")),
            (("looplearn-bundle", "looplearn-bundle"), ("1", "2")),
            (("looplearn-bundle", "looplearn-bundle"), ("2", "1")),
        ] {
            let json = String(format: manifest, formats.0, formats.1, versions.0, versions.1)
            #expect(throws: ShareError.self) { try BundleManifest.decode(Data(json.utf8)) }
        }
    }

    @Test func aTextThatDisagreesWithItsPhrasesIsRefused() throws {
        expectRefused(
            try withLoop { $0["sourceText"] = "Un seul." }, .badManifest,
            containing: "its text has 1 phrases in 1 groups, its phrase list 5 in 2")
        expectRefused(
            try withLoop(phrase(0, 2) { $0["text"] = "Merci beaucoup." }), .badManifest,
            containing: "its text and its phrase list differ")
        expectRefused(try withLoop { $0["sourceText"] = "" }, .badManifest, containing: "its text does not parse")
    }

    @Test func aBundleBeyondTheFormatsLimitsIsRefusedQuickly() throws {
        // 100,000 phrases in a few hundred kilobytes: refused by count, before any other work.
        let many = try withLoop { loop in
            loop["groups"] = [["phrases": (0..<100_000).map { ["text": "p\($0)"] }]]
        }
        expectRefused(many, .tooLarge, containing: "the bundle holds 100000 phrases; the format allows 20000")
        expectRefused(
            try withLoop { $0["title"] = String(repeating: "x", count: 5_000) }, .tooLarge,
            containing: "its title is longer than 4000 characters")
    }

    @Test func audioSizesThatWouldOverflowAreRefused() throws {
        let (_, identity, _, bundle) = try exportedBundle()
        let huge = try resigned(bundle, by: identity) { manifest in
            var audio = manifest["audio"] as! [[String: Any]]
            audio[0]["bytes"] = Int.max
            manifest["audio"] =
                audio
                + audio.map {
                    var copy = $0
                    copy["file"] = "audio/" + String(repeating: "0", count: 64) + ".flac"
                    copy["sha256"] = String(repeating: "0", count: 64)
                    return copy
                }
        }
        expectRefused(huge, .tooLarge, containing: "is larger than 8 GiB")
    }

    @Test func anArchiveWithAWrongCRCIsReportedAsDamaged() throws {
        let (_, _, _, bundle) = try exportedBundle()
        // The local header's CRC-32 of the first audio entry (stored, not deflated), flipped.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        let name = Data("audio/".utf8)
        let header = Data([0x50, 0x4B, 0x03, 0x04])
        var offset = 0
        var found: Int?
        while let range = bytes.range(of: header, in: offset..<bytes.count) {
            let nameLength = Int(bytes[range.lowerBound + 26]) | Int(bytes[range.lowerBound + 27]) << 8
            if bytes[(range.lowerBound + 30)..<(range.lowerBound + 30 + min(nameLength, name.count))] == name {
                found = range.lowerBound
                break
            }
            offset = range.upperBound
        }
        let local = try #require(found)
        bytes[local + 14] ^= 0xFF
        // The central directory's copy too, so that the archive is self-consistent but wrong.
        let central = Data([0x50, 0x4B, 0x01, 0x02])
        offset = 0
        while let range = bytes.range(of: central, in: offset..<bytes.count) {
            let nameLength = Int(bytes[range.lowerBound + 28]) | Int(bytes[range.lowerBound + 29]) << 8
            if bytes[(range.lowerBound + 46)..<(range.lowerBound + 46 + min(nameLength, name.count))] == name {
                bytes[range.lowerBound + 16] ^= 0xFF
                break
            }
            offset = range.upperBound
        }
        let damaged = scratch() + ".loop"
        try bytes.write(to: URL(fileURLWithPath: damaged))
        expectRefused(damaged, .corrupt, containing: "fails its CRC-32 check")
    }
}
