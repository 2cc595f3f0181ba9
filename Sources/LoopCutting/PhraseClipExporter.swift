import Foundation
import LoopAudioFiles
import LoopFoundation

/// Writes one audio clip per segment of a take, plus an Audacity label track beside them.
///
/// The take is read once, in order; each clip keeps the take's rate and channels. Clips are
/// written into a staging folder inside the destination and renamed into place only when all of
/// them are complete, so a failure leaves no half-written clip behind.
public struct PhraseClipExporter: Sendable {
    /// The clips' file format.
    public var format: AudioFileFormat

    /// An exporter writing clips in `format`.
    public init(format: AudioFileFormat = .flac) {
        self.format = format
    }

    /// The clips written, in order.
    public struct Result: Sendable {
        /// The clips' files, one a segment, in order.
        public var clipPaths: [String]
        /// The Audacity label track written beside them.
        public var labelsPath: String
    }

    /// Cuts `segmentation`'s segments out of the take at `takePath` into `directory`, naming
    /// clip `i` after its number and `labels[i]`. `progress` receives the share done.
    public func export(
        takePath: String, segmentation: Segmentation, labels: [String], to directory: String,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> Result {
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw AudioError(
                .writeFailed, path: directory, message: "cannot create the folder (\(error.localizedDescription))")
        }
        // Removed when done; if this process is killed, by the next cut into this folder.
        let stagingFolder: ScratchFolder
        do {
            stagingFolder = try ScratchFolder(in: directory, prefix: ".loop-cut-")
        } catch {
            throw AudioError(
                .writeFailed, path: directory, message: "cannot write in the folder (\(FileSystemError.reason(error)))")
        }
        let staging = stagingFolder.path

        let names = Self.clipNames(
            numbers: (segmentation.phrases ?? Array(segmentation.segments.indices)).map { $0 + 1 },
            labels: labels, fileExtension: format.fileExtension)
        var reader = try AudioFileReader(path: takePath)
        let channels = reader.info.channelCount
        let segments = segmentation.segments
        var index = 0
        var writer: AudioFileWriter? = nil
        var position = 0
        let total = max(reader.info.frameCount, segmentation.frameCount)
        try reader.forEachBlock(blockFrames: 16_384) { interleaved, frames in
            let blockStart = position
            position += frames
            var cursor = blockStart
            while index < segments.count, cursor < position {
                let segment = segments[index]
                if cursor < segment.startFrame {
                    cursor = min(position, segment.startFrame)
                    continue
                }
                if writer == nil {
                    writer = try AudioFileWriter(
                        path: staging + "/" + names[index], format: format, sampleRate: segmentation.sampleRate,
                        channelCount: channels)
                }
                let until = min(position, segment.endFrame)
                let from = (cursor - blockStart) * channels
                let to = (until - blockStart) * channels
                try writer?.write(UnsafeBufferPointer(rebasing: interleaved[from..<to]))
                cursor = until
                if cursor >= segment.endFrame {
                    try writer.take()?.commit()
                    index += 1
                }
            }
            if total > 0 { progress?(min(1, Double(position) / Double(total))) }
        }
        if let open = writer.take() {
            // The take ended inside the last segment: keep what there is.
            try open.commit()
            index += 1
        }
        guard index == segments.count else {
            throw AudioError(
                .truncated, path: takePath, message: "the take ends before phrase \(index + 1) of \(segments.count)")
        }

        let labelTrack = AudacityLabels(segmentation: segmentation, labels: labels).text
        try DurableFile.write(Data(labelTrack.utf8), to: staging + "/labels.txt")
        TestStop.reached("cut.staged")

        // Everything is on disk: move it into place.
        var clipPaths: [String] = []
        for name in names + ["labels.txt"] {
            let destination = directory + "/" + name
            guard rename(staging + "/" + name, destination) == 0 else {
                throw AudioError(
                    .writeFailed, path: destination,
                    message: "cannot move the clip into place (\(String(cString: strerror(errno))))")
            }
            if name != "labels.txt" { clipPaths.append(destination) }
        }
        try DurableFile.syncDirectory(directory)
        _ = consume stagingFolder
        return Result(clipPaths: clipPaths, labelsPath: directory + "/labels.txt")
    }

    /// `01-bonjour.flac`, `02-un-cafe-s-il-vous-plait.flac`, ...: each clip numbered by its
    /// phrase in the text (`numbers`, 1-based: a phrase the take does not read leaves its
    /// number out), with a short readable slug of the phrase.
    static func clipNames(numbers: [Int], labels: [String], fileExtension: String) -> [String] {
        let width = max(2, String(numbers.max() ?? 0).count)
        return numbers.enumerated().map { index, number in
            let digits = String(number)
            let slug = index < labels.count ? Slug.make(labels[index], length: 32) : ""
            return String(repeating: "0", count: width - digits.count) + digits + (slug.isEmpty ? "" : "-" + slug) + "."
                + fileExtension
        }
    }

}

/// A short readable file-name part made of a text: letters and digits, case and accents
/// folded, anything else one `-` (`Un café, s'il vous plaît` is `un-cafe-s-il-vous-plait`).
public enum Slug {
    /// The slug of `text`, at most `length` characters.
    public static func make(_ text: String, length: Int) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        var slug = ""
        for character in folded {
            if character.isLetter || character.isNumber {
                slug.append(character)
            } else if !slug.isEmpty, slug.last != "-" {
                slug.append("-")
            }
            if slug.count >= length { break }
        }
        while slug.last == "-" { slug.removeLast() }
        return slug
    }
}
