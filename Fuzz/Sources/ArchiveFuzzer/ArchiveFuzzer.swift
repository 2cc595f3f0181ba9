import Foundation
import LibFuzzerDriver
import LoopShare

/// Any bytes as a bundle file: reading must verify it or throw ShareError (nothing else), never
/// crash, and never write outside its scratch folder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchive(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    // A folder of this process's own: the bundle and its extraction folder go in `case/`; after
    // the read nothing may exist beside `case/`, nor in it but those two.
    let root = NSTemporaryDirectory() + "loop-fuzz-\(getpid())"
    let folder = root + "/case"
    let bundle = folder + "/input.loop"
    let manager = FileManager.default
    try? manager.removeItem(atPath: root)
    try? manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
    manager.createFile(atPath: bundle, contents: Data(bytes: bytes, count: count))
    do {
        _ = try BundleReader().read(bundle, extractingTo: folder + "/extracted")
    } catch is ShareError {
        // Refused, as it should be.
    } catch {
        fatalError("the reader threw something other than ShareError: \(type(of: error)): \(error)")
    }
    let beside = (try? manager.contentsOfDirectory(atPath: root)) ?? []
    let inside = Set((try? manager.contentsOfDirectory(atPath: folder)) ?? [])
    guard beside == ["case"], inside.isSubset(of: ["input.loop", "extracted"]) else {
        fatalError("the reader wrote outside its extraction folder: beside \(beside), inside \(inside.sorted())")
    }
    try? manager.removeItem(atPath: root)
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("ArchiveFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzArchive)
}
