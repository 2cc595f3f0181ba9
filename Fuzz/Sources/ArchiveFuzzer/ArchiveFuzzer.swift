import Foundation
import LibFuzzerDriver
import LoopShare

/// Any bytes as a bundle file: reading must verify it or throw ShareError, never crash, and
/// never write outside its scratch folder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchive(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let folder = NSTemporaryDirectory() + "loop-fuzz-\(getpid())"
    let bundle = folder + "/input.loop"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: bundle, contents: Data(bytes: bytes, count: count))
    _ = try? BundleReader().read(bundle, extractingTo: folder + "/extracted")
    try? FileManager.default.removeItem(atPath: folder + "/extracted")
    return 0
}

@_cdecl("ArchiveFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzArchive)
}
