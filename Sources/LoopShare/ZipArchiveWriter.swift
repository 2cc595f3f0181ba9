import Crypto
import Foundation
import LoopFoundation
import LoopModel

/// Writes a zip archive front to back: each entry's header, then its bytes, then the central
/// directory, never going back to fill a header in, so the archive's SHA-256 and length are
/// known as its last byte is written. A file's CRC-32 is read before its header is written,
/// eight bytes a step (``CRC32Checksum``): ZIPFoundation's writer takes it a byte a step on
/// Linux, which was 42% of a `loop export`'s time. Sizes and offsets past 4 GiB are written
/// as Zip64, as `unzip` and ``ZipArchiveReader`` read them.
struct ZipArchiveWriter: ~Copyable {
    /// Above this, a size, an offset or the central directory's place is written as Zip64 (a
    /// test lowers it to write every field that way).
    static let zip64Above: UInt64 = 0xFFFF_FFFE
    /// How much of a file is read at once.
    static let chunkBytes = 1 << 20

    private let file: DurableFile.NewFile
    private let zip64Above: UInt64
    private let time: UInt16, date: UInt16
    private var hasher = SHA256()
    private var written: UInt64 = 0
    private var entries: [Entry] = []

    private struct Entry {
        var name: [UInt8]
        var method: UInt16
        var crc: UInt32
        var compressed: UInt64
        var size: UInt64
        var offset: UInt64
    }

    /// A new archive at `path` (never one that exists), its entries dated `now`.
    init(creating path: String, now: Date = Date(), zip64Above: UInt64 = Self.zip64Above) throws {
        file = try DurableFile.NewFile(creating: path)
        self.zip64Above = zip64Above
        (time, date) = Self.dosTime(of: now)
    }

    /// Adds `data` as `name`, deflated or stored.
    mutating func add(_ data: Data, as name: String, deflated: Bool) throws {
        let crc = CRC32Checksum.of(data)
        let body: Data
        do {
            body = deflated ? try rawDeflated(data) : data
        } catch {
            throw ShareError(.writeFailed, "cannot deflate \(name): \(error.description)")
        }
        try addHeader(
            name, method: deflated ? 8 : 0, crc: crc, compressed: UInt64(body.count), size: UInt64(data.count))
        try write(body)
    }

