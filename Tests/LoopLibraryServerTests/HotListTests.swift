import Foundation
import Testing

@testable import LoopLibraryServer

/// A hot loop kept holds a search's word where SQLite's `instr` finds it in its words.
struct HotListTests {
    /// A list whose words pass the bound is not kept (each search then reads it): its reading
    /// stops there.
    @Test func aListWhoseWordsPassTheBoundIsNotKept() {
        var list = HotList.Reading()
        let words = String(repeating: "mot ", count: 256 << 10) // 1 MiB
        var added = 0
        while list.add(position: Int64(added), recent: 1, title: "titre", rest: words) { added += 1 }
        #expect(
            added * words.utf8.count <= HotList.byteLimit && (added + 1) * (words.utf8.count + 1) > HotList.byteLimit
                && list.loops == nil, "\(added)")
        var small = HotList.Reading()
        let kept = small.add(position: 1, recent: 2, title: "titre", rest: words)
        #expect(kept)
        #expect(small.loops?.map(\.position) == [1] && small.loops?.first?.words.count == words.utf8.count + 7)
    }

    @Test func aKeptLoopHoldsEveryStartAskedWhereItsBytesAre() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = [" ", "a", "b", "é", "ab", " a"].map { Array($0.utf8) }
        func text(_ count: ClosedRange<Int>) -> [UInt8] {
            (0..<Int.random(in: count, using: &generator)).flatMap { _ in alphabet.randomElement(using: &generator)! }
        }
        /// Whether `needle` is in `text`, byte after byte: what `instr` answers.
        func naive(_ needle: [UInt8], _ text: [UInt8]) -> Bool {
            needle.isEmpty
                || (0..<max(0, text.count - needle.count + 1)).contains {
                    Array(text[$0..<($0 + needle.count)]) == needle
                }
        }
        var found = 0
        for _ in 0..<20_000 {
            let words = text(0...12)
            let starts = (0..<Int.random(in: 1...2, using: &generator)).map { _ in Array(" ".utf8) + text(0...3) }
            let expected = starts.allSatisfy { naive($0, words) }
            #expect(HotList.Loop.holds(words, starts) == expected, "\(starts) in \(words)")
            if expected { found += 1 }
        }
        #expect(found > 1_000 && found < 19_000, "both answers asked often: \(found)")
    }
}
