internal import CSndFile
internal import CSndFileLoader
import Foundation
import LoopFoundation

/// Every libsndfile call of the package goes through here: C types stay inside this file.
enum SndFile {
    /// An open libsndfile handle.
    struct Handle: @unchecked Sendable {
        fileprivate let raw: OpaquePointer
    }

    struct OpenedFile {
        var handle: Handle
        var info: AudioFileInfo
        /// Whether its samples are stored as floating point (which can hold values no audio
        /// has: NaN, infinities, 3.4e38); integer samples are always in range.
        var holdsFloats = false
    }

    /// Why libsndfile cannot be used (it is opened on first use), or nil.
    static var loadError: String? { loop_sndfile_load_error().map { String(cString: $0) } }

    static func openForReading(path: String) throws(AudioError) -> OpenedFile {
        if let missing = loadError {
            throw AudioError(.notReadable, path: path, message: "cannot read audio: \(missing)")
        }
        var info = SF_INFO()
        guard let raw = sf_open(path, Int32(SFM_READ), &info) else {
            let cause = String(cString: sf_strerror(nil))
            throw explainOpenFailure(path: path, cause: cause)
        }
        let format = Int(info.format)
        let mapped = mapFormat(format)
        // Float reads of integer files are scaled to [-1, 1] (libsndfile's default); say so anyway.
        sf_command(raw, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))
        if let (announced, present) = truncatedData(raw), present < announced {
            sf_close(raw)
            let share = Int((Double(present) / Double(announced) * 100).rounded(.down))
            throw AudioError(
                .truncated, path: path,
                message:
                    "the file is truncated: its header announces \(announced) bytes of audio but only \(present) (\(share)%) are there; record or copy it again"
            )
        }
        if info.channels < 1 || info.samplerate < 1 {
            sf_close(raw)
            throw AudioError(
                .unsupportedFormat, path: path,
                message:
                    "the file announces \(info.channels) channels at \(info.samplerate) Hz, which is not playable audio"
            )
        }
        let subtype = format & Int(SF_FORMAT_SUBMASK)
        return OpenedFile(
            handle: Handle(raw: raw),
            info: AudioFileInfo(
                sampleRate: Int(info.samplerate),
                channelCount: Int(info.channels),
                frameCount: info.frames == sf_count_t.max ? 0 : Int(info.frames),
                format: mapped
            ),
            holdsFloats: subtype == Int(SF_FORMAT_FLOAT) || subtype == Int(SF_FORMAT_DOUBLE)
        )
    }

    /// For WAV and AIFF, libsndfile logs `data : N (should be M)` when the file holds less
    /// audio than its header announces, then quietly reads what is there. Returns (N, M).
    private static func truncatedData(_ raw: OpaquePointer) -> (announced: Int, present: Int)? {
        var log = [CChar](repeating: 0, count: 8192)
        sf_command(raw, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("data") || line.hasPrefix("SSND") {
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            guard line.contains("should be"), numbers.count >= 2 else { continue }
            return (numbers[numbers.count - 2], numbers[numbers.count - 1])
        }
        return nil
    }

    /// Reads up to `frames` interleaved frames; returns how many were read (0 at the end).
    static func readFrames(_ handle: Handle, into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        Int(sf_readf_float(handle.raw, buffer, sf_count_t(frames)))
    }

    /// Moves the read position to `frame`; returns false if the format cannot seek there.
    static func seek(_ handle: Handle, toFrame frame: Int) -> Bool {
        sf_seek(handle.raw, sf_count_t(frame), SEEK_SET) == sf_count_t(frame)
    }

    /// The error libsndfile recorded on this handle, if any.
    static func pendingError(_ handle: Handle) -> String? {
        let code = sf_error(handle.raw)
        guard code != 0 else { return nil }
        return String(cString: sf_strerror(handle.raw))
    }

    static func close(_ handle: Handle) {
        sf_close(handle.raw)
    }

    static func openForWriting(path: String, format: AudioFileFormat, sampleRate: Int, channelCount: Int)
        throws(AudioError) -> Handle
    {
        if let missing = loadError {
            throw AudioError(.writeFailed, path: path, message: "cannot write audio: \(missing)")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        switch format {
        case .flac: info.format = Int32(SF_FORMAT_FLAC) | Int32(SF_FORMAT_PCM_16)
        case .wav: info.format = Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_PCM_16)
        case .aiff: info.format = Int32(SF_FORMAT_AIFF) | Int32(SF_FORMAT_PCM_16)
        case .ogg: info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        case .opus: info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        case .mp3: info.format = Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
        case .other:
            throw AudioError(
                .invalidArgument, path: path,
                message: "cannot write this kind of file; use .wav, .flac, .ogg, .opus, .mp3 or .aiff")
        }
        guard sf_format_check(&info) != 0 else {
            throw AudioError(
                .invalidArgument, path: path,
                message: "\(format.rawValue) cannot hold \(channelCount) channels at \(sampleRate) Hz")
        }
        guard let raw = sf_open(path, Int32(SFM_WRITE), &info) else {
            let cause = String(cString: sf_strerror(nil))
            throw AudioError(
                .writeFailed, path: path,
                message: "cannot create the file (\(cause.trimmingCharacters(in: .whitespacesAndNewlines)))",
                cause: cause)
        }
        // Samples beyond full scale are clipped rather than wrapped around.
        sf_command(raw, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        return Handle(raw: raw)
    }

    /// Writes interleaved frames; returns how many were written.
    static func writeFrames(_ handle: Handle, _ buffer: UnsafePointer<Float>, frames: Int) -> Int {
        Int(sf_writef_float(handle.raw, buffer, sf_count_t(frames)))
    }

    static func flush(_ handle: Handle) {
        sf_write_sync(handle.raw)
    }

    private static func mapFormat(_ format: Int) -> AudioFileFormat {
        let major = format & Int(SF_FORMAT_TYPEMASK)
        let sub = format & Int(SF_FORMAT_SUBMASK)
        switch major {
        case Int(SF_FORMAT_WAV), Int(SF_FORMAT_WAVEX), Int(SF_FORMAT_RF64): return .wav
        case Int(SF_FORMAT_FLAC): return .flac
        case Int(SF_FORMAT_OGG): return sub == Int(SF_FORMAT_OPUS) ? .opus : .ogg
        case Int(SF_FORMAT_MPEG): return .mp3
        case Int(SF_FORMAT_AIFF): return .aiff
        default: return .other
        }
    }

    /// Turns libsndfile's raw open error into a sentence that names the file and the fix.
    private static func explainOpenFailure(path: String, cause: String) -> AudioError {
        var isDirectory: ObjCBool = false
        let manager = FileManager.default
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return AudioError(.fileNotFound, path: path, message: "no such file", cause: cause)
        }
        if isDirectory.boolValue {
            return AudioError(.notReadable, path: path, message: "is a folder, not an audio file", cause: cause)
        }
        guard manager.isReadableFile(atPath: path) else {
            return AudioError(.notReadable, path: path, message: "permission denied", cause: cause)
        }
        let size = (try? manager.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 {
            return AudioError(.emptyFile, path: path, message: "the file is empty (0 bytes)", cause: cause)
        }
        let lowered = cause.lowercased()
        if lowered.contains("format not recognised") || lowered.contains("unknown format")
            || lowered.contains("not supported")
        {
            return AudioError(
                .unsupportedFormat, path: path,
                message:
                    "not an audio format this tool reads (WAV, FLAC, Ogg Vorbis, Opus, MP3, AIFF); convert it first, e.g. with `ffmpeg -i IN OUT.flac`",
                cause: cause)
        }
        let detail = cause.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(
            in: CharacterSet(charactersIn: "."))
        return AudioError(
            .decodeFailed, path: path, message: "cannot be decoded (\(detail)); the file may be damaged or truncated",
            cause: cause)
    }
}
