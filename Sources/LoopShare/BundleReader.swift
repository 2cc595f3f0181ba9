import Crypto
import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopModel
import LoopPictures

/// A bundle that passed every check: its manifest, who signed it, and its audio extracted.
public struct VerifiedBundle: Sendable {
    /// The manifest, decoded and checked.
    public var manifest: BundleManifest
    /// The signer's public key, and its fingerprint.
    public var signerKey: Data
    /// See ``signerKey``.
    public var signerFingerprint: String
    /// Who signed it, for people: the name the bundle gives with the key's fingerprint, or the
    /// fingerprint alone.
    public var signer: String {
        manifest.authorName.map { "\($0) (key \(signerFingerprint))" } ?? "key \(signerFingerprint)"
    }
    /// Extracted audio files by SHA-256 (in the folder the reader was given), not yet synced to
    /// disk: whoever keeps one syncs it.
    public var audioFiles: [String: String]
    /// Extracted pictures by SHA-256, each checked as a picture (not yet synced, as the audio).
    public var pictureFiles: [String: (path: String, info: PictureInfo)] = [:]
}

/// Reads a bundle as hostile input: every entry is checked before anything is written, sizes
/// are bounded while extracting (not after), and the manifest, its signature, every audio
/// file's hash and its decoding are verified. Anything wrong is one clear error.
public struct BundleReader: Sendable {
    /// What a bundle may hold at most, checked as it is read.
    public struct Limits: Sendable {
        /// Entries in the zip.
        public var maxEntries = 10_000
        /// Bytes of `manifest.json`.
        public var maxManifestBytes = 8 << 20
        /// Bytes of `manifest.sig`.
        public var maxSignatureBytes = 1_024
        /// Bytes of every entry together, uncompressed.
        public var maxTotalBytes: Int64 = 8 << 30
        /// Compressed entries may not expand more than this (a deflated manifest or signature).
        public var maxExpansion: UInt64 = 200
        /// The limits that protect a library or a server.
        public init() {}
    }

    /// The limits this reader holds a bundle to.
    public var limits = Limits()
    /// How each picture is checked once extracted. By its bytes alone (type, size, whole) unless
    /// given: a server never decodes what it serves; a library passes a check that also decodes
    /// the picture (`PictureDecoder.check`) before it keeps it.
    public var checkPicture: @Sendable (String) throws(PictureError) -> PictureInfo

    /// A reader; pictures are checked by `checkPicture` (their header alone unless told).
    public init(
        checkPicture: @escaping @Sendable (String) throws(PictureError) -> PictureInfo = { path throws(PictureError) in
            try PictureFile.checkHeader(path)
        }
    ) {
        self.checkPicture = checkPicture
    }

    /// Checks the bundle at `path` and extracts its audio into `folder`.
    public func read(_ path: String, extractingTo folder: String) throws(ShareError) -> VerifiedBundle {
        do {
            return try readChecked(path, folder: folder)
        } catch let error as ShareError {
            throw ShareError(error.kind, error.message, path: path)
        } catch let error where DiskSpace.isOutOfSpace(error) {
            let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            let device = DiskSpace.mountPoint(of: folder) ?? folder
            throw ShareError(
                .writeFailed,
                DiskSpace.message(at: device, needing: bytes)
                    + "; free some space and try again (nothing was imported)", path: path)
        } catch {
            throw ShareError(.corrupt, "the bundle is damaged (\(error))", path: path)
        }
    }

