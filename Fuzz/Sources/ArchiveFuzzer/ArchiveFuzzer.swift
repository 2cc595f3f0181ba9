import Foundation
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

// SwiftPM links an executable's `main` to `<Target>_main`: start libFuzzer's driver from there.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("ArchiveFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzArchive)
}
