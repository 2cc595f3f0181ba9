import CMeCab
import CMeCabLoader
import LoopFoundation
import Synchronization

/// Written Japanese as it is read: kanji replaced by their readings in kana (MeCab with its
/// IPA dictionary, opened on first use), which espeak-ng can speak; it reads every kanji as
/// "Chinese letter".
public final class JapaneseReadings: Sendable {
    /// The one reader of the process (MeCab's tagger is not shared between threads).
    public static let shared = JapaneseReadings()

    private final class Tagger: @unchecked Sendable {
        let handle: OpaquePointer
        init(handle: OpaquePointer) { self.handle = handle }
    }

    private let tagger = Mutex<Result<Tagger, SpeechError>?>(nil)

    private init() {}

    /// `text` with its kanji read in katakana; text without kanji is returned as it is.
    public func reading(_ text: String) throws(SpeechError) -> String {
        guard text.unicodeScalars.contains(where: Self.isHan) else { return text }
        return try tagger.withLock { (slot: inout Result<Tagger, SpeechError>?) throws(SpeechError) -> String in
            let opened = slot ?? Self.open()
            slot = opened
            let tagger = try opened.get()
            guard let read = mecab_sparse_tostr(tagger.handle, text) else { return text }
            return String(cString: read).trimmingNewlines()
        }
    }

    private static func open() -> Result<Tagger, SpeechError> {
        if let missing = loop_mecab_load_error() {
            return .failure(
                SpeechError(.synthesizerMissing, "Japanese in kanji needs readings: " + String(cString: missing)))
        }
        guard let handle = mecab_new2("-Oyomi") else {
            return .failure(
                SpeechError(
                    .synthesizerMissing,
                    "MeCab could not start: is its dictionary installed (Debian: mecab-ipadic-utf8)?"))
        }
        return .success(Tagger(handle: handle))
    }

    /// CJK unified ideographs (and their extension A): what espeak-ng's Japanese voice cannot read.
    static func isHan(_ scalar: Unicode.Scalar) -> Bool {
        (0x4E00...0x9FFF).contains(scalar.value) || (0x3400...0x4DBF).contains(scalar.value)
    }
}

extension String {
    fileprivate func trimmingNewlines() -> String {
        var text = self
        while let last = text.last, last.isNewline { text.removeLast() }
        return text
    }
}
