import Foundation

/// Splits a line of text into sentences.
///
/// - Latin, Cyrillic, Greek and similar scripts: a sentence ends at `.`, `!`, `?` or `…` (and
///   runs of them, like `?!` or `...`), followed by white space. Closing quotes and brackets
///   stay with their sentence. Common abbreviations (`Dr.`, `e.g.`, `etc.`, `Sra.`, `z.B.`),
///   initials (`J. K.`), and a full stop followed by a lower-case word are not ends; decimal
///   numbers (`3.5`) never are, as no space follows their point. In German a number followed
///   by a full stop is an ordinal (`am 3. Oktober`). Spanish `¿` and `¡` open the next sentence.
/// - Chinese and Japanese: `。`, `！`, `？` end a sentence with or without a space after them.
public struct SentenceSplitter: Sendable {
    /// A splitter (it holds no state).
    public init() {}

    /// Sentences of `text`, trimmed, in order; the text itself when it is one sentence.
    public func split(_ text: String, language: String? = nil) -> [String] {
        let characters = Array(text)
        let isGerman = language.map { $0.lowercased().hasPrefix("de") } ?? false
        var sentences: [String] = []
        var start = 0
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let fullWidth = Self.fullWidthTerminals.contains(character)
            guard fullWidth || Self.terminals.contains(character) else {
                index += 1
                continue
            }
            // The run of terminal marks, then closing quotes and brackets.
            var end = index + 1
            while end < characters.count,
                Self.terminals.contains(characters[end]) || Self.fullWidthTerminals.contains(characters[end])
            { end += 1 }
            while end < characters.count, Self.closers.contains(characters[end]) { end += 1 }
            // French spacing: « Non. » puts a space before the closing mark.
            var spaced = end
            while spaced < characters.count, characters[spaced].isWhitespace { spaced += 1 }
            if spaced > end, spaced < characters.count, Self.spacedClosers.contains(characters[spaced]) {
                end = spaced + 1
                while end < characters.count, Self.closers.contains(characters[end]) { end += 1 }
            }
            let atEnd = end >= characters.count
            if fullWidth {
                if !atEnd {
                    append(characters[start..<end], to: &sentences)
                    start = end
                }
                index = end
                continue
            }
            guard !atEnd, characters[end].isWhitespace else {
                index = end
                continue
            }
            var next = end
            while next < characters.count, characters[next].isWhitespace { next += 1 }
            if next < characters.count,
                isSentenceEnd(characters, markAt: index, markRunEnd: end, nextAt: next, isGerman: isGerman)
            {
                append(characters[start..<end], to: &sentences)
                start = next
            }
            index = next
        }
        append(characters[start..<characters.count], to: &sentences)
        return sentences.isEmpty ? [text] : sentences
    }

    private func isSentenceEnd(
        _ characters: [Character], markAt mark: Int, markRunEnd: Int, nextAt next: Int, isGerman: Bool
    ) -> Bool {
        let following = characters[next]
        if following.isLowercase { return false }
        // Only a lone full stop can belong to an abbreviation, an initial or an ordinal.
        guard characters[mark] == ".", markRunEnd == mark + 1 || !Self.terminals.contains(characters[mark + 1]) else {
            return true
        }
        var wordStart = mark
        while wordStart > 0, !characters[wordStart - 1].isWhitespace, !Self.openers.contains(characters[wordStart - 1])
        { wordStart -= 1 }
        let word = String(characters[wordStart..<mark])
        if word.isEmpty { return true }
        if word.count == 1, word.first?.isUppercase == true { return false } // initials: J. K. Rowling
        if word.contains(".") { return false } // e.g. / U.S. / z.B.
        if Self.abbreviations.contains(word.lowercased()) { return false }
        if isGerman, word.allSatisfy(\.isNumber) { return false } // am 3. Oktober
        return true
    }

    private func append(_ slice: ArraySlice<Character>, to sentences: inout [String]) {
        let sentence = String(slice).trimmingCharacters(in: .whitespaces)
        if !sentence.isEmpty { sentences.append(sentence) }
    }

    private static let terminals: Set<Character> = [".", "!", "?", "…", "‼", "⁇", "⁈", "⁉"]
    private static let fullWidthTerminals: Set<Character> = ["。", "！", "？", "｡"]
    private static let closers: Set<Character> = [
        "\"", "'", "”", "’", "»", "›", ")", "]", "}", "」", "』", "）", "】", "》", "〉", "〕",
    ]
    /// Closing marks that French typography separates by a space; never an opening mark.
    private static let spacedClosers: Set<Character> = ["»", "›", "”"]
    private static let openers: Set<Character> = [
        "\"", "'", "“", "‘", "«", "‹", "(", "[", "{", "¿", "¡", "「", "『", "（",
    ]

    /// Abbreviations that end in a full stop without ending a sentence (lower-cased, no final dot).
    private static let abbreviations: Set<String> = [
        // English
        "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "approx", "no", "nos", "vol",
        "fig", "inc", "ltd", "co", "corp", "dept", "est", "mt", "ave", "rd", "gen", "col", "lt", "sgt",
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
        // French
        "mme", "mlle", "mm", "cf", "env", "av", "bd", "ch", "éd", "p", "pp",
        // Spanish and Portuguese
        "sra", "srta", "dra", "ud", "uds", "vd", "vds", "núm", "pág", "avda", "sto", "sta", "dña", "d",
        // German
        "nr", "bzw", "usw", "ca", "str", "hr", "fr", "dipl", "ing", "evtl", "ggf", "inkl", "vgl",
        // Italian
        "sig", "sigg", "dott", "ecc",
        // Russian
        "т", "г", "гг", "ул", "им", "см", "стр", "тыс", "млн", "руб", "др", "пр",
    ]
}
