import Foundation
import LibFuzzerDriver
import LoopShare

/// Any bytes as manifest.json: decoding must return a manifest or throw ShareError, never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let manifest = try? BundleManifest.decode(data) {
        // What decodes must encode again.
        _ = try? manifest.encoded()
    }
    return 0
}

@_cdecl("ManifestFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzManifest)
}
