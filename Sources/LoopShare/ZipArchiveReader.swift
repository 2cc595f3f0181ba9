import Foundation
import LoopFoundation

/// Reads a zip archive as hostile input: the end records, the central directory and every
/// entry's local header are read field by field, and every size, offset and count is checked
/// against the file's length and the other records before it is used, so that a lying field is
/// an error naming what lies, never a trap or a read outside the file. Entries are stored or
/// deflated (zlib), each read back at most to the size its directory declares.
///
/// It reads what the zip format allows a bundle to be, and no more: one disk, no encryption,
/// Zip64 where a writer chose it (whatever the sizes), entries that do not overlap. ZIPFoundation,
/// which read bundles before, trapped on a Zip64 end record whose offsets lie (2^64 - 100 did),
/// and took a bundle written all in Zip64 for one without a manifest.
struct ZipArchiveReader: ~Copyable {
    /// An entry as the central directory lists it, checked against its local header.
    struct Entry {
        enum Kind { case file, folder, symbolicLink }
        enum Method { case stored, deflated }
        var name: String
        var kind: Kind
        var method: Method
        var crc32: UInt32
        var compressedSize: UInt64
        var size: UInt64
        /// Where its bytes begin, past its local header.
        var dataOffset: UInt64
    }

    struct Limits {
        /// Entries the directory may list (a bundle's own limit is given by its reader).
        var maxEntries: Int
        /// How large the central directory may be: 10,000 entries with names of up to a few
        /// hundred bytes take a few megabytes.
        var maxDirectoryBytes: UInt64 = 16 << 20
    }

    /// What the central directory lists, in its order.
    let entries: [Entry]
    private let file: FileHandle

    /// How much of a stored entry, or of a deflated one's input, is read at once.
    static let chunkBytes = 1 << 20

    /// Reads the archive's directory at `path`; throws `ShareError` (`.corrupt`, or `.tooLarge`
    /// past `limits`) naming the field that lies.
    init(path: String, limits: Limits) throws {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw ShareError(.corrupt, "cannot be read")
        }
        let entries: [Entry]
        do {
            entries = try Self.readDirectory(of: file, size: try file.seekToEnd(), limits: limits)
        } catch {
            try? file.close()
            throw error
        }
        self.file = file
        self.entries = entries
    }

    deinit { try? file.close() }

    /// Hands `entry`'s bytes, as stored or inflated, to `body` a piece at a time: exactly the
    /// size the directory declares, or an error (damaged deflate data, more or fewer bytes).
    func read(_ entry: Entry, _ body: (Data) throws -> Void) throws {
        var produced: UInt64 = 0
        func deliver(_ piece: Data) throws {
            produced += UInt64(piece.count)
            guard produced <= entry.size else {
                throw ShareError(
                    .tooLarge,
                    "entry '\(ManifestCheck.shown(entry.name))' expands beyond the \(entry.size) bytes its header declares"
                )
            }
            try body(piece)
        }
        try file.seek(toOffset: entry.dataOffset)
        var remaining = entry.compressedSize
        switch entry.method {
        case .stored:
            while remaining > 0 {
                let piece = try readExactly(Int(min(remaining, UInt64(Self.chunkBytes))), of: entry)
                remaining -= UInt64(piece.count)
                try deliver(piece)
            }
        case .deflated:
            var inflater: RawInflater
            do { inflater = try RawInflater() } catch { throw ShareError(.corrupt, error.description) }
            while remaining > 0, !inflater.ended {
                let piece = try readExactly(Int(min(remaining, UInt64(Self.chunkBytes))), of: entry)
                remaining -= UInt64(piece.count)
                do {
                    try piece.withUnsafeBytes { _ = try inflater.inflate($0, deliver) }
                } catch let error as DeflateError {
                    throw ShareError(.corrupt, "entry '\(ManifestCheck.shown(entry.name))': \(error.description)")
                }
            }
            guard inflater.ended else {
                throw ShareError(
                    .corrupt, "entry '\(ManifestCheck.shown(entry.name))': its deflated data ends before its last block"
                )
            }
        }
        guard produced == entry.size else {
            throw ShareError(
                .corrupt,
                "entry '\(ManifestCheck.shown(entry.name))' holds \(produced) bytes, not the \(entry.size) its header declares"
            )
        }
    }

    private func readExactly(_ count: Int, of entry: Entry) throws -> Data {
        let data = try file.read(upToCount: count) ?? Data()
        guard data.count == count else {
            throw ShareError(.corrupt, "entry '\(ManifestCheck.shown(entry.name))' is cut short: the file ends in it")
        }
        return data
    }
}

