import Foundation

/// Predicts how long phrases take to say, relative to each other, from their text.
///
/// The weight of a phrase is about its number of syllables: vowel groups in alphabetic
/// scripts, characters in Chinese and kana, with digits and inner punctuation adding a little.
/// Only ratios matter: the take itself says how many seconds a unit of weight lasts.
public struct PhraseLengthModel: Sendable {
    public init() {}

    /// The relative speaking length of `text`.
    public func weight(of text: String) -> Double {
        var weight = 0.0
        var inVowelGroup = false
        var letters = 0
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            let value = scalar.value
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
            if scalar.properties.numericType != nil { weight += 1.5 }
            else if ",;:—–、，；：".unicodeScalars.contains(scalar) { weight += 0.5 }
        }
        // Scripts with no vowel letters we know (Arabic, Hebrew, Hindi, ...): about 2.5 letters a syllable.
        if weight == 0 && letters > 0 { weight = Double(letters) / 2.5 }
        return max(weight, 1)
    }

    /// Han, kana, hangul and similar characters: about one syllable each.
    private static func isSyllabic(_ value: UInt32) -> Bool {
        (0x3040...0x30FF).contains(value) || (0x3400...0x4DBF).contains(value) || (0x4E00...0x9FFF).contains(value)
            || (0xAC00...0xD7AF).contains(value) || (0xF900...0xFAFF).contains(value) || (0x20000...0x2FA1F).contains(value)
    }

    private static let vowels: Set<Character> = [
        "a", "e", "i", "o", "u", "y", "æ", "ø", "œ", "å",
        "а", "е", "ё", "и", "о", "у", "ы", "э", "ю", "я", "є", "і", "ї",
        "α", "ε", "η", "ι", "ο", "υ", "ω",
    ]
}
