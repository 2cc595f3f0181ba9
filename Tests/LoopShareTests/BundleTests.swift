import Crypto
import Foundation
import LoopAudioFiles
import LoopFFmpeg
import LoopFoundation
import LoopModel
import LoopPictures
import LoopStore
import LoopTestSupport
import LoopText
import Testing
import ZIPFoundation

@testable import LoopShare

extension Fixture {
    static let ranges: [Range<Int>] = [
        6_080..<26_600, 35_200..<59_900, 63_900..<72_600, 88_900..<117_500, 123_400..<147_400,
    ]
}

func scratch() -> String { Scratch.path("share") }

/// A library with the fixture loop, its identity, and the loop exported to a bundle.
func exportedBundle() throws -> (library: LibraryStore, identity: AuthorIdentity, loop: LoopDetail, bundle: String) {
    let library = try LibraryStore(at: scratch())
    let loop = try library.createLoop(
        source: try LoopSource(contentsOf: Fixture.path("phrases.txt")),
        take: CutTake(path: Fixture.path("clean.flac"), ranges: Fixture.ranges))
    let identity = try AuthorIdentity.loadOrCreate(at: library.layout.identityKey)
    let bundle = scratch() + ".loop"
    try BundleWriter(identity: identity).write([loop], to: bundle)
    return (library, identity, loop, bundle)
}

/// The bundle's entries, to rebuild variants of it.
func entries(of bundle: String) throws -> [(String, Data)] {
    let archive = try Archive(url: URL(fileURLWithPath: bundle), accessMode: .read)
    return try archive.map { entry in
        var data = Data()
        _ = try archive.extract(entry) { data.append($0) }
        return (entry.path, data)
    }
}

/// A zip of these entries (symbolic links where asked).
func makeZip(_ entries: [(String, Data)], symlinks: Set<String> = [], compressed: Bool = false) throws -> String {
    let path = scratch() + ".loop"
    let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
    for (name, data) in entries {
        try archive.addEntry(
            with: name, type: symlinks.contains(name) ? .symlink : .file, uncompressedSize: Int64(data.count),
            compressionMethod: compressed && !symlinks.contains(name) ? .deflate : .none
        ) { position, size in
            data.subdata(in: Int(position)..<(Int(position) + size))
        }
    }
    return path
}

/// Rebuilds a bundle with its manifest changed by `edit` and signed again by `identity`.
func resigned(
    _ bundle: String, by identity: AuthorIdentity, edit: (inout [String: Any]) -> Void, extra: [(String, Data)] = []
) throws -> String {
    var parts = try entries(of: bundle)
    let manifestIndex = parts.firstIndex { $0.0 == "manifest.json" }!
    var object = try JSONSerialization.jsonObject(with: parts[manifestIndex].1) as! [String: Any]
    edit(&object)
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    parts[manifestIndex].1 = data
    let signatureIndex = parts.firstIndex { $0.0 == "manifest.sig" }!
    parts[signatureIndex].1 = Data(try identity.sign(data).base64EncodedString().utf8)
    return try makeZip(parts + extra)
}

func expectRefused(
    _ bundle: String, _ code: ShareFailure, containing text: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let folder = scratch()
    #expect(sourceLocation: sourceLocation) {
        _ = try BundleReader().read(bundle, extractingTo: folder)
    } throws: { error in
        guard let error = error as? ShareError else { return false }
        return error.kind == code && error.description.contains(text) && error.description.hasPrefix(bundle)
    }
}

