import Foundation
import LibFuzzerDriver
import LoopLibraryAPI

/// Any bytes as a signed request's headers (lines, in the order of `names`; a missing line is a
/// missing header), as a Loop Library server reads them before anything else: reading them
/// accepts or refuses, and what it accepts holds its ranges (a time no clock gives is refused,
/// a revision is 1 or more, a nonce hex); the skew from any clock, the signed content and its
/// canonical text are computed without a trap. One request once stopped the server (a timestamp
/// of -9223372036854775808).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignature(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let names = [
        SignedRequest.keyHeader, SignedRequest.timestampHeader, SignedRequest.nonceHeader,
        SignedRequest.contentSHA256Header, SignedRequest.signatureHeader, SignedRequest.loopIDHeader,
        SignedRequest.revisionHeader, SignedRequest.authorNameHeader,
    ]
    let lines = UnsafeBufferPointer(start: bytes, count: count).split(separator: 0x0A, omittingEmptySubsequences: false)
    var headers: [String: String] = [:]
    for (name, line) in zip(names, lines) where !line.isEmpty {
        headers[name] = String(decoding: line, as: UTF8.self)
    }
    let received: SignedRequest.Received
    do {
        received = try SignedRequest.Received { headers[$0] }
    } catch {
        return 0
    }
    guard (0...SignedRequest.latestTimestamp).contains(received.timestamp), received.revision.map({ $0 >= 1 }) ?? true,
        received.key.count == 32, received.nonce.allSatisfy({ $0.isASCII && $0.isHexDigit })
    else {
        fatalError("headers accepted out of their ranges: \(headers)")
    }
    for now in [
        Date(), Date.distantPast, Date.distantFuture, Date(timeIntervalSince1970: -1e300),
        Date(timeIntervalSince1970: 1e300), Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: .infinity),
    ] {
        let skew = received.skew(from: now)
        if skew < 0 || skew > SignedRequest.latestTimestamp { fatalError("a skew of \(skew) s") }
    }
    let length = lines.count > names.count ? lines[names.count].count * 1_000_003 : 0
    _ =
        received.content(method: "POST", authority: "127.0.0.1:8080", path: LoopLibraryPaths.loops, bodyLength: length)
        .canonicalText
    return 0
}

/// libFuzzer's entry point: runs the fuzzer's driver with the command line's arguments.
@_cdecl("SignatureFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, test: fuzzSignature)
}
