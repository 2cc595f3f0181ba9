import Foundation
import LibFuzzerDriver
import LoopText

/// Any bytes as a language, where one enters: a `--language` value (``LanguageCode``) and a
/// text's `# language:` line. A language taken is a code (a letter, then letters, digits, `-`
/// and `_`, at most 35 bytes): never a path, a voice variant (`fr+...`), a space or a control
/// character, which would reach the synthesizer's data folder; never crashes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLanguage(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let value = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    func check(_ language: String, from place: String) {
        let utf8 = Array(language.utf8)
        let isCode =
            (1...LanguageCode.maxLength).contains(utf8.count)
            && utf8.first.map { (65...90).contains($0) || (97...122).contains($0) } == true
            && utf8.allSatisfy {
                (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95
            }
        if !isCode { fatalError("\(place) took a language that is not a code: \(language.debugDescription)") }
    }
    if LanguageCode.problem(value) == nil { check(value, from: "--language") }
    // The same value as a text's language line, before a phrase.
    if let source = try? LoopSource(parsing: "# language: " + value + "\nBonjour.\n"), let language = source.language {
        check(language, from: "# language:")
    }
    if let source = try? LoopSource(parsing: "# translation: " + value + "\nBonjour.\n"),
        let language = source.translationLanguage
    {
        check(language, from: "# translation:")
    }
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("LanguageFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzLanguage)
}