struct BundleRoundTripTests {
    @Test func anExportedBundleVerifiesAndHoldsTheLoopAndItsTake() throws {
        let (_, identity, loop, bundle) = try exportedBundle()
        let folder = scratch()
        let verified = try BundleReader().read(bundle, extractingTo: folder)
        #expect(verified.signerFingerprint == identity.fingerprint)
        let manifest = verified.manifest
        #expect(manifest.version == 1 && manifest.loops.count == 1)
        let shared = manifest.loops[0]
        #expect(shared.id == loop.summary.id && shared.revision == 1 && shared.title == "Fixture")
        #expect(shared.groups.map { $0.phrases.map(\.text) } == loop.groups.map { $0.map(\.text) })
        #expect(shared.groups.flatMap(\.phrases).map { $0.clip?.start } == Fixture.ranges.map(\.lowerBound))
        #expect(manifest.audio.count == 1)
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("clean.flac")))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: verified.audioFiles[manifest.audio[0].sha256]!)) == original,
            "a FLAC take travels as it is")
    }

    /// A take larger than the reader's chunks (1 MiB) is read whole: each entry's CRC-32,
    /// computed by the reader as it extracts, runs on from chunk to chunk.
    @Test func aTakeOfManyMegabytesVerifiesAndTravelsAsItIs() throws {
        // 50 s of noise at 16 kHz: FLAC cannot make it much smaller than its 1.6 MB.
        let take = scratch() + ".flac"
        do {
            var writer = try AudioFileWriter(path: take, format: .flac, sampleRate: 16_000, channelCount: 1)
            var generator = SplitMix64(seed: 7)
            let noise = (0..<800_000).map { _ in Float(Int(generator.next() % 20_001) - 10_000) / 20_000 }
            try writer.write(noise)
            try writer.commit()
        }
        let original = try Data(contentsOf: URL(fileURLWithPath: take))
        #expect(original.count > 1 << 20)
        let library = try LibraryStore(at: scratch())
        let loop = try library.createLoop(
            source: try LoopSource(contentsOf: Fixture.path("phrases.txt")),
            take: CutTake(path: take, ranges: Fixture.ranges))
        let bundle = scratch() + ".loop"
        try BundleWriter(identity: try AuthorIdentity.loadOrCreate(at: library.layout.identityKey)).write(
            [loop], to: bundle)
        let verified = try BundleReader().read(bundle, extractingTo: scratch())
        let sha256 = try #require(verified.manifest.audio.first?.sha256)
        #expect(try Data(contentsOf: URL(fileURLWithPath: try #require(verified.audioFiles[sha256]))) == original)
    }

    @Test func aBundleWrittenToSendKnowsItsOwnHashAndLength() throws {
        let (library, identity, loop, _) = try exportedBundle()
        _ = library
        let bundle = scratch() + ".loop"
        let written = try BundleWriter(identity: identity).writeToSend([loop], to: bundle)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        #expect(written.bytes == bytes.count)
        #expect(written.sha256 == ContentAddress.hex(SHA256.hash(data: bytes)))
        let verified = try BundleReader().read(bundle, extractingTo: scratch())
        #expect(verified.manifest == written.manifest)
        #expect(verified.manifest.loops.first?.id == loop.summary.id)
    }

    @Test func sizesAndOffsetsPastFourGiBAreWrittenAsZip64() throws {
        // Every size, offset and the central directory's place as Zip64 (the writer's bound
        // lowered to 0): ZIPFoundation and the bundle reader read it all back, every CRC checked.
        let (_, _, _, bundle) = try exportedBundle()
        let original = try entries(of: bundle)
        let path = scratch() + ".loop"
        let written: (sha256: String, bytes: Int)
        do {
            var archive = try ZipArchiveWriter(creating: path, zip64Above: 0)
            for (name, data) in original {
                if name.hasPrefix("audio/") {
                    let file = scratch() + ".flac"
                    try data.write(to: URL(fileURLWithPath: file))
                    try archive.addFile(at: file, as: name)
                } else {
                    try archive.add(data, as: name, deflated: name == "manifest.json")
                }
            }
            written = try archive.finish()
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written.bytes == bytes.count)
        #expect(written.sha256 == ContentAddress.hex(SHA256.hash(data: bytes)))
        let reread = try entries(of: path)
        #expect(reread.map(\.0) == original.map(\.0))
        #expect(reread.map(\.1) == original.map(\.1))
        let verified = try BundleReader().read(path, extractingTo: scratch())
        #expect(verified.audioFiles.count == 1)
    }

    @Test func theIdentityIsKeptOwnerOnlyAndSurvivesABackup() throws {
        let key = scratch() + "/identity/ed25519.key"
        let identity = try AuthorIdentity.loadOrCreate(at: key)
        let attributes = try FileManager.default.attributesOfItem(atPath: key)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try AuthorIdentity.loadOrCreate(at: key).fingerprint == identity.fingerprint, "created once")
        let other = scratch() + "/identity/ed25519.key"
        let restored = try AuthorIdentity.restore(Data(identity.exported.utf8), into: other, source: "backup")
        #expect(restored.fingerprint == identity.fingerprint)
        #expect(throws: ShareError.self) {
            _ = try AuthorIdentity.restore(Data("not a key".utf8), into: other, source: "backup")
        }
    }
}

