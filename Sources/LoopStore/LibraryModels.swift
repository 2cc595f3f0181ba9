import Foundation

/// A take cut into phrase ranges, ready to store.
public struct CutTake: Sendable {
    public var path: String
    /// One range per phrase it is for, in order, in the take's frames.
    public var ranges: [Range<Int>]

    public init(path: String, ranges: [Range<Int>]) {
        self.path = path
        self.ranges = ranges
    }
}

/// Text folded for matching: lower case, no diacritics, NFC.
func matchingKey(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        .precomposedStringWithCanonicalMapping
        .trimmingCharacters(in: .whitespaces)
}
