import Foundation
import LibFuzzerDriver
import LoopShare

/// Any bytes as manifest.json: decoding returns a manifest or throws ShareError (nothing else),
/// never crashes; and what decodes encodes again to a manifest that decodes to the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let manifest: BundleManifest
    do {
        manifest = try BundleManifest.decode(data)
    } catch is ShareError {
        return 0
    } catch {
        fatalError("decoding threw something other than ShareError: \(type(of: error)): \(error)")
    }
    do {
        let again = try BundleManifest.decode(try manifest.encoded())
        guard again == manifest else { fatalError("a manifest does not survive encoding: \(manifest) became \(again)") }
    } catch {
        fatalError("a manifest that decoded does not encode and decode again: \(error)")
    }
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("ManifestFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzManifest)
}