// MARK: - The directory

extension ZipArchiveReader {
    /// Record signatures, and the sizes of their fixed parts.
    private enum Record {
        static let end: UInt32 = 0x0605_4b50, endLength = 22
        static let zip64Locator: UInt32 = 0x0706_4b50, zip64LocatorLength = 20
        static let zip64End: UInt32 = 0x0606_4b50, zip64EndLength = 56
        static let directory: UInt32 = 0x0201_4b50, directoryLength = 46
        static let local: UInt32 = 0x0403_4b50, localLength = 30
    }

    /// What the end records say of the central directory.
    private struct Directory {
        var offset: UInt64
        var size: UInt64
        var count: UInt64
        /// Where the records after the directory begin: it must end there.
        var endsBefore: UInt64
    }

    private static func corrupt(_ what: String) -> ShareError {
        ShareError(.corrupt, "the archive is damaged: \(what)")
    }

    private static func readDirectory(of file: FileHandle, size: UInt64, limits: Limits) throws -> [Entry] {
        let directory = try locateDirectory(in: file, size: size)
        guard directory.count <= UInt64(limits.maxEntries) else {
            throw ShareError(.tooLarge, "more than \(limits.maxEntries) entries")
        }
        guard directory.size <= limits.maxDirectoryBytes else {
            throw ShareError(.tooLarge, "its central directory is larger than \(limits.maxDirectoryBytes >> 20) MiB")
        }
        guard directory.count * UInt64(Record.directoryLength) <= directory.size else {
            throw corrupt("its central directory is too short for the \(directory.count) entries it claims")
        }
        let bytes = try read(Int(directory.size), at: directory.offset, of: file, what: "the central directory")
        var reader = FieldReader(bytes)
        var entries: [Entry] = []
        entries.reserveCapacity(Int(directory.count))
        for _ in 0..<directory.count {
            entries.append(try directoryEntry(&reader, directory: directory))
        }
        guard reader.isAtEnd else { throw corrupt("its central directory holds more than the entries it counts") }
        return try checkLocalHeaders(of: entries, in: file, directory: directory)
    }

