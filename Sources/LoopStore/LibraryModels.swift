import Foundation
import LoopAudioFiles

/// A take cut into phrase ranges, ready to store.
public struct CutTake: Sendable {
    /// The take's file.
    public var path: String
    /// One range per phrase it is for, in order, in the take's frames.
    public var ranges: [Range<Int>]
    /// How sure the cutter was of each range's edges (0...1), when a cutter placed them.
    public var confidences: [Double]?
    /// The take's format, when the caller has read it already (so that storing it does not
    /// open the file again).
    public var info: AudioFileInfo?

    /// A cut take from its file and phrase ranges.
    public init(path: String, ranges: [Range<Int>], confidences: [Double]? = nil, info: AudioFileInfo? = nil) {
        self.path = path
        self.ranges = ranges
        self.confidences = confidences?.count == ranges.count ? confidences : nil
        self.info = info
    }

    /// How sure the cutter was of the edges of the range at `index`.
    func confidence(at index: Int) -> Double? { confidences.map { $0[index] } }
}

/// Text folded for matching: lower case, no diacritics, NFC.
func matchingKey(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        .precomposedStringWithCanonicalMapping
        .trimmingCharacters(in: .whitespaces)
}