    private func readChecked(_ path: String, folder: String) throws -> VerifiedBundle {
        // A folder, a FIFO or a device would make the zip reader spin or block: refused first.
        if let problem = RegularFile.problem(at: path) {
            throw ShareError(
                .corrupt, problem == "is a folder, not a file" ? "is a folder, not a bundle file" : problem)
        }
        let archive = try ZipArchiveReader(path: path, limits: .init(maxEntries: limits.maxEntries))

        // 1. Every entry: a plain file, a safe and expected name, once.
        var entries: [String: ZipArchiveReader.Entry] = [:]
        for entry in archive.entries {
            let name = entry.name
            guard entry.kind == .file else {
                throw ShareError(
                    .unsafeEntry,
                    "entry '\(ManifestCheck.shown(name))' is a \(entry.kind == .symbolicLink ? "symbolic link" : "folder"), which a bundle never holds"
                )
            }
            guard Self.isSafe(name) else {
                throw ShareError(.unsafeEntry, "entry '\(ManifestCheck.shown(name))' has an unsafe path")
            }
            guard entries[name] == nil else {
                throw ShareError(.unsafeEntry, "entry '\(ManifestCheck.shown(name))' appears twice")
            }
            guard
                name == "manifest.json" || name == "manifest.sig" || Self.isAudioName(name) || Self.isPictureName(name)
            else {
                throw ShareError(.unsafeEntry, "entry '\(ManifestCheck.shown(name))' is not part of the bundle format")
            }
            entries[name] = entry
        }
        guard let manifestEntry = entries["manifest.json"] else {
            throw ShareError(.badManifest, "manifest.json is missing")
        }
        guard let signatureEntry = entries["manifest.sig"] else {
            throw ShareError(.badSignature, "the bundle is not signed (manifest.sig is missing)")
        }

        // 2. The manifest and its signature, bounded while reading.
        let manifestData = try extract(manifestEntry, from: archive, limit: limits.maxManifestBytes)
        let manifest = try BundleManifest.decode(manifestData)
        try ManifestCheck.check(manifest)
        let signatureText = String(
            decoding: try extract(signatureEntry, from: archive, limit: limits.maxSignatureBytes), as: UTF8.self)
        guard let key = Data(base64Encoded: manifest.authorKey), key.count == 32 else {
            throw ShareError(.badSignature, "the manifest's author key is not an Ed25519 key")
        }
        guard let signature = Data(base64Encoded: signatureText.trimmingCharacters(in: .whitespacesAndNewlines)),
            AuthorIdentity.verify(signature, of: manifestData, publicKey: key)
        else {
            throw ShareError(
                .badSignature,
                "the signature does not match the manifest: the bundle was changed after it was signed, or not signed by its author"
            )
        }

        // 3. The entries are exactly what the manifest lists; the clips fit their audio.
        let listed = Dictionary(manifest.audio.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        guard listed.count == manifest.audio.count else {
            throw ShareError(.badManifest, "the manifest lists an audio file twice")
        }
        for audio in manifest.audio {
            guard audio.file == BundleLayout.audioFile(sha256: audio.sha256), Self.isAudioName(audio.file) else {
                throw ShareError(.badManifest, "audio '\(audio.file)' is not named by its SHA-256")
            }
            guard entries[audio.file] != nil else {
                throw ShareError(.badManifest, "audio '\(audio.file)' is listed but missing")
            }
            guard audio.bytes >= 0, audio.frames > 0, audio.sampleRate > 0, audio.channels > 0 else {
                throw ShareError(.badManifest, "audio '\(audio.file)' has impossible sizes")
            }
            guard Int64(audio.bytes) <= limits.maxTotalBytes else {
                throw ShareError(.tooLarge, "audio '\(audio.file)' is larger than \(limits.maxTotalBytes >> 30) GiB")
            }
        }
        let pictures = manifest.pictures ?? []
        let listedPictures = Dictionary(pictures.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        guard listedPictures.count == pictures.count else {
            throw ShareError(.badManifest, "the manifest lists a picture twice")
        }
        for picture in pictures {
            guard let format = PictureFormat(rawValue: picture.format),
                picture.file == BundleLayout.pictureFile(sha256: picture.sha256, fileExtension: format.fileExtension),
                Self.isPictureName(picture.file)
            else {
                throw ShareError(.badManifest, "picture '\(picture.file)' is not named by its SHA-256 and format")
            }
            guard entries[picture.file] != nil else {
                throw ShareError(.badManifest, "picture '\(picture.file)' is listed but missing")
            }
            guard (1...PictureFile.maxBytes).contains(picture.bytes) else {
                throw ShareError(
                    .tooLarge, "picture '\(picture.file)' is larger than \(PictureFile.maxBytes >> 20) MiB")
            }
        }
        for loop in manifest.loops {
            let named = [loop.picture] + loop.groups.flatMap { [$0.picture] + $0.phrases.map(\.picture) }
            for case let file? in named where listedPictures[file] == nil {
                throw ShareError(
                    .badManifest, "'\(loop.title)' shows picture '\(file)', which the manifest does not list")
            }
        }
        guard entries.count == manifest.audio.count + pictures.count + 2 else {
            let extra = entries.keys.filter {
                $0 != "manifest.json" && $0 != "manifest.sig" && listed[$0] == nil && listedPictures[$0] == nil
            }.sorted()
            throw ShareError(
                .unsafeEntry, "entries the manifest does not list: \(extra.prefix(3).joined(separator: ", "))")
        }
        // Each is at most the limit, and there are at most `maxEntries`: the sum cannot overflow.
        guard manifest.audio.reduce(Int64(0), { $0 + Int64($1.bytes) }) <= limits.maxTotalBytes else {
            throw ShareError(.tooLarge, "the audio is larger than \(limits.maxTotalBytes >> 30) GiB")
        }
        for loop in manifest.loops {
            for phrase in loop.groups.flatMap(\.phrases) {
                guard let clip = phrase.clip else { continue }
                guard let audio = listed[clip.audio], clip.start >= 0, clip.end > clip.start, clip.end <= audio.frames
                else {
                    throw ShareError(.badManifest, "a clip of '\(loop.title)' lies outside its audio")
                }
            }
        }

        // 4. The audio: at most its declared bytes each, hashed on the way, then decoded.
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var files: [String: String] = [:]
        for audio in manifest.audio {
            let destination = folder + "/" + audio.sha256 + ".flac"
            guard let entry = entries[audio.file] else {
                throw ShareError(.badManifest, "audio '\(audio.file)' is listed but missing")
            }
            let digest = try extract(entry, from: archive, limit: audio.bytes, to: destination)
            guard digest == audio.sha256 else {
                throw ShareError(.badAudio, "audio '\(audio.file)' does not match its SHA-256")
            }
            do {
                let info = try AudioFileReader(path: destination).info
                guard info.format == .flac, info.sampleRate == audio.sampleRate, info.channelCount == audio.channels,
                    info.frameCount == audio.frames
                else {
                    throw ShareError(
                        .badAudio,
                        "audio '\(audio.file)' is not what the manifest says (FLAC, rate, channels or length)")
                }
                try AudioFileReader.verifyDecodes(path: destination)
            } catch let error as AudioError {
                throw ShareError(.badAudio, "audio '\(audio.file)' does not decode (\(error.message))")
            }
            files[audio.sha256] = destination
        }
        // 5. The pictures: as the audio, then checked as pictures (type, pixels, damage).
        var pictureFiles: [String: (path: String, info: PictureInfo)] = [:]
        for picture in pictures {
            guard let entry = entries[picture.file], let format = PictureFormat(rawValue: picture.format) else {
                continue
            }
            let destination = folder + "/" + picture.sha256 + "." + format.fileExtension
            let digest = try extract(entry, from: archive, limit: picture.bytes, to: destination)
            guard digest == picture.sha256 else {
                throw ShareError(.badPicture, "picture '\(picture.file)' does not match its SHA-256")
            }
            let info: PictureInfo
            do {
                info = try checkPicture(destination)
            } catch {
                throw ShareError(.badPicture, "picture '\(picture.file)' is refused (\(error.message))")
            }
            guard info.format == format, info.width == picture.width, info.height == picture.height else {
                throw ShareError(
                    .badPicture, "picture '\(picture.file)' is not what the manifest says (format or size)")
            }
            pictureFiles[picture.sha256] = (destination, info)
        }
        TestStop.reached("bundle.extracted")
        return VerifiedBundle(
            manifest: manifest, signerKey: key, signerFingerprint: AuthorIdentity.fingerprint(of: key),
            audioFiles: files,
            pictureFiles: pictureFiles)
    }

    /// An entry's bytes (into memory, or a file), stopping as soon as there are more than
    /// `limit`: a zip bomb is caught while it expands, not after. Returns the data, or the
    /// SHA-256 of what was written.
    private func extract(_ entry: ZipArchiveReader.Entry, from archive: borrowing ZipArchiveReader, limit: Int) throws
        -> Data
    {
        try checkDeclared(entry, limit: limit)
        var data = Data()
        try archive.read(entry) { data.append($0) }
        try Self.checkCRC32(CRC32Checksum.of(data), of: entry)
        return data
    }

    private func extract(
        _ entry: ZipArchiveReader.Entry, from archive: borrowing ZipArchiveReader, limit: Int, to path: String
    ) throws -> String {
        try checkDeclared(entry, limit: limit)
        guard entry.size == UInt64(limit) else {
            throw ShareError(
                .badAudio,
                "entry '\(ManifestCheck.shown(entry.name))' holds \(entry.size) bytes, not the \(limit) the manifest declares"
            )
        }
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let output = FileHandle(forWritingAtPath: path)
        else {
            throw ShareError(.writeFailed, "cannot write \(path)")
        }
        defer { try? output.close() }
        var hasher = SHA256()
        // The SHA-256 proves these bytes; the CRC-32 is checked too, so that a damaged archive
        // is reported as damaged rather than as audio that does not match.
        var checksum: UInt32 = 0
        try archive.read(entry) { chunk in
            hasher.update(data: chunk)
            checksum = CRC32Checksum.of(chunk, continuing: checksum)
            try output.write(contentsOf: chunk)
        }
        try Self.checkCRC32(checksum, of: entry)
        // Not synced here: whoever keeps the file syncs it as it puts it in place (a
        // content-addressed folder's `adopt`), and one whose copy is kept already drops it.
        return ContentAddress.hex(hasher.finalize())
    }

    /// Whether an entry's bytes have the CRC-32 its header declares (`checksum`, computed as
    /// they were extracted).
    private static func checkCRC32(_ checksum: UInt32, of entry: ZipArchiveReader.Entry) throws {
        guard checksum == entry.crc32 else {
            throw ShareError(
                .corrupt, "the archive is damaged (entry '\(ManifestCheck.shown(entry.name))' fails its CRC-32 check)")
        }
    }

    /// Refuses an entry whose header declares more than `limit` bytes, or an expansion past the
    /// limits' (before a byte of it is inflated).
    private func checkDeclared(_ entry: ZipArchiveReader.Entry, limit: Int) throws {
        guard entry.size <= UInt64(limit) else {
            throw ShareError(
                .tooLarge,
                "entry '\(ManifestCheck.shown(entry.name))' declares \(entry.size) bytes, more than \(limit)"
            )
        }
        let compressed = max(entry.compressedSize, 1)
        guard entry.size / compressed <= limits.maxExpansion else {
            throw ShareError(
                .tooLarge,
                "entry '\(ManifestCheck.shown(entry.name))' expands \(entry.size / compressed) times: refused as a zip bomb"
            )
        }
    }

    static func isSafe(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix("/") && !name.contains("\\") && !name.contains("\0")
            && !name.split(separator: "/", omittingEmptySubsequences: false).contains {
                $0 == ".." || $0 == "." || $0.isEmpty
            }
    }

    static func isPictureName(_ name: String) -> Bool {
        guard name.hasPrefix(BundleLayout.picturesFolder), let dot = name.lastIndex(of: "."),
            PictureFormat.allCases.contains(where: { $0.fileExtension == name[name.index(after: dot)...] })
        else { return false }
        let hash = name[name.index(name.startIndex, offsetBy: BundleLayout.picturesFolder.count)..<dot]
        return hash.count == 64 && hash.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    static func isAudioName(_ name: String) -> Bool {
        guard name.hasPrefix(BundleLayout.audioFolder), name.hasSuffix(".flac") else { return false }
        let hash = BundleLayout.sha256(ofAudioFile: name)
        return hash.count == 64 && hash.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }
}

extension BundleReader {
    /// The ids of the loops a bundle holds, read from its manifest alone (nothing verified):
    /// enough to tell which earlier file a publish replaces. Nil when it is no readable bundle.
    public static func loopIds(inBundleAt path: String) -> [String]? {
        guard RegularFile.problem(at: path) == nil,
            let archive = try? ZipArchiveReader(path: path, limits: .init(maxEntries: Limits().maxEntries)),
            let entry = archive.entries.first(where: { $0.name == "manifest.json" }),
            entry.size <= UInt64(Limits().maxManifestBytes)
        else { return nil }
        var data = Data()
        guard (try? archive.read(entry) { data.append($0) }) != nil, CRC32Checksum.of(data) == entry.crc32,
            let manifest = try? BundleManifest.decode(data)
        else { return nil }
        return manifest.loops.map(\.id)
    }
}
