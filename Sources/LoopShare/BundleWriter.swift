import Crypto
import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopModel
import LoopPictures

/// Writes loops into a signed bundle (docs/bundle-format.md): `manifest.json`, its signature
/// `manifest.sig`, every take as `audio/<sha256>.flac` and every picture as
/// `pictures/<sha256>.<ext>`. The file appears only once complete.
public struct BundleWriter: Sendable {
    /// Who signs the bundles.
    public let identity: AuthorIdentity
    /// The author's name to sign into the bundle (nil: none set).
    public let authorName: String?

    /// A writer signing with `identity`, and `authorName` when given.
    public init(identity: AuthorIdentity, authorName: String? = nil) {
        self.identity = identity
        self.authorName = authorName
    }

    /// A bundle written: its manifest, and the SHA-256 (hex) and length of the file.
    public struct Written: Sendable {
        /// The manifest, as signed.
        public var manifest: BundleManifest
        /// The file's SHA-256 (hex).
        public var sha256: String
        /// The file's length in bytes.
        public var bytes: Int
    }

    /// Writes `loops` to `path`, durably (synced before it is renamed into place); returns the
    /// manifest written. `progress` receives the share done.
    @discardableResult
    public func write(_ loops: [LoopDetail], to path: String, progress: (@Sendable (Double) -> Void)? = nil) throws
        -> BundleManifest
    {
        try write(loops, to: path, durable: true, progress: progress).manifest
    }

    /// Writes `loops` to `path` to be sent at once and deleted (a publish): as ``write(_:to:progress:)``
    /// but not synced to disk, and with the SHA-256 and length a request signs, taken as the
    /// file is written rather than read again. Its work (takes turned into FLAC) is done in
    /// `path`'s folder, not the system's temporary folder: a publish killed midway leaves it
    /// where the library's `gc` finds it.
    public func writeToSend(_ loops: [LoopDetail], to path: String) throws -> Written {
        try write(
            loops, to: path, durable: false, workingIn: (path as NSString).deletingLastPathComponent, progress: nil)
    }

