import Foundation
import LibFuzzerDriver
import LoopExchange
import LoopText

/// Any bytes as an SRT or a WebVTT file (the first byte chooses): reading them gives cues whose
/// times are finite and within 100 hours and whose text passes the border check every other text
/// passes (no control character, at most 4,000 characters), or throws; never crashes or hangs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSubtitles(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let format: SubtitleFormat = bytes[0] & 1 == 0 ? .srt : .vtt
    let data = Data(bytes: bytes + 1, count: count - 1)
    guard let cues = try? SubtitleReader.parse(data, format: format, file: "fuzz." + format.rawValue) else { return 0 }
    for cue in cues {
        guard cue.start.isFinite, cue.end.isFinite, cue.start >= 0, cue.end <= 100 * 3_600 else {
            fatalError("a cue outside the limits got through: \(cue.start)...\(cue.end)")
        }
        guard cue.text.count <= TextCheck.maxFieldCharacters, TextCheck.problem(inLine: cue.text) == nil else {
            fatalError("a cue's text the border check refuses got through: \(cue.text.debugDescription.prefix(200))")
        }
    }
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("SubtitleFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzSubtitles)
}
