import Foundation
import LoopAudioFiles
import LoopLibraryAPI

/// Phrase clips for the preview pages, cut from the stored takes on first request and kept:
/// `DATA/clips/<first two hex digits>/<take sha256>-<first frame>-<end frame>.flac`.
///
/// A clip's name says what it holds, so it never changes and is written once (atomically, by
/// ``AudioFileWriter``); clips are a cache, and removing the folder loses nothing. Only the
/// clips of listed loops' phrases are cut (the request names a phrase, not a range).
struct ClipStore: Sendable {
    let blobs: BlobStore

    var folder: String { blobs.layout.clips }

    /// The clip's file, cut now if it was not yet, and its ETag.
    func clip(_ clip: CatalogLoopDetail.Clip, of take: CatalogLoopDetail.Take) throws -> (path: String, eTag: String) {
        guard let source = blobs.path(take.sha256, kind: .take) else { throw APIError.notFound("no such take") }
        let rate = Double(take.sampleRate)
        let first = min(max(0, Int((clip.start * rate).rounded())), take.frames)
        let end = min(max(first, Int((clip.end * rate).rounded())), take.frames)
        let name = "\(take.sha256)-\(first)-\(end)"
        let path = folder + "/" + take.sha256.prefix(2) + "/" + name + ".flac"
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Self.cut(source, frames: first..<end, channels: take.channels, sampleRate: take.sampleRate, to: path)
        }
        return (path, "\"" + name + "\"")
    }

    /// Copies `frames` of `source` into a FLAC file at `path` (a clip of no frames holds one
    /// frame of silence: a file of none is not a FLAC stream a browser plays).
    static func cut(_ source: String, frames: Range<Int>, channels: Int, sampleRate: Int, to path: String) throws {
        var writer = try AudioFileWriter(path: path, format: .flac, sampleRate: sampleRate, channelCount: channels)
        try writer.append(frames: frames, of: source)
        if frames.isEmpty { try writer.write([Float](repeating: 0, count: channels)) }
        try writer.commit()
    }
}
