/// Whether a text can be what a take reads, told from their lengths alone, before the text is
/// rendered: a text far longer than the take is refused at once, in bounded time and memory,
/// rather than rendered and aligned to be refused (or cut into slivers).
enum TextFit {
    /// How many times the take's length the text may take at least to read: a take may read a
    /// part of its text (the first lines, one group, a chapter of its book: ``TakeLocator``),
    /// never a sliver of it too small to be found (a few seconds against a book).
    static let longestRatio = 200.0
    /// ...plus this, so that a short take of a few lines of a text is not refused.
    static let slack = 60.0

    /// The least time `phrases` take to read aloud, in seconds, counted from their characters
    /// at a fast reading pace: 20 letters a second in alphabetic scripts, 10 characters a second
    /// in syllabic and ideographic ones (kana, hangul, CJK), a digit as a syllable.
    static func shortestReading(_ phrases: [String]) -> Double {
        // Counted in twentieths of a second: a letter is one, a syllable two.
        var twentieths = 0
        for phrase in phrases {
            for scalar in phrase.unicodeScalars {
                if isSyllabic(scalar) || ("0"..."9").contains(scalar) {
                    twentieths += 2
                } else if scalar.properties.isAlphabetic {
                    twentieths += 1
                }
            }
        }
        return Double(twentieths) / 20
    }

    /// Why `phrases` cannot be what a take of `takeSeconds` reads, or nil when they can.
    static func refusal(_ phrases: [String], takeSeconds: Double) -> String? {
        let shortest = shortestReading(phrases)
        guard shortest > takeSeconds * longestRatio + slack else { return nil }
        return
            "the text is far longer than the take: its \(phrases.count) phrases take at least \(duration(shortest)) to read aloud, the take \(duration(takeSeconds))"
    }

    private static func isSyllabic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0x20000...0x2FFFF:
            true
        default: false
        }
    }

    /// `2 h 13 min`, `4 min 10 s`, `9.5 s`.
    static func duration(_ seconds: Double) -> String {
        if seconds >= 3600 { return "\(Int(seconds) / 3600) h \(Int(seconds) % 3600 / 60) min" }
        if seconds >= 60 { return "\(Int(seconds) / 60) min \(Int(seconds) % 60) s" }
        return "\((seconds * 10).rounded() / 10) s"
    }
}
