import Foundation

/// The part of a long text that a take reads (a chapter of a book): whole paragraphs, and the
/// heading it falls under.
public struct TextPart: Sendable, Equatable {
    /// The part as a text of its own: the paragraphs from the one the first line read is in to
    /// the one the last is in, with the whole text's metadata.
    public var source: LoopSource
    /// Where its phrases are in the whole text (0-based, phrase indices).
    public var phrases: Range<Int>
    /// The nearest heading at or above the part's first paragraph, when the text has one.
    public var heading: String?
}

extension LoopSource {
    /// The paragraphs holding `read` (phrase indices of the whole text, in range) as a text of
    /// their own, with the heading they fall under. A heading is a paragraph of one short line
    /// that does not end as a sentence does (``isHeading(_:)``).
    public func part(holding read: ClosedRange<Int>) -> TextPart {
        var starts: [Int] = []
        var count = 0
        for group in groups {
            starts.append(count)
            count += group.phrases.count
        }
        func group(holding phrase: Int) -> Int { (starts.lastIndex { $0 <= phrase }) ?? 0 }
        let first = group(holding: max(0, read.lowerBound))
        let last = group(holding: min(max(count - 1, 0), read.upperBound))
        var part = self
        part.groups = Array(groups[first...last])
        let end = last + 1 < starts.count ? starts[last + 1] : count
        let heading = groups[...first].last { Self.isHeading($0) }.map { $0.phrases[0].text }
        return TextPart(source: part, phrases: starts[first]..<end, heading: heading)
    }

    /// The indices of the phrases that are headings, each its paragraph's only phrase.
    public var headingPhrases: Set<Int> {
        var indices: Set<Int> = []
        var count = 0
        for group in groups {
            if Self.isHeading(group) { indices.insert(count) }
            count += group.phrases.count
        }
        return indices
    }

    /// The most words a heading holds ("Chapter Nine", "Part Two: The Return"): a longer line
    /// alone in its paragraph is taken for a sentence. Fewer misses a long chapter title; more
    /// takes a short paragraph of one unpunctuated line ("Yes") for one, which costs only the
    /// title.
    public static let headingWords = 8

    /// Whether `group` is a heading: a paragraph of one line of at most ``headingWords`` words
    /// that does not end as a sentence does (a full stop, a question or exclamation mark, an
    /// ellipsis, a closing quote, in any script).
    public static func isHeading(_ group: PhraseGroup) -> Bool {
        guard group.phrases.count == 1, let text = group.phrases.first?.text, let last = text.last else {
            return false
        }
        let words = text.split(whereSeparator: \.isWhitespace)
        return !words.isEmpty && words.count <= headingWords && !sentenceEnds.contains(last)
    }

    private static let sentenceEnds: Set<Character> = [
        ".", "!", "?", "…", "\"", "'", "”", "’", "»", "。", "！", "？", "؟", "।", ",", ";",
    ]
}
