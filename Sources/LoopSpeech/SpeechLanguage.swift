/// The language a take is aligned in, and the synthesizer voice that renders its text.
public struct SpeechLanguage: Sendable, Equatable {
    /// Where the language came from: shown to the user, who can correct it.
    public enum Origin: String, Sendable, Codable {
        /// `--language`.
        case given
        /// The loop's language.
        case loop
        /// Guessed from the text's script (and, for Latin script, its commonest words).
        case guessed
    }

    /// The language code, as given or guessed (`es`, `cmn`, `ja`).
    public var code: String
    /// The espeak-ng voice that reads it.
    public var voice: String
    /// Where the code came from.
    public var origin: Origin

    /// A language from its code, voice and where it came from.
    public init(code: String, voice: String, origin: Origin) {
        self.code = code
        self.voice = voice
        self.origin = origin
    }

    /// The language from `given`, else `loop`, else a guess from `text`; nil when none is given
    /// and the text gives no clue.
    public static func resolve(given: String?, loop: String?, text: [String]) -> SpeechLanguage? {
        if let given = given?.nonEmpty { return SpeechLanguage(code: given, voice: voice(for: given), origin: .given) }
        if let loop = loop?.nonEmpty { return SpeechLanguage(code: loop, voice: voice(for: loop), origin: .loop) }
        guard let guessed = guess(text) else { return nil }
        return SpeechLanguage(code: guessed, voice: voice(for: guessed), origin: .guessed)
    }

    /// The espeak-ng voice for a language code or English name (`es`, `pt-BR`, `Spanish`,
    /// `zh`): Mandarin is read with `cmn-latn-pinyin`, which reads Han characters as Mandarin
    /// (espeak-ng 1.51's plain `cmn` reads them as English letter names).
    public static func voice(for language: String) -> String {
        let code = language.lowercased().replacingUnderscores()
        if let named = names[code] { return named }
        switch code {
        case "zh", "cmn", "zh-cn", "zh-hans", "zh-tw", "zh-hant", "cmn-cn": return "cmn-latn-pinyin"
        case "jp", "ja-jp": return "ja"
        default: return code
        }
    }

    /// The voice itself, else its language without the region (`fr-ca` → `fr`).
    public func voices() -> [String] {
        var voices = [voice]
        if let dash = voice.firstIndex(of: "-"), voice != "cmn-latn-pinyin" { voices.append(String(voice[..<dash])) }
        return voices
    }

    /// Whether the text must be given readings before it is spoken (Japanese kanji).
    public var needsReadings: Bool { voice == "ja" }

    private static let names: [String: String] = [
        "english": "en", "french": "fr", "spanish": "es", "german": "de", "italian": "it", "portuguese": "pt",
        "russian": "ru", "japanese": "ja", "chinese": "cmn-latn-pinyin", "mandarin": "cmn-latn-pinyin",
        "dutch": "nl", "polish": "pl", "swedish": "sv", "turkish": "tr", "korean": "ko", "arabic": "ar",
        "greek": "el", "hebrew": "he", "hindi": "hi", "ukrainian": "uk", "czech": "cs", "finnish": "fi",
    ]

    // MARK: Guessing

    /// The language a text is most likely written in: by script, and for Latin script by its
    /// commonest short words; nil when nothing points to one.
    public static func guess(_ text: [String]) -> String? {
        var counts: [String: Int] = [:]
        var kana = 0
        var han = 0
        for scalar in text.joined(separator: " ").unicodeScalars {
            let value = scalar.value
            switch value {
            case 0x3040...0x30FF: kana += 1
            case 0x4E00...0x9FFF, 0x3400...0x4DBF: han += 1
            case 0xAC00...0xD7AF, 0x1100...0x11FF: counts["ko", default: 0] += 1
            case 0x0400...0x04FF:
                counts[ukrainianLetters.contains(value) ? "uk" : "ru", default: 0] +=
                    ukrainianLetters.contains(value) ? 50 : 1
            case 0x0370...0x03FF: counts["el", default: 0] += 1
            case 0x0600...0x06FF: counts["ar", default: 0] += 1
            case 0x0590...0x05FF: counts["he", default: 0] += 1
            case 0x0E00...0x0E7F: counts["th", default: 0] += 1
            case 0x0900...0x097F: counts["hi", default: 0] += 1
            case 0x10A0...0x10FF: counts["ka", default: 0] += 1
            case 0x0530...0x058F: counts["hy", default: 0] += 1
            case 0x0041...0x005A, 0x0061...0x007A, 0x00C0...0x024F: counts["latin", default: 0] += 1
            default: break
            }
        }
        if kana > 0 { counts["ja"] = kana + han } else if han > 0 { counts["cmn"] = han }
        guard let (script, _) = counts.max(by: { $0.value < $1.value }) else { return nil }
        return script == "latin" ? guessLatin(text) : script
    }

    private static let ukrainianLetters: Set<UInt32> = [0x0456, 0x0457, 0x0454, 0x0491, 0x0406, 0x0407, 0x0404, 0x0490]

    /// Words so common in one language that a few of them name it.
    private static let commonWords: [String: Set<String>] = [
        "en": [
            "the", "and", "is", "of", "to", "you", "it", "in", "that", "was", "we", "my", "for", "with", "are", "this",
        ],
        "fr": [
            "le", "la", "les", "et", "est", "un", "une", "des", "je", "nous", "vous", "il", "elle", "pas", "du", "au",
            "avec", "pour", "sur",
        ],
        "es": [
            "el", "los", "las", "y", "es", "un", "una", "que", "por", "con", "para", "del", "muy", "pero", "está", "yo",
        ],
        "de": [
            "der", "die", "das", "und", "ist", "nicht", "ein", "eine", "ich", "wir", "zu", "mit", "auf", "für", "sie",
            "den", "dem",
        ],
        "it": ["il", "lo", "gli", "e", "è", "non", "che", "di", "per", "sono", "una", "della", "ho", "mi"],
        "pt": ["o", "os", "as", "é", "não", "um", "uma", "que", "em", "com", "para", "do", "da", "eu", "você"],
        "nl": ["het", "een", "en", "is", "niet", "van", "ik", "wij", "dat", "op", "voor", "zijn", "met"],
    ]

    private static func guessLatin(_ text: [String]) -> String {
        var scores: [String: Int] = [:]
        for line in text {
            for word in line.lowercased().split(whereSeparator: { !$0.isLetter }) {
                for (language, words) in commonWords where words.contains(String(word)) {
                    scores[language, default: 0] += 1
                }
            }
        }
        return scores.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? "en"
    }
}

extension String {
    fileprivate var nonEmpty: String? {
        let trimmed = self.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }

    fileprivate func trimmingSpaces() -> String {
        String(self.drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }

    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}