    /// The end-of-central-directory record (within the last 22 + 65,535 bytes, its comment
    /// reaching exactly to the end of the file), and the Zip64 records before it when present.
    private static func locateDirectory(in file: FileHandle, size: UInt64) throws -> Directory {
        let tailLength = min(size, UInt64(Record.endLength + Int(UInt16.max)))
        guard tailLength >= UInt64(Record.endLength) else {
            throw ShareError(.corrupt, "not a zip archive, or a truncated one")
        }
        let tailStart = size - tailLength
        let tail = [UInt8](try read(Int(tailLength), at: tailStart, of: file, what: "the end record"))
        var found: Int?
        for start in stride(from: tail.count - Record.endLength, through: 0, by: -1)
        where FieldReader.uint32(tail, at: start) == Record.end {
            let comment = Int(FieldReader.uint16(tail, at: start + 20))
            if start + Record.endLength + comment == tail.count {
                found = start
                break
            }
        }
        guard let start = found else { throw ShareError(.corrupt, "not a zip archive, or a truncated one") }
        let endOffset = tailStart + UInt64(start)
        var end = FieldReader(Data(tail[(start + 4)..<(start + Record.endLength)]))
        let disk = end.uint16()
        let directoryDisk = end.uint16()
        let countOnDisk = end.uint16()
        let count = end.uint16()
        let directorySize = end.uint32()
        let directoryOffset = end.uint32()

        // A Zip64 locator, when there is one, lies just before the end record.
        var zip64: (count: UInt64, size: UInt64, offset: UInt64, endOffset: UInt64)?
        if endOffset >= UInt64(Record.zip64LocatorLength) {
            let locatorOffset = endOffset - UInt64(Record.zip64LocatorLength)
            var locator = FieldReader(
                try read(Record.zip64LocatorLength, at: locatorOffset, of: file, what: "the Zip64 locator"))
            if locator.uint32() == Record.zip64Locator {
                let recordDisk = locator.uint32()
                let recordOffset = locator.uint64()
                let disks = locator.uint32()
                guard recordDisk == 0, disks <= 1 else {
                    throw ShareError(.corrupt, "it is a zip archive of several disks, which a bundle never is")
                }
                guard recordOffset <= locatorOffset, locatorOffset - recordOffset >= UInt64(Record.zip64EndLength)
                else {
                    throw corrupt("its Zip64 locator points outside the file (\(recordOffset))")
                }
                var record = FieldReader(
                    try read(Record.zip64EndLength, at: recordOffset, of: file, what: "the Zip64 end record"))
                guard record.uint32() == Record.zip64End else {
                    throw corrupt("its Zip64 locator does not point at a Zip64 end record")
                }
                let recordSize = record.uint64()
                guard recordSize >= UInt64(Record.zip64EndLength - 12),
                    recordSize <= locatorOffset - recordOffset - 12
                else { throw corrupt("its Zip64 end record declares an impossible size (\(recordSize))") }
                record.skip(4) // versions
                let zip64Disk = record.uint32()
                let zip64DirectoryDisk = record.uint32()
                let zip64CountOnDisk = record.uint64()
                let zip64Count = record.uint64()
                let zip64Size = record.uint64()
                let zip64Offset = record.uint64()
                guard zip64Disk == 0, zip64DirectoryDisk == 0, zip64CountOnDisk == zip64Count else {
                    throw ShareError(.corrupt, "it is a zip archive of several disks, which a bundle never is")
                }
                zip64 = (zip64Count, zip64Size, zip64Offset, recordOffset)
            }
        }

        let directory: Directory
        if let zip64 {
            // The end record's fields are the Zip64 record's, or the marks that send a reader there.
            guard count == 0xFFFF || UInt64(count) == zip64.count,
                countOnDisk == 0xFFFF || UInt64(countOnDisk) == zip64.count,
                directorySize == 0xFFFF_FFFF || UInt64(directorySize) == zip64.size,
                directoryOffset == 0xFFFF_FFFF || UInt64(directoryOffset) == zip64.offset,
                disk == 0xFFFF || disk == 0, directoryDisk == 0xFFFF || directoryDisk == 0
            else { throw corrupt("its end record and its Zip64 end record disagree") }
            directory = Directory(
                offset: zip64.offset, size: zip64.size, count: zip64.count, endsBefore: zip64.endOffset)
        } else {
            guard disk == 0, directoryDisk == 0, countOnDisk == count else {
                throw ShareError(.corrupt, "it is a zip archive of several disks, which a bundle never is")
            }
            guard count != 0xFFFF, directorySize != 0xFFFF_FFFF, directoryOffset != 0xFFFF_FFFF else {
                throw corrupt("its end record sends a reader to a Zip64 record that is not there")
            }
            directory = Directory(
                offset: UInt64(directoryOffset), size: UInt64(directorySize), count: UInt64(count),
                endsBefore: endOffset)
        }
        // The directory ends where the end records begin (the sum is checked for overflow first).
        guard directory.offset <= directory.endsBefore, directory.size == directory.endsBefore - directory.offset
        else {
            throw corrupt(
                "its central directory (\(directory.size) bytes at \(directory.offset)) does not end where its end record begins"
            )
        }
        return directory
    }

