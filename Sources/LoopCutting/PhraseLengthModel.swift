import Foundation

/// Predicts how long phrases take to say, relative to each other, from their text.
///
/// The weight of a phrase is about its number of syllables: vowel groups in alphabetic
/// scripts, characters in Chinese, morae in kana, with digits and inner punctuation adding a little.
/// Only ratios matter: the take itself says how many seconds a unit of weight lasts.
public struct PhraseLengthModel: Sendable {
    /// The model (it holds no state).
    public init() {}

    /// The relative speaking length of `text`.
    public func weight(of text: String) -> Double {
        var weight = 0.0
        var inVowelGroup = false
        var letters = 0
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            let value = scalar.value
            if Self.isKana(value) {
                // A mora, shorter than a syllable; a small kana (the y of "kya") or a voicing
                // mark (split off by the decomposition) joins the one before it.
                if !Self.joinsPreviousKana(value) { weight += Self.moraWeight }
                inVowelGroup = false
                continue
            }
            if Self.isSyllabic(value) {
                weight += 1
                inVowelGroup = false
                continue
            }
            if scalar.properties.isAlphabetic {
                letters += 1
                let isVowel = Self.vowels.contains(Character(scalar).lowercased().first ?? " ")
                if isVowel && !inVowelGroup { weight += 1 }
                inVowelGroup = isVowel
                continue
            }
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            inVowelGroup = false
            if scalar.properties.numericType != nil {
                weight += 1.5
            } else if ",;:—–、，；：".unicodeScalars.contains(scalar) {
                weight += 0.5
            }
        }
        // Scripts with no vowel letters we know (Arabic, Hebrew, Hindi, ...): about 2.5 letters a syllable.
        if weight == 0 && letters > 0 { weight = Double(letters) / 2.5 }
        return max(weight, 1)
    }

    /// Japanese is timed in morae, each about 0.7 of a syllable elsewhere (7 to 8 morae a second
    /// against 5 to 6 syllables), so a kana text is not taken for a slow reading.
    public static let moraWeight = 0.7

    /// Hiragana and katakana.
    private static func isKana(_ value: UInt32) -> Bool { (0x3041...0x30FF).contains(value) }

    /// Combining voicing marks, small ya/yu/yo and small vowels (not the small tsu, a mora of its
    /// own), and the middle dot: no mora of their own.
    private static func joinsPreviousKana(_ value: UInt32) -> Bool {
        [0x3099, 0x309A, 0x309B, 0x309C, 0x30FB].contains(value)
            || [0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3083, 0x3085, 0x3087, 0x308E].contains(value)
            || [0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30E3, 0x30E5, 0x30E7, 0x30EE].contains(value)
    }

    /// Han and hangul characters: about one syllable each.
    private static func isSyllabic(_ value: UInt32) -> Bool {
        (0x3400...0x4DBF).contains(value) || (0x4E00...0x9FFF).contains(value)
            || (0xAC00...0xD7AF).contains(value) || (0xF900...0xFAFF).contains(value)
            || (0x20000...0x2FA1F).contains(value)
    }

    private static let vowels: Set<Character> = [
        "a", "e", "i", "o", "u", "y", "æ", "ø", "œ", "å",
        "а", "е", "ё", "и", "о", "у", "ы", "э", "ю", "я", "є", "і", "ї",
        "α", "ε", "η", "ι", "ο", "υ", "ω",
    ]
}
