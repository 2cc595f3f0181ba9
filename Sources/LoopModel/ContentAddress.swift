import Crypto
import Foundation

/// The name a file's content gets in the library: the SHA-256 of its bytes, in hex.
public enum ContentAddress {
    /// The file's SHA-256 (read 1 MiB at a time), or nil when it cannot be opened.
    public static func sha256(ofFileAt path: String) throws -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hex(hasher.finalize())
    }

    /// A digest in lower-case hex.
    public static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