    /// Adds the file at `source` as `name`, stored: read once for its CRC-32, then copied. A file
    /// whose length changes between the two is refused.
    mutating func addFile(at source: String, as name: String) throws {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: source))
        defer { try? handle.close() }
        var crc: UInt32 = 0
        var size: UInt64 = 0
        while let chunk = try handle.read(upToCount: Self.chunkBytes), !chunk.isEmpty {
            crc = CRC32Checksum.of(chunk, continuing: crc)
            size += UInt64(chunk.count)
        }
        try addHeader(name, method: 0, crc: crc, compressed: size, size: size)
        try handle.seek(toOffset: 0)
        var copied: UInt64 = 0
        while let chunk = try handle.read(upToCount: Self.chunkBytes), !chunk.isEmpty {
            copied += UInt64(chunk.count)
            guard copied <= size else { break }
            try write(chunk)
        }
        guard copied == size else {
            throw FileSystemError(
                FileSystemFailure(errno: EIO), path: source, message: "\(source) changed while it was being written")
        }
    }

    /// Writes the central directory and the end records; returns the archive's SHA-256 (hex)
    /// and length.
    consuming func finish() throws -> (sha256: String, bytes: Int) {
        let start = written
        for entry in entries {
            var extra = Bytes()
            let size = zip64(entry.size, into: &extra)
            let compressed = zip64(entry.compressed, into: &extra)
            let offset = zip64(entry.offset, into: &extra)
            var record = Bytes()
            record.append32(0x0201_4b50)
            record.append16(0x031E) // made by: Unix, zip 3.0
            record.append16(extra.isEmpty ? 20 : 45)
            record.append16(0)
            record.append16(entry.method)
            record.append16(time)
            record.append16(date)
            record.append32(entry.crc)
            record.append32(compressed)
            record.append32(size)
            record.append16(UInt16(entry.name.count))
            record.append16(UInt16(extra.isEmpty ? 0 : extra.count + 4))
            record.append16(0) // comment
            record.append16(0) // disk
            record.append16(0) // internal attributes
            record.append32(UInt32(0o100644) << 16) // a regular file, rw-r--r--
            record.append32(offset)
            record.bytes += entry.name
            if !extra.isEmpty {
                record.append16(1)
                record.append16(UInt16(extra.count))
                record.bytes += extra.bytes
            }
            try write(record.bytes)
        }
        let directorySize = written - start
        var end = Bytes()
        let count = UInt64(entries.count)
        if count > 0xFFFE || start > zip64Above || directorySize > zip64Above {
            let record = written
            end.append32(0x0606_4b50)
            end.append64(44)
            end.append16(0x031E)
            end.append16(45)
            end.append32(0)
            end.append32(0)
            end.append64(count)
            end.append64(count)
            end.append64(directorySize)
            end.append64(start)
            end.append32(0x0706_4b50)
            end.append32(0)
            end.append64(record)
            end.append32(1)
        }
        end.append32(0x0605_4b50)
        end.append16(0)
        end.append16(0)
        end.append16(UInt16(min(count, 0xFFFF)))
        end.append16(UInt16(min(count, 0xFFFF)))
        end.append32(directorySize > zip64Above ? 0xFFFF_FFFF : UInt32(directorySize))
        end.append32(start > zip64Above ? 0xFFFF_FFFF : UInt32(start))
        end.append16(0)
        try write(end.bytes)
        return (ContentAddress.hex(hasher.finalize()), Int(written))
    }

    private mutating func addHeader(_ name: String, method: UInt16, crc: UInt32, compressed: UInt64, size: UInt64)
        throws
    {
        let name = Array(name.utf8)
        entries.append(
            Entry(name: name, method: method, crc: crc, compressed: compressed, size: size, offset: written))
        // A local header's Zip64 field holds both sizes, or there is none.
        let isZip64 = size > zip64Above || compressed > zip64Above
        var extra = Bytes()
        if isZip64 {
            extra.append64(size)
            extra.append64(compressed)
        }
        var header = Bytes()
        header.append32(0x0403_4b50)
        header.append16(extra.isEmpty ? 20 : 45)
        header.append16(0)
        header.append16(method)
        header.append16(time)
        header.append16(date)
        header.append32(crc)
        header.append32(isZip64 ? 0xFFFF_FFFF : UInt32(compressed))
        header.append32(isZip64 ? 0xFFFF_FFFF : UInt32(size))
        header.append16(UInt16(name.count))
        header.append16(UInt16(extra.isEmpty ? 0 : extra.count + 4))
        header.bytes += name
        if !extra.isEmpty {
            header.append16(1)
            header.append16(UInt16(extra.count))
            header.bytes += extra.bytes
        }
        try write(header.bytes)
    }

    /// The 32-bit field for `value`: the value, or 0xFFFFFFFF with the value added to `extra`.
    private func zip64(_ value: UInt64, into extra: inout Bytes) -> UInt32 {
        guard value > zip64Above else { return UInt32(value) }
        extra.append64(value)
        return 0xFFFF_FFFF
    }

    private mutating func write(_ bytes: some DataProtocol & ContiguousBytes) throws {
        try bytes.withUnsafeBytes { try file.write($0) }
        hasher.update(data: bytes)
        written += UInt64(bytes.count)
    }

    /// `date` as MS-DOS keeps it, in local time: 2-second steps, 1980 to 2107.
    static func dosTime(of date: Date) -> (time: UInt16, date: UInt16) {
        let parts = Calendar(identifier: .gregorian).dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: date)
        let year = min(max((parts.year ?? 1980) - 1980, 0), 127)
        let time = (parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2
        return (UInt16(time), UInt16(year << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1)))
    }

    /// Little-endian fields, as zip writes them.
    private struct Bytes {
        var bytes: [UInt8] = []
        var isEmpty: Bool { bytes.isEmpty }
        var count: Int { bytes.count }
        mutating func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func append64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    }
}
