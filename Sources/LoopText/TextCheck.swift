/// Text from outside (a text file, a pasted text, a bundle, an option) is checked where it enters.
///
/// NUL is refused everywhere: SQLite's C interface would cut the text short at it. Every other
/// control character (C0, DEL, C1: ESC among them, which starts terminal escape sequences) is
/// refused too, except the white space a text file holds (tab, line feed, carriage return,
/// vertical tab, form feed), and a single-line field (a title, a tag, a phrase) takes none.
public enum TextCheck {
    /// The most a loop's text may hold, in bytes (a long book chapter is about 1 MiB).
    public static let maxTextBytes = 16 << 20
    /// The most a single-line field (a phrase, a translation, a title) may hold, in characters:
    /// what a bundle carries.
    public static let maxFieldCharacters = 4_000
    /// The most phrases a loop may hold: what a bundle carries (a long book chapter is about
    /// 10,000).
    public static let maxPhrases = 20_000

    /// What is wrong with a single-line field, or nil.
    public static func problem(inLine text: String) -> String? {
        text.unicodeScalars.first(where: isControl).map(describe)
    }

    /// The first line (1-based) of a multi-line text holding a character it may not, and what
    /// is wrong; nil when the text is fine.
    public static func problem(inText text: String) -> (line: Int, message: String)? {
        var line = 1
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                line += 1
                continue
            }
            if isControl(scalar) && !textWhitespace.contains(scalar) { return (line, describe(scalar)) }
        }
        return nil
    }

    private static let textWhitespace: Set<Unicode.Scalar> = ["\t", "\r", "\u{0B}", "\u{0C}"]

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar.value == 0 { return "holds a NUL character, which would cut the text short: remove it" }
        let name = scalar.value == 0x1B ? " (ESC)" : ""
        return
            "holds the control character U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))\(name), which loop does not take in text: remove it"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(width - count, 0)) + self }
}

/// A language as loop takes it: a code such as `fr`, `pt-BR` or `cmn-latn-pinyin` (BCP 47-like:
/// ASCII letters, digits and `-` or `_`, starting with a letter, at most 35 characters), or an
/// English name such as `Spanish`. Anything else (a path such as `../../etc`, a `+` variant, a
/// control character) is refused where it enters (an option, a text's `# language:`, a bundle):
/// a language names a voice file of the synthesizer.
public enum LanguageCode {
    /// The longest code taken (BCP 47's longest useful tags are well under it).
    public static let maxLength = 35

    /// Why `text` is not a language, or nil when it is one.
    public static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        let isLetter = { (byte: UInt8) in (65...90).contains(byte) || (97...122).contains(byte) }
        let isDigit = { (byte: UInt8) in (48...57).contains(byte) }
        guard let first = bytes.first, isLetter(first), bytes.count <= maxLength,
            bytes.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 45 || $0 == 95 }),
            bytes.last.map({ $0 != 45 && $0 != 95 }) == true
        else {
            return
                "is not a language code: give one such as fr, pt-BR or cmn (letters, digits and '-', at most \(maxLength))"
        }
        return nil
    }
}
