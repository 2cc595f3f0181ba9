import Foundation
import LibFuzzerDriver
import LoopLibraryAPI
import LoopReports
import LoopWorkflows

/// Any bytes as a Loop Library's answer to `loop browse --from` (a catalog page, the front page,
/// a loop's detail, an error): decoding them gives the API's types or fails, and every line
/// printed of a catalog loop holds no control character and no bidirectional override (the
/// server's bytes are made inert before they reach a terminal); never crashes or hangs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerAnswer(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let decoder = JSONDecoder()
    var loops: [CatalogLoop] = []
    if let page = try? decoder.decode(CatalogPage.self, from: data) { loops += page.loops }
    if let front = try? decoder.decode(FrontPage.self, from: data) {
        loops += front.latest + front.hot + front.featured
    }
    _ = try? decoder.decode(CatalogLoopDetail.self, from: data)
    _ = try? decoder.decode(ErrorBody.self, from: data)
    for loop in loops {
        let line = CatalogBrowse.Entry(loop: loop, link: "https://example.org/" + loop.shortID).browseLine
        if let raw = line.unicodeScalars.first(where: {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
                || (0x2066...0x2069).contains($0.value)
        }) {
            fatalError("U+\(String(raw.value, radix: 16)) from a server reached a printed line")
        }
    }
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("ServerAnswerFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzServerAnswer)
}
