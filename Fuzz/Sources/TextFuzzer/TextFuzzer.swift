import Foundation
import LibFuzzerDriver
import LoopText

/// Any bytes as a loop's text: parsing returns a source or throws LoopSourceError (nothing
/// else), never crashes; what it returns holds no NUL or control character and no empty phrase;
/// and its phrases, written back as a text, parse to the same phrases.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzText(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    for options in [LoopSource.ParseOptions(), LoopSource.ParseOptions(splitSentences: true)] {
        let source: LoopSource
        do {
            source = try LoopSource(parsing: text, options: options)
        } catch {
            continue // LoopSourceError: the parser's only error
        }
        for phrase in source.phrases {
            guard !phrase.text.isEmpty, TextCheck.problem(inLine: phrase.text) == nil,
                phrase.translation.map({ TextCheck.problem(inLine: $0) == nil && !$0.isEmpty }) ?? true
            else {
                fatalError("the parser let through a phrase it must not: \(phrase)")
            }
        }
        for field in [source.title, source.language, source.translationLanguage].compactMap({ $0 }) + source.tags
        where TextCheck.problem(inLine: field) != nil {
            fatalError("the parser let through a field it must not: \(field.debugDescription)")
        }
        // The parser's own reading of its phrases: written back, they read the same.
        guard !options.splitSentences, let again = try? LoopSource(parsing: source.text) else { continue }
        guard again.phrases.map(\.text) == source.phrases.map(\.text), again.groups.count == source.groups.count else {
            fatalError(
                "a text written back from its phrases reads differently: \(source.phrases.map(\.text)) became \(again.phrases.map(\.text))"
            )
        }
    }
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("TextFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzText)
}
