import Foundation
import LibFuzzerDriver
import LoopAudioFiles

/// The file each input is written to (libsndfile reads files), one per process.
private let scratch = NSTemporaryDirectory() + "/loop-audio-fuzz-\(getpid())"

/// Any bytes as an audio file (WAV, FLAC, AIFF, Ogg, ... as libsndfile reads them): opening it
/// gives a sample rate of 4,000 to 768,000 Hz and reading a second of it stays within memory,
/// whatever its header declares, or throws an AudioError; never crashes or hangs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioHeader(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard FileManager.default.createFile(atPath: scratch, contents: Data(bytes: bytes, count: count)) else { return 0 }
    guard var reader = try? AudioFileReader(path: scratch) else { return 0 }
    guard (4_000...768_000).contains(reader.info.sampleRate), reader.info.channelCount > 0 else {
        fatalError("a file declaring \(reader.info.sampleRate) Hz and \(reader.info.channelCount) channels got through")
    }
    _ = try? reader.forEachMonoBlock(limit: reader.info.sampleRate) { _ in }
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("AudioHeaderFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzAudioHeader)
}
