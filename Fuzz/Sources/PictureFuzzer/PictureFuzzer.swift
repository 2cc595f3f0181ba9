import Foundation
import LibFuzzerDriver
import LoopPictures

/// Any bytes as a picture a bundle or `loop picture` brings: reading its header gives a picture
/// within the limits (a size on both sides, no side over 16,384 pixels, at most 50 million
/// pixels for a JPEG and 16 million for the others, its byte count) or throws a PictureError,
/// and never crashes or hangs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPicture(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let info: PictureInfo
    do {
        info = try PictureFile.inspect(data, path: nil)
    } catch {
        return 0 // PictureError: the reader's only error
    }
    guard info.width > 0, info.height > 0, info.width <= PictureFile.maxSide, info.height <= PictureFile.maxSide,
        info.width * info.height <= PictureFile.maxPixels(of: info.format), info.byteCount == count
    else {
        fatalError("a picture outside the limits got through: \(info)")
    }
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("PictureFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzPicture)
}
