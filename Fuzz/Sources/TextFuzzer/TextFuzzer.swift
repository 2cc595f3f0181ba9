import Foundation
import LibFuzzerDriver
import LoopAuthoring

/// Any bytes as a loop's text: parsing returns a source or throws LoopSourceError, never
/// crashes; and what it returns holds no NUL or control character and no empty phrase.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzText(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for options in [LoopSource.ParseOptions(), LoopSource.ParseOptions(splitSentences: true)] {
        guard let source = try? LoopSource(parsing: text, options: options) else { continue }
        for phrase in source.phrases {
            guard !phrase.text.isEmpty, TextCheck.problem(inLine: phrase.text) == nil,
                  phrase.translation.map({ TextCheck.problem(inLine: $0) == nil && !$0.isEmpty }) ?? true else {
                fatalError("the parser let through a phrase it must not: \(phrase)")
            }
        }
        for field in [source.title, source.language, source.translationLanguage].compactMap({ $0 }) + source.tags where TextCheck.problem(inLine: field) != nil {
            fatalError("the parser let through a field it must not: \(field.debugDescription)")
        }
    }
    return 0
}

@_cdecl("TextFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzText)
}
