import GRDB

/// The full-text tokenizer of phrase search: SQLite's `unicode61` (case and accents aside), with
/// every character of a script written without spaces as a token of its own.
///
/// `unicode61` takes a run of Chinese or Japanese as one word, so `咖啡` would not find
/// `我想喝咖啡`. With one token per character, a query's characters become a phrase that matches
/// them side by side anywhere in a run. Every connection to a library registers this tokenizer
/// (``LibraryStore`` does): the search index cannot be read or written without it.
final class PhraseSearchTokenizer: FTS5WrapperTokenizer {
    /// Written into the schema by migration v4: never change it.
    static let name = "loop_phrase"
    let wrappedTokenizer: any FTS5Tokenizer

    init(db: Database, arguments: [String]) throws {
        wrappedTokenizer = try db.makeTokenizer(.unicode61(diacritics: .remove))
    }

    func accept(
        token: String, flags: FTS5TokenFlags, for tokenization: FTS5Tokenization,
        tokenCallback: FTS5WrapperTokenCallback
    ) throws {
        for piece in Self.pieces(of: token) { try tokenCallback(piece, flags) }
    }

    /// `token` cut before and after each character of a script written without spaces; the
    /// rest of the token stays whole (`tokyo東京` gives `tokyo`, `東`, `京`).
    static func pieces(of token: String) -> [String] {
        guard token.unicodeScalars.contains(where: isSpaceless) else { return [token] }
        var pieces: [String] = []
        var run = ""
        for character in token {
            if character.unicodeScalars.first.map(isSpaceless) == true {
                if !run.isEmpty {
                    pieces.append(run)
                    run = ""
                }
                pieces.append(String(character))
            } else {
                run.append(character)
            }
        }
        if !run.isEmpty { pieces.append(run) }
        return pieces
    }

    /// Han, kana, Hangul, Thai, Lao, Khmer and Myanmar: scripts whose words are not set apart by spaces
    /// (Korean is, but its syllables let a search find a word inside a longer one).
    static func isSpaceless(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: true // kana
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF: true // Han
        case 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: true // Hangul
        case 0x0E00...0x0EFF, 0x1780...0x17FF, 0x1000...0x109F: true // Thai, Lao, Khmer, Myanmar
        default: false
        }
    }
}
