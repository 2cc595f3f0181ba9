import Foundation
import LoopTestSupport
import LoopText

@testable import LoopStore

extension Fixture {
    static var source: LoopSource { get throws { try LoopSource(contentsOf: path("phrases.txt")) } }
}

/// A new, empty library folder.
func temporaryLibraryFolder() -> String {
    Scratch.path("library")
}

/// The clean fixture's phrase ranges (one per phrase, in 16 kHz frames), from its truth.
let cleanTakeRanges: [Range<Int>] = [
    6_080..<26_600, 35_200..<59_900, 63_900..<72_600, 88_900..<117_500, 123_400..<147_400,
]
