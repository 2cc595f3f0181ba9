import Foundation

/// The CRC-32 that zip and gzip use (IEEE 802.3, reflected), eight bytes a step (slicing by
/// 8). ZIPFoundation computes it a byte a step on Linux (there its zlib is not `zlib` to
/// `canImport`): that was 16% of the server's time taking a publish, and a tenth of a gzipped
/// page's first visit.
public enum CRC32Checksum {
    /// The CRC-32 of `bytes`, continuing `crc`, the CRC-32 of the bytes before them.
    public static func of(_ bytes: Data, continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { of($0, continuing: crc) }
    }

    /// The CRC-32 of `bytes`, continuing `crc`, the CRC-32 of the bytes before them.
    public static func of(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc = ~crc
            var index = 0
            while bytes.count - index >= 8 {
                let low = crc ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self))
                crc =
                    table[7 << 8 | Int(low & 0xff)] ^ table[6 << 8 | Int(low >> 8 & 0xff)]
                    ^ table[5 << 8 | Int(low >> 16 & 0xff)] ^ table[4 << 8 | Int(low >> 24)]
                    ^ table[3 << 8 | Int(high & 0xff)] ^ table[2 << 8 | Int(high >> 8 & 0xff)]
                    ^ table[1 << 8 | Int(high >> 16 & 0xff)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < bytes.count {
                crc = table[Int((crc ^ UInt32(bytes[index])) & 0xff)] ^ crc >> 8
                index += 1
            }
            return ~crc
        }
    }

    /// Eight tables of 256: the first a byte's CRC, each next one that moved on by a byte.
    private static let tables: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 << 8)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ crc >> 1 : crc >> 1 }
            table[byte] = crc
        }
        for byte in 0..<256 {
            var crc = table[byte]
            for slice in 1..<8 {
                crc = table[Int(crc & 0xff)] ^ crc >> 8
                table[slice << 8 | byte] = crc
            }
        }
        return table
    }()
}