    /// One central-directory entry, every field within the directory.
    private static func directoryEntry(_ reader: inout FieldReader, directory: Directory) throws -> Entry {
        guard reader.remaining >= Record.directoryLength, reader.uint32() == Record.directory else {
            throw corrupt("an entry of its central directory is not where the directory says")
        }
        let madeBy = reader.uint16()
        reader.skip(2) // version needed
        let flags = reader.uint16()
        let method = reader.uint16()
        reader.skip(4) // time, date
        let crc32 = reader.uint32()
        let compressed32 = reader.uint32()
        let size32 = reader.uint32()
        let nameLength = Int(reader.uint16())
        let extraLength = Int(reader.uint16())
        let commentLength = Int(reader.uint16())
        let disk = reader.uint16()
        reader.skip(2) // internal attributes
        let attributes = reader.uint32()
        let offset32 = reader.uint32()
        guard reader.remaining >= nameLength + extraLength + commentLength else {
            throw corrupt("an entry's name or extra fields run past its central directory")
        }
        let nameBytes = reader.bytes(nameLength)
        let extra = reader.bytes(extraLength)
        reader.skip(commentLength)
        guard let name = String(validating: nameBytes, as: UTF8.self) else {
            throw ShareError(.unsafeEntry, "an entry's name is not UTF-8")
        }
        let shown = ManifestCheck.shown(name)
        guard flags & 0x41 == 0 else { throw ShareError(.unsafeEntry, "entry '\(shown)' is encrypted") }

        // Zip64's extra field holds, in this order, each of these whose own field is all ones.
        var size = UInt64(size32)
        var compressedSize = UInt64(compressed32)
        var offset = UInt64(offset32)
        var entryDisk = UInt32(disk)
        if size32 == 0xFFFF_FFFF || compressed32 == 0xFFFF_FFFF || offset32 == 0xFFFF_FFFF || disk == 0xFFFF {
            guard var zip64 = try Self.zip64Field(in: extra, of: shown) else {
                throw corrupt("entry '\(shown)' sends a reader to a Zip64 field that is not there")
            }
            func next(_ isMarked: Bool, _ value: inout UInt64) throws {
                guard isMarked else { return }
                guard zip64.remaining >= 8 else { throw corrupt("entry '\(shown)' has a Zip64 field too short") }
                value = zip64.uint64()
            }
            try next(size32 == 0xFFFF_FFFF, &size)
            try next(compressed32 == 0xFFFF_FFFF, &compressedSize)
            try next(offset32 == 0xFFFF_FFFF, &offset)
            if disk == 0xFFFF {
                guard zip64.remaining >= 4 else { throw corrupt("entry '\(shown)' has a Zip64 field too short") }
                entryDisk = zip64.uint32()
            }
        }
        guard entryDisk == 0 else {
            throw ShareError(.corrupt, "it is a zip archive of several disks, which a bundle never is")
        }
        let entryMethod: Entry.Method
        switch method {
        case 0:
            entryMethod = .stored
            guard compressedSize == size else {
                throw corrupt("stored entry '\(shown)' declares \(compressedSize) bytes stored for \(size)")
            }
        case 8: entryMethod = .deflated
        default:
            throw ShareError(.unsafeEntry, "entry '\(shown)' is compressed by method \(method), not stored or deflated")
        }
        // The kind: from the Unix mode when the writer was Unix's, else from MS-DOS's folder bit.
        let mode = madeBy >> 8 == 3 ? attributes >> 16 & 0o170000 : 0
        let kind: Entry.Kind =
            mode == 0o120000
            ? .symbolicLink
            : mode == 0o040000 || attributes & 0x10 != 0 || name.hasSuffix("/") ? .folder : .file
        // Where its local header begins: before the directory, with room for its fixed part.
        guard offset <= directory.offset, directory.offset - offset >= UInt64(Record.localLength) else {
            throw corrupt("entry '\(shown)' points outside the file (\(offset))")
        }
        guard compressedSize <= directory.offset else {
            throw corrupt("entry '\(shown)' declares \(compressedSize) bytes, more than the file holds")
        }
        return Entry(
            name: name, kind: kind, method: entryMethod, crc32: crc32, compressedSize: compressedSize, size: size,
            dataOffset: offset)
    }