    private func write(
        _ loops: [LoopDetail], to path: String, durable: Bool, workingIn parent: String = NSTemporaryDirectory(),
        progress: (@Sendable (Double) -> Void)?
    ) throws -> Written {
        let workFolder = try ScratchFolder(in: parent, prefix: "loop-export-")
        let work = workFolder.path

        // Every take once, as FLAC (kept as it is when it already is FLAC).
        var audioByTake: [String: (entry: BundleManifest.Audio, file: String)] = [:]
        // A take stored as FLAC is named by the SHA-256 of its bytes already.
        let storedHashes = Dictionary(
            loops.flatMap { $0.phrases.compactMap(\.audio) }.map { ($0.path, $0.sha256) },
            uniquingKeysWith: { first, _ in first })
        let takes = storedHashes.keys.sorted()
        for (index, take) in takes.enumerated() {
            let info = try AudioFileReader(path: take).info
            var file = take
            var knownHash = storedHashes[take]
            if info.format != .flac {
                knownHash = nil
                file = work + "/\(index).flac"
                var reader = try AudioFileReader(path: take)
                var writer = try AudioFileWriter(
                    path: file, format: .flac, sampleRate: info.sampleRate, channelCount: info.channelCount)
                try reader.forEachBlock { block, _ in try writer.write(block) }
                try writer.commit()
            }
            let sha = try knownHash ?? Self.sha256(of: file)
            let frames = file == take ? info.frameCount : try AudioFileReader(path: file).info.frameCount
            let bytes = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            audioByTake[take] = (
                BundleManifest.Audio(
                    file: BundleLayout.audioFile(sha256: sha), sha256: sha, bytes: bytes, sampleRate: info.sampleRate,
                    channels: info.channelCount, frames: frames), file
            )
            progress?(0.5 * Double(index + 1) / Double(max(takes.count, 1)))
        }
        TestStop.reached("bundle.takes-written")

        // Every picture once, as stored (checked when it was stored, named by its SHA-256).
        var pictures: [String: (entry: BundleManifest.Picture, file: String)] = [:]
        func entry(_ picture: StoredPicture?) -> String? {
            guard let picture else { return nil }
            let file = BundleLayout.pictureFile(sha256: picture.sha256, fileExtension: picture.format.fileExtension)
            pictures[file] = (
                BundleManifest.Picture(
                    file: file, sha256: picture.sha256, bytes: picture.byteCount, format: picture.format.rawValue,
                    width: picture.width, height: picture.height), picture.path
            )
            return file
        }
        let manifestLoops = loops.map { loop in
            BundleManifest.Loop(
                id: loop.summary.id, revision: loop.summary.revision, title: loop.summary.title,
                language: loop.summary.language,
                translationLanguage: loop.summary.translationLanguage, tags: loop.summary.tags,
                sourceText: loop.sourceText,
                groups: loop.groups.enumerated().map { index, group in
                    BundleManifest.Group(
                        phrases: group.map { phrase in
                            BundleManifest.Phrase(
                                text: phrase.text, translation: phrase.translation,
                                clip: phrase.audio.flatMap { audio in
                                    audioByTake[audio.path].map {
                                        BundleManifest.Clip(
                                            audio: $0.entry.file, start: audio.startFrame, end: audio.endFrame)
                                    }
                                }, recordedText: phrase.clipIsForEarlierText ? phrase.recordedText : nil,
                                picture: entry(phrase.picture))
                        }, picture: entry(loop.groupPictures.indices.contains(index) ? loop.groupPictures[index] : nil))
                },
                picture: entry(loop.picture))
        }
        let manifest = BundleManifest(
            format: BundleManifest.formatName,
            version: BundleManifest.version(for: manifestLoops, authorName: authorName),
            created: ISO8601DateFormatter().string(from: Date()), authorKey: identity.publicKey.base64EncodedString(),
            authorName: authorName,
            loops: manifestLoops,
            audio: Array(Dictionary(uniqueKeysWithValues: audioByTake.values.map { ($0.entry.file, $0.entry) }).values)
                .sorted { $0.file < $1.file },
            pictures: pictures.isEmpty ? nil : pictures.values.map(\.entry).sorted { $0.file < $1.file })
        let manifestData = try manifest.encoded()
        let signature = try identity.sign(manifestData).base64EncodedString()

        // A folder, a device, a FIFO or a link where the bundle goes is refused before anything
        // is written, in words that say so; a folder that is not there is said to be missing.
        do {
            try DurableFile.checkReplaceable(path)
        } catch let error as FileSystemError {
            throw ShareError(.writeFailed, error.message, path: path)
        }
        let temporary = DurableFile.temporaryPath(besides: path)
        guard FileManager.default.createFile(atPath: temporary, contents: nil) else {
            throw ShareError(.writeFailed, DurableFile.whyNotCreatable(path), path: path)
        }
        unlink(temporary)
        let archived: (sha256: String, bytes: Int)
        do {
            var archive = try ZipArchiveWriter(creating: temporary)
            try archive.add(Data(manifestData), as: "manifest.json", deflated: true)
            try archive.add(Data(signature.utf8), as: "manifest.sig", deflated: false)
            let files = Dictionary(
                audioByTake.values.map { ($0.entry.file, $0.file) }, uniquingKeysWith: { first, _ in first })
            for (index, entry) in manifest.audio.enumerated() {
                guard let file = files[entry.file] else { continue }
                try archive.addFile(at: file, as: entry.file)
                progress?(0.5 + 0.5 * Double(index + 1) / Double(max(manifest.audio.count, 1)))
            }
            for picture in manifest.pictures ?? [] {
                guard let file = pictures[picture.file]?.file else { continue }
                try archive.addFile(at: file, as: picture.file)
            }
            archived = try archive.finish()
            if durable {
                try DurableFile.syncAndRename(temporary, to: path)
            } else {
                try DurableFile.checkReplaceable(path)
                guard rename(temporary, path) == 0 else { throw FileSystemError(code: errno, path: path) }
            }
        } catch {
            unlink(temporary)
            if let error = error as? FileSystemError { throw ShareError(.writeFailed, error.message, path: path) }
            throw ShareError(.writeFailed, "cannot write the bundle (\(FileSystemError.reason(error)))", path: path)
        }
        return Written(manifest: manifest, sha256: archived.sha256, bytes: archived.bytes)
    }

    static func sha256(of path: String) throws -> String {
        guard let digest = try ContentAddress.sha256(ofFileAt: path) else {
            throw ShareError(.writeFailed, "cannot read the take", path: path)
        }
        return digest
    }
}