struct HostileBundleTests {
    @Test func aChangedManifestFailsItsSignature() throws {
        let (_, _, _, bundle) = try exportedBundle()
        var parts = try entries(of: bundle)
        let index = parts.firstIndex { $0.0 == "manifest.json" }!
        parts[index].1 = Data(
            String(decoding: parts[index].1, as: UTF8.self).replacingOccurrences(of: "Fixture", with: "Fixturf").utf8)
        expectRefused(try makeZip(parts), .badSignature, containing: "signature does not match")
    }

    @Test func anUnsignedBundleIsRefused() throws {
        let (_, _, _, bundle) = try exportedBundle()
        expectRefused(
            try makeZip(try entries(of: bundle).filter { $0.0 != "manifest.sig" }), .badSignature,
            containing: "not signed")
    }

    @Test(arguments: ["../evil.txt", "/etc/evil", "audio/../../evil", "audio//x.flac", "a\\b"])
    func unsafePathsAreRefused(name: String) throws {
        let (_, _, _, bundle) = try exportedBundle()
        expectRefused(
            try makeZip(try entries(of: bundle) + [(name, Data("x".utf8))]), .unsafeEntry, containing: "unsafe path")
    }

    @Test func anEntryWithAHugeNameIsNamedInAShortLine() throws {
        let (_, _, _, bundle) = try exportedBundle()
        let name = String(repeating: "n", count: 60_000) + "\u{1B}[2J"
        let folder = scratch()
        #expect {
            _ = try BundleReader().read(
                try makeZip(try entries(of: bundle) + [(name, Data("x".utf8))]), extractingTo: folder)
        } throws: { error in
            guard let error = error as? ShareError else { return false }
            return error.kind == .unsafeEntry
                && error.description.contains("entry '" + String(repeating: "n", count: 60) + "…'")
                && error.description.utf8.count < 600 && !error.description.contains("\u{1B}")
        }
    }

    @Test func symbolicLinksAreRefused() throws {
        let (_, _, _, bundle) = try exportedBundle()
        expectRefused(
            try makeZip(try entries(of: bundle) + [("link", Data("/etc/passwd".utf8))], symlinks: ["link"]),
            .unsafeEntry, containing: "symbolic link")
    }

    @Test func duplicateAndUnlistedEntriesAreRefused() throws {
        let (_, _, _, bundle) = try exportedBundle()
        let parts = try entries(of: bundle)
        expectRefused(try makeZip(parts + [parts[0]]), .unsafeEntry, containing: "appears twice")
        expectRefused(
            try makeZip(parts + [("notes.txt", Data("hi".utf8))]), .unsafeEntry,
            containing: "not part of the bundle format")
        let stray = "audio/" + String(repeating: "a", count: 64) + ".flac"
        expectRefused(try makeZip(parts + [(stray, Data("x".utf8))]), .unsafeEntry, containing: "does not list")
    }

    @Test func aZipBombIsStoppedWhileItExpands() throws {
        let (_, _, _, bundle) = try exportedBundle()
        var parts = try entries(of: bundle)
        let index = parts.firstIndex { $0.0 == "manifest.json" }!
        parts[index].1 = Data(repeating: 0x20, count: 40 << 20) // 40 MB of spaces: deflates to almost nothing
        expectRefused(try makeZip(parts, compressed: true), .tooLarge, containing: "manifest.json")
    }

    @Test func anEntryDeclaringAHugeExpansionIsRefusedFromItsHeader() throws {
        // 4 MB of spaces (within the manifest's 8 MiB) that deflate a thousandfold: refused on
        // what the headers declare, before a byte is expanded.
        let (_, _, _, bundle) = try exportedBundle()
        var parts = try entries(of: bundle)
        let index = try #require(parts.firstIndex { $0.0 == "manifest.json" })
        parts[index].1 = Data(repeating: 0x20, count: 4 << 20)
        expectRefused(try makeZip(parts, compressed: true), .tooLarge, containing: "entry 'manifest.json' expands ")
        expectRefused(try makeZip(parts, compressed: true), .tooLarge, containing: " times: refused as a zip bomb")
    }

    /// Rewrites the uncompressed size that the local and central headers of `name` declare.
    func lying(_ zip: String, about name: String, declaring size: UInt32) throws -> String {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: zip))
        let nameBytes = Data(name.utf8)
        func patch(signature: [UInt8], lengthOffset: Int, nameOffset: Int, sizeOffset: Int) {
            var from = 0
            while let found = bytes.range(of: Data(signature), in: from..<bytes.count) {
                let start = found.lowerBound
                let length = Int(bytes[start + lengthOffset]) | Int(bytes[start + lengthOffset + 1]) << 8
                if length == nameBytes.count, bytes[(start + nameOffset)..<(start + nameOffset + length)] == nameBytes {
                    for k in 0..<4 { bytes[start + sizeOffset + k] = UInt8((size >> (8 * UInt32(k))) & 0xFF) }
                }
                from = found.upperBound
            }
        }
        // The local file header, then the central directory.
        patch(signature: [0x50, 0x4B, 0x03, 0x04], lengthOffset: 26, nameOffset: 30, sizeOffset: 22)
        patch(signature: [0x50, 0x4B, 0x01, 0x02], lengthOffset: 28, nameOffset: 46, sizeOffset: 24)
        let path = scratch() + ".loop"
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aZipBombWhoseHeaderLiesIsStoppedAtItsLimitWhileItExpands() throws {
        // 40 MB of spaces that the headers say is 1 KB: the header checks pass, and the
        // extraction itself stops as soon as it passes the size its header declares.
        let (_, _, _, bundle) = try exportedBundle()
        var parts = try entries(of: bundle)
        let index = try #require(parts.firstIndex { $0.0 == "manifest.json" })
        parts[index].1 = Data(repeating: 0x20, count: 40 << 20)
        let bomb = try lying(try makeZip(parts, compressed: true), about: "manifest.json", declaring: 1_024)
        expectRefused(
            bomb, .tooLarge, containing: "entry 'manifest.json' expands beyond the 1024 bytes its header declares")
    }

    @Test func anAudioEntryLargerThanItsManifestSaysIsStoppedAtTheDeclaredSize() throws {
        // The take with 100 bytes more than the manifest declares, deflated, the header lying to
        // match (a stored entry is read only as far as its header says).
        let (_, _, _, bundle) = try exportedBundle()
        var parts = try entries(of: bundle)
        let index = try #require(parts.firstIndex { $0.0.hasPrefix("audio/") })
        let declared = parts[index].1.count
        parts[index].1 += Data(repeating: 7, count: 100)
        let grown = try lying(try makeZip(parts, compressed: true), about: parts[index].0, declaring: UInt32(declared))
        expectRefused(grown, .tooLarge, containing: "expands beyond the \(declared) bytes its header declares")
    }

    @Test func anAudioFileListedButMissingIsRefused() throws {
        let (_, identity, _, bundle) = try exportedBundle()
        let missing = String(repeating: "b", count: 64)
        let listed = try resigned(bundle, by: identity) { manifest in
            var audio = manifest["audio"] as? [[String: Any]] ?? []
            var extra = audio[0]
            extra["file"] = "audio/\(missing).flac"
            extra["sha256"] = missing
            audio.append(extra)
            manifest["audio"] = audio
        }
        expectRefused(listed, .badManifest, containing: "audio 'audio/\(missing).flac' is listed but missing")
    }

    @Test func aTruncatedOrCorruptArchiveIsRefused() throws {
        let (_, _, _, bundle) = try exportedBundle()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        let truncated = scratch() + ".loop"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        expectRefused(truncated, .corrupt, containing: "zip")
        let garbage = scratch() + ".loop"
        try Data("PK not really".utf8).write(to: URL(fileURLWithPath: garbage))
        expectRefused(garbage, .corrupt, containing: "zip")
    }

    /// A zip archive ends with its directory's end record, its comment reaching exactly to the
    /// end of the file, so only the last 64 KiB are read to find it (ZIPFoundation looked for the
    /// record byte by byte back through the whole file: a 50 MB file of zeros took 17 s, a
    /// server's 200 MiB upload from any key over a minute of a core). A file without one there
    /// is refused, and so is a bundle with anything appended after its end.
    @Test func aFileWithoutAZipEndWhereItBelongsIsRefusedUnopened() throws {
        let zeros = scratch() + ".loop"
        #expect(FileManager.default.createFile(atPath: zeros, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: zeros))
        try handle.truncate(atOffset: 64 << 20)
        try handle.close()
        expectRefused(zeros, .corrupt, containing: "not a zip archive")
        let (_, _, _, bundle) = try exportedBundle()
        let appended = scratch() + ".loop"
        try (Data(contentsOf: URL(fileURLWithPath: bundle)) + Data(count: 70_000)).write(
            to: URL(fileURLWithPath: appended))
        expectRefused(appended, .corrupt, containing: "not a zip archive")
        #expect(BundleReader.loopIds(inBundleAt: appended) == nil)
        // A few bytes after the end record, which its comment does not account for: refused too.
        let trailing = scratch() + ".loop"
        try (Data(contentsOf: URL(fileURLWithPath: bundle)) + Data(count: 100)).write(
            to: URL(fileURLWithPath: trailing))
        expectRefused(trailing, .corrupt, containing: "not a zip archive")
        // With its end where it belongs, the same bundle still reads.
        #expect(BundleReader.loopIds(inBundleAt: bundle)?.count == 1)
    }

    @Test func malformedJSONUnknownFieldsAndNewerVersionsAreRefused() throws {
        let (_, identity, _, bundle) = try exportedBundle()
        var parts = try entries(of: bundle)
        let index = parts.firstIndex { $0.0 == "manifest.json" }!
        parts[index].1 = Data("{\"format\": \"looplearn-bundle\", \"version\": 1, \"loops\": [".utf8)
        expectRefused(try makeZip(parts), .badManifest, containing: "not valid JSON")
        expectRefused(
            try resigned(bundle, by: identity) { $0["comment"] = "hi" }, .badManifest,
            containing: "format version 1) has a field this version does not define: comment")
        expectRefused(
            try resigned(bundle, by: identity) {
                $0["version"] = 5
                $0["newThing"] = true
            }, .newerFormat, containing: "format version 5")
        expectRefused(
            try resigned(bundle, by: identity) { $0.removeValue(forKey: "loops") }, .badManifest,
            containing: "missing loops")
    }

    @Test func audioThatDoesNotMatchItsHashOrDoesNotDecodeIsRefused() throws {
        let (_, identity, _, bundle) = try exportedBundle()
        var parts = try entries(of: bundle)
        let audioIndex = parts.firstIndex { $0.0.hasPrefix("audio/") }!
        var changed = parts[audioIndex].1
        changed[changed.count / 2] ^= 0xFF
        parts[audioIndex].1 = changed
        expectRefused(try makeZip(parts), .badAudio, containing: "does not match its SHA-256")

        // Garbage whose hash the manifest states, signed by its author: it must still decode.
        let garbage = Data(repeating: 7, count: 5_000)
        let hash = garbage.sha256Hex
        let decoy = try resigned(
            bundle, by: identity,
            edit: { manifest in
                var audio = manifest["audio"] as! [[String: Any]]
                audio.append([
                    "file": "audio/\(hash).flac", "sha256": hash, "bytes": garbage.count, "sampleRate": 16_000,
                    "channels": 1, "frames": 100,
                ])
                manifest["audio"] = audio
            }, extra: [("audio/\(hash).flac", garbage)])
        expectRefused(decoy, .badAudio, containing: "does not decode")
    }

    @Test func clipsOutsideTheirAudioAreRefused() throws {
        let (_, identity, _, bundle) = try exportedBundle()
        let stretched = try resigned(bundle, by: identity) { manifest in
            var loops = manifest["loops"] as! [[String: Any]]
            var groups = loops[0]["groups"] as! [[String: Any]]
            var phrases = groups[0]["phrases"] as! [[String: Any]]
            var clip = phrases[0]["clip"] as! [String: Any]
            clip["end"] = 99_999_999
            phrases[0]["clip"] = clip
            groups[0]["phrases"] = phrases
            loops[0]["groups"] = groups
            manifest["loops"] = loops
        }
        expectRefused(stretched, .badManifest, containing: "outside its audio")
    }

    @Test func onlyVersionTwoMayMarkAClipAsRecordedForAnEarlierText() throws {
        let (_, identity, _, bundle) = try exportedBundle()
        let marked = { (version: Int) in
            try resigned(bundle, by: identity) { manifest in
                manifest["version"] = version
                var loops = manifest["loops"] as! [[String: Any]]
                var groups = loops[0]["groups"] as! [[String: Any]]
                var phrases = groups[0]["phrases"] as! [[String: Any]]
                phrases[0]["recordedText"] = "Bonjour."
                groups[0]["phrases"] = phrases
                loops[0]["groups"] = groups
                manifest["loops"] = loops
            }
        }
        expectRefused(
            try marked(1), .badManifest,
            containing: "version 1) has a field this version does not define: loops.groups.phrases.recordedText")
        let read = try BundleReader().read(try marked(2), extractingTo: scratch())
        #expect(read.manifest.loops[0].groups[0].phrases[0].recordedText == "Bonjour.")
    }
}

