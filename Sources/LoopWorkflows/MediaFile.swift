import Foundation
import LoopAudio
import LoopAudioFiles
import LoopFoundation

/// Where long work is, for an interface to show: which step, and the share of it done.
public enum WorkStep: String, Sendable {
    /// A film's or a phone memo's audio decoded by FFmpeg's libraries.
    case decoding
    /// The take cut and copied into the library.
    case importing
    /// The take measured and cut, nothing stored.
    case cutting
    /// Clips written to files.
    case writing
    /// A recording cut and kept.
    case saving
    /// A loop's clips decoded to study or play.
    case loading
}

/// A report of long work: the step, and the share of it done (0...1).
public typealias WorkProgress = @Sendable (WorkStep, Double) -> Void

/// A take, a recording or a film to read: any audio or video file, and which of its audio
/// streams. Files libsndfile reads are read as they are; the others are decoded first, into a
/// temporary FLAC file that goes when the work is done.
public struct MediaFile: Sendable {
    /// The file as the person named it.
    public var path: String
    /// Of a film or a file with several audio streams, the one to read (from 0); nil: the main one.
    public var stream: Int?
    /// A program that decodes in a process of its own (`loop decode-media`), so that FFmpeg's
    /// memory is not added to what follows; nil decodes in this one.
    public var decoder: String?

    /// The media file at `path`: its `stream` (nil: the best audio one), decoded in `decoder`'s process when given.
    public init(_ path: String, stream: Int? = nil, decoder: String? = nil) {
        self.path = path
        self.stream = stream
        self.decoder = decoder
    }

    /// The file at `path`, decoded (where libsndfile cannot read it) by this program's own
    /// `decode-media` command when this program is `loop`, else in this process.
    public static func decodedByThisProgram(_ path: String, stream: Int? = nil) -> MediaFile {
        let own = ThisProgram.path
        let isLoop = FileManager.default.isExecutableFile(atPath: own) && (own as NSString).lastPathComponent == "loop"
        return MediaFile(path, stream: stream, decoder: isLoop ? own : nil)
    }

    /// `body`'s result on a file libsndfile reads (the file, or its audio decoded); an error
    /// names the file the person gave where it would name the decoded copy.
    func reading<T>(progress: WorkProgress?, _ body: (String) async throws -> T) async throws -> T {
        let (path, stream, decoder) = (self.path, self.stream, self.decoder)
        let decoding = progress.map { report in { @Sendable (fraction: Double) in report(.decoding, fraction) } }
        let input = try await BlockingWork.run("loop decode") {
            try MediaInput.open(path, audioStream: stream, helper: decoder, progress: decoding)
        }
        return try await input.reading(body)
    }
}

/// The work of `loop decode-media`, the process the workflows run to decode a media file's
/// audio through FFmpeg's libraries (so that their memory goes when it ends).
public enum MediaDecoding {
    /// Runs as the process the workflows start to decode a media file's audio (`loop
    /// decode-media IN OUT`): decodes `input`'s audio (stream `stream`, or its main one) into
    /// the FLAC file `output`, telling its parent how far it is; ends when the parent does.
    /// Whether it decoded.
    public static func serve(_ input: String, stream: Int?, to output: String) -> Bool {
        DecoderHelper.serve(input, stream: stream, to: output)
    }
}