    /// The data of the Zip64 extended-information field (tag 1) among `extra`'s fields.
    private static func zip64Field(in extra: Data, of shown: String) throws -> FieldReader? {
        var fields = FieldReader(extra)
        while fields.remaining >= 4 {
            let tag = fields.uint16()
            let length = Int(fields.uint16())
            guard fields.remaining >= length else { throw corrupt("entry '\(shown)' has an extra field cut short") }
            let data = fields.bytes(length)
            if tag == 1 { return FieldReader(data) }
        }
        return nil
    }

    /// Each entry's local header, read where the directory says: its name is the directory's,
    /// its bytes lie before the directory, and no entry's bytes overlap another's (a zip bomb
    /// of overlapping entries is refused, not inflated). Returns the entries with their data's
    /// offset past the local header.
    private static func checkLocalHeaders(of entries: [Entry], in file: FileHandle, directory: Directory) throws
        -> [Entry]
    {
        var checked = entries
        var ends: [(start: UInt64, end: UInt64)] = []
        ends.reserveCapacity(entries.count)
        for index in checked.indices {
            let entry = checked[index]
            let shown = ManifestCheck.shown(entry.name)
            let headerOffset = entry.dataOffset
            var header = FieldReader(
                try read(Record.localLength, at: headerOffset, of: file, what: "entry '\(shown)'"))
            guard header.uint32() == Record.local else {
                throw corrupt("entry '\(shown)' has no local header where the directory says")
            }
            header.skip(22)
            let nameLength = UInt64(header.uint16())
            let extraLength = UInt64(header.uint16())
            let dataOffset = headerOffset + UInt64(Record.localLength) + nameLength + extraLength
            guard dataOffset <= directory.offset, entry.compressedSize <= directory.offset - dataOffset else {
                throw corrupt("entry '\(shown)' runs into the central directory")
            }
            let localName = try read(
                Int(nameLength), at: headerOffset + UInt64(Record.localLength), of: file, what: "entry '\(shown)'")
            guard localName == Data(entry.name.utf8) else {
                throw corrupt("entry '\(shown)' has another name in its local header")
            }
            checked[index].dataOffset = dataOffset
            ends.append((headerOffset, dataOffset + entry.compressedSize))
        }
        ends.sort { $0.start < $1.start }
        for (earlier, later) in zip(ends, ends.dropFirst()) where earlier.end > later.start {
            throw ShareError(.unsafeEntry, "two entries share bytes: refused as a zip bomb")
        }
        return checked
    }

    /// `count` bytes at `offset`, which the caller has checked lie in the file; an error naming
    /// `what` if the file is shorter.
    private static func read(_ count: Int, at offset: UInt64, of file: FileHandle, what: String) throws -> Data {
        try file.seek(toOffset: offset)
        let data = try file.read(upToCount: count) ?? Data()
        guard data.count == count else { throw corrupt("\(what) is cut short: the file ends in it") }
        return data
    }
}

/// Little-endian fields read in turn from bytes the caller has checked are long enough.
private struct FieldReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    var remaining: Int { bytes.count - position }
    var isAtEnd: Bool { position == bytes.count }

    mutating func skip(_ count: Int) { position += count }

    mutating func bytes(_ count: Int) -> Data {
        defer { position += count }
        return Data(bytes[position..<(position + count)])
    }

    mutating func uint16() -> UInt16 {
        defer { position += 2 }
        return Self.uint16(bytes, at: position)
    }

    mutating func uint32() -> UInt32 {
        defer { position += 4 }
        return Self.uint32(bytes, at: position)
    }

    mutating func uint64() -> UInt64 {
        UInt64(uint32()) | UInt64(uint32()) << 32
    }

    static func uint16(_ bytes: [UInt8], at index: Int) -> UInt16 {
        UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    static func uint32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        UInt32(uint16(bytes, at: index)) | UInt32(uint16(bytes, at: index + 2)) << 16
    }
}