extension Data {
    var sha256Hex: String { SHA256.hash(data: self).map { String(format: "%02x", $0) }.joined() }
}

struct PictureBundleTests {
    /// A bundle of the fixture loop showing the red picture; its library and identity.
    func picturedBundle() throws -> (identity: AuthorIdentity, bundle: String) {
        let library = try LibraryStore(at: scratch())
        let loop = try library.createLoop(
            source: try LoopSource(contentsOf: Fixture.path("phrases.txt")),
            take: CutTake(path: Fixture.path("clean.flac"), ranges: Fixture.ranges))
        let pictured = try library.setPicture(Fixture.path("picture-red.png"), ofLoop: loop.summary.id, at: .loop)
        let identity = try AuthorIdentity.loadOrCreate(at: library.layout.identityKey)
        let bundle = scratch() + ".loop"
        try BundleWriter(identity: identity).write([pictured], to: bundle)
        return (identity, bundle)
    }

    /// The bundle with its picture replaced by `bytes` (manifest changed to match and signed again).
    func withPicture(_ bytes: Data, named ext: String, in bundle: String, by identity: AuthorIdentity) throws -> String
    {
        let sha = ContentAddress.hex(SHA256.hash(data: bytes))
        let file = "pictures/\(sha).\(ext)"
        var parts = try entries(of: bundle).filter { !$0.0.hasPrefix("pictures/") }
        let manifestIndex = parts.firstIndex { $0.0 == "manifest.json" }!
        var object = try JSONSerialization.jsonObject(with: parts[manifestIndex].1) as! [String: Any]
        var pictures = object["pictures"] as! [[String: Any]]
        pictures[0]["file"] = file
        pictures[0]["sha256"] = sha
        pictures[0]["bytes"] = bytes.count
        object["pictures"] = pictures
        var loops = object["loops"] as! [[String: Any]]
        loops[0]["picture"] = file
        object["loops"] = loops
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        parts[manifestIndex].1 = data
        let signatureIndex = parts.firstIndex { $0.0 == "manifest.sig" }!
        parts[signatureIndex].1 = Data(try identity.sign(data).base64EncodedString().utf8)
        return try makeZip(parts + [(file, bytes)])
    }

