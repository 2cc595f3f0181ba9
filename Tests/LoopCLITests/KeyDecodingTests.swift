import Testing

@testable import LoopCLI
@testable import LoopTerminal

struct KeyDecodingTests {
    /// Every key of a burst, in order, as the views get them.
    func keys(_ text: String) -> [Key] {
        var bytes = Array(text.utf8)
        var keys: [Key] = []
        while let key = RawTerminal.nextKey(in: &bytes) { keys.append(key) }
        return keys
    }

    @Test func keysThatArriveTogetherAreAllKept() {
        #expect(keys("rq") == [.character("r"), .character("q")])
        #expect(keys("\u{1B}[C\u{1B}[A2!") == [.right, .up, .character("2"), .character("!")])
        #expect(keys("é+\u{3}") == [.character("é"), .character("+"), .interrupt])
    }

    @Test func otherSequencesAreDroppedWholeAndUnfinishedOnesWait() {
        #expect(
            keys("\u{1B}[1;2Cq\u{1B}[3~m") == [.character("q"), .character("m")],
            "shift+right and delete mean nothing here")
        #expect(keys("\u{1B}") == [.escape])
        var split = Array("a\u{1B}[".utf8)
        #expect(RawTerminal.nextKey(in: &split) == .character("a"))
        #expect(RawTerminal.nextKey(in: &split) == nil && split.count == 2, "the rest of the arrow is on its way")
        split += Array("D".utf8)
        #expect(RawTerminal.nextKey(in: &split) == .left)
        var halfCharacter: [UInt8] = [0xC3]
        #expect(RawTerminal.nextKey(in: &halfCharacter) == nil && halfCharacter == [0xC3])
    }
}