    @Test func aBundleCarriesItsPicturesVerified() throws {
        let (_, bundle) = try picturedBundle()
        let verified = try BundleReader().read(bundle, extractingTo: scratch())
        #expect(verified.manifest.version == 3)
        let hash = try #require(try ContentAddress.sha256(ofFileAt: Fixture.path("picture-red.png")))
        #expect(verified.manifest.loops[0].picture == "pictures/\(hash).png")
        let extracted = try #require(verified.pictureFiles[hash])
        #expect(
            extracted.info.width == 96
                && FileManager.default.contents(atPath: extracted.path)
                    == FileManager.default.contents(atPath: Fixture.path("picture-red.png"))
        )
    }

    @Test func hostilePicturesInABundleAreRefused() throws {
        let (identity, bundle) = try picturedBundle()
        let png = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("picture-red.png")))
        var huge = [UInt8](png)
        huge[16...23] = [0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30]
        expectRefused(
            try withPicture(Data(huge), named: "png", in: bundle, by: identity), .badPicture,
            containing: "30000 × 30000 pixels")
        expectRefused(
            try withPicture(png.prefix(png.count - 20), named: "png", in: bundle, by: identity), .badPicture,
            containing: "cut short")
        expectRefused(
            try withPicture(Data("<svg/>".utf8), named: "png", in: bundle, by: identity), .badPicture,
            containing: "not a PNG, JPEG, WebP or GIF")
        // A JPEG named as a PNG: not what the manifest says.
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("picture-green.jpg")))
        expectRefused(
            try withPicture(jpeg, named: "png", in: bundle, by: identity), .badPicture,
            containing: "not what the manifest says")
    }

    /// A server reads pictures by their bytes only (it never decodes what it serves: no FFmpeg
    /// on the open internet); a library's reader decodes them too, and refuses one whose pixels
    /// are damaged behind a whole header.
    @Test func aLibraryDecodesABundlesPicturesWhereAServerOnlyReadsTheirHeaders() throws {
        let (identity, bundle) = try picturedBundle()
        var png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("picture-red.png"))))
        for index in 41..<(png.count - 16) { png[index] ^= 0x5A }
        let damaged = try withPicture(Data(png), named: "png", in: bundle, by: identity)
        let served = try BundleReader().read(damaged, extractingTo: scratch())
        #expect(served.pictureFiles.count == 1)
        let library = BundleReader(checkPicture: { path throws(PictureError) in try PictureDecoder.check(path) })
        #expect {
            _ = try library.read(damaged, extractingTo: scratch())
        } throws: { error in
            (error as? ShareError)?.kind == .badPicture && "\(error)".contains("does not decode")
        }
    }
}
