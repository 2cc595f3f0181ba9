import Foundation
import LoopAudioFiles
import LoopFFmpeg
import LoopFoundation

/// A take as the rest of the tool reads it: the file itself when libsndfile decodes it (WAV,
/// FLAC, Ogg, Opus, MP3, AIFF), or else its audio decoded by FFmpeg's libraries (m4a/AAC, mp4,
/// mkv, webm, mov, wma, ...) into a FLAC file beside it in the temporary folder, removed when
/// this goes.
///
/// Why FLAC rather than the original: every later read (measuring, cutting, seeking to a
/// clip, playing, bundling, a browser's player) is then exact to the sample and goes through
/// one decoder; and a film's video is never copied. A library keeps that FLAC as the take.
public final class MediaInput: Sendable {
    /// The file to read: the original, or the decoded FLAC.
    public let path: String
    /// The file the user named.
    public let original: String
    /// How FFmpeg's libraries described the stream decoded ("aac, 44100 Hz, 2 channels"), or
    /// nil when the file was read as it is.
    public let decodedFrom: String?

    private init(path: String, original: String, decodedFrom: String?) {
        self.path = path
        self.original = original
        self.decodedFrom = decodedFrom
    }

    deinit {
        if decodedFrom != nil { unlink(path) }
    }

    /// `body`'s result on the file to read; a failure it reports names the file the person gave
    /// where it names the decoded copy.
    public func reading<Result>(_ body: (String) async throws -> Result) async throws -> Result {
        do {
            return try await body(path)
        } catch let error as any DescribedError where decodedFrom != nil {
            throw error.naming(path, as: original)
        }
    }

    /// `path` ready to read: as it is when libsndfile reads it (and no stream was chosen), else
    /// decoded from its best audio stream, or its `audioStream`th (from 0). `progress` gets the
    /// share decoded, when the container says its length.
    ///
    /// With `helper`, the decoding runs in that program (`loop decode-media`, see
    /// ``decode(_:audioStream:to:progress:)``): FFmpeg's code and buffers then leave with it,
    /// instead of staying in this process under what it does next.
    ///
    /// A helper that says nothing (no progress line) for `helperSilence` seconds, one stopped
    /// or stuck in FFmpeg, is killed and the decoding fails, rather than waited on for ever.
    public static func open(
        _ path: String, audioStream: Int? = nil, helper: String? = nil, helperSilence: Int = 60,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> MediaInput {
        if audioStream == nil {
            do {
                _ = try AudioFileReader(path: path)
                return MediaInput(path: path, original: path, decodedFrom: nil)
            } catch let error where error.kind != .unsupportedFormat {
                throw error
            } catch {}
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        // The decoded copy goes to the temporary folder: a missing one is named as such, not
        // blamed on the file being read.
        if let problem = TemporaryFolder.problem {
            throw AudioError(
                .writeFailed, path: TemporaryFolder.path,
                message:
                    "the temporary folder is \(problem), and the decoded audio goes there: set TMPDIR to a folder you can write"
            )
        }
        removeLeftovers(in: NSTemporaryDirectory())
        let temporary =
            NSTemporaryDirectory()
            + "/\(temporaryPrefix)\(getpid())-\(UUID().uuidString.prefix(8))-\(Slug.file(name)).flac"
        let description: String
        if let helper {
            description = try decodeInHelper(
                helper, path, audioStream: audioStream, to: temporary, silence: helperSilence, progress: progress)
        } else {
            description = try decode(path, audioStream: audioStream, to: temporary, progress: progress)
        }
        return MediaInput(path: temporary, original: path, decodedFrom: description)
    }

    /// Decoded FLACs are named `loop-media-PID-...`, by the process that decodes them.
    static let temporaryPrefix = "loop-media-"

    /// Removes the decoded FLACs (and their half-written temporary files) that processes which
    /// no longer run left in `folder`: a `loop` killed while it held one never got to remove it,
    /// and an hour of audio is a large file. Returns what was removed.
    @discardableResult
    public static func removeLeftovers(in folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for name in names {
            let bare = name.hasPrefix(".") ? String(name.dropFirst()) : name
            guard bare.hasPrefix(temporaryPrefix),
                let pid = Int32(bare.dropFirst(temporaryPrefix.count).prefix { $0.isNumber }),
                pid > 0, kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            let path = folder + "/" + name
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// The most channels a decoded stream may have (what FLAC holds).
    static let mostChannels = 8

    /// Decodes `path`'s audio into a FLAC file at `output` (atomically); returns how FFmpeg's
    /// libraries described the stream.
    /// `heartbeat` is called every 10 s of audio decoded, whether the length is known or not.
    public static func decode(
        _ path: String, audioStream: Int?, to output: String, progress: (@Sendable (Double) -> Void)? = nil,
        heartbeat: (@Sendable () -> Void)? = nil
    ) throws -> String {
        let decoder: FFmpegAudioDecoder
        do {
            decoder = try FFmpegAudioDecoder(path: path, audioStream: audioStream)
        } catch  where error.kind == .invalidArgument || error.kind == .fileNotFound {
            throw error
        } catch  where error.message == FFmpegAudioDecoder.noAudioStream {
            throw error
        } catch {
            throw AudioError(
                .unsupportedFormat, path: path,
                message: "not an audio or video file this tool reads (\(error.message))", cause: error.cause)
        }
        // What the stream declares is checked before a file is made for it: the decoded file
        // is loop's own, and a failure to make it is no message for the file given.
        if let refusal = AudioFileReader.sampleRateRefusal(decoder.sampleRate, path: path) { throw refusal }
        guard (1...Self.mostChannels).contains(decoder.channelCount) else {
            throw AudioError(
                .unsupportedFormat, path: path,
                message: "its audio has \(decoder.channelCount) channels: loop reads 1 to \(Self.mostChannels)")
        }
        var writer = try AudioFileWriter(
            path: output, format: .flac, sampleRate: decoder.sampleRate, channelCount: decoder.channelCount)
        let total = decoder.duration.map { $0 * Double(decoder.sampleRate) } ?? 0
        var frames = 0
        var reported = 0
        try decoder.decode { block in
            if frames == 0 { TestStop.reached("media.decoding") }
            try writer.write(block)
            frames += block.count / decoder.channelCount
            if frames - reported >= decoder.sampleRate * 10 {
                reported = frames
                heartbeat?()
                if total > 0 { progress?(min(1, Double(frames) / total)) }
            }
        }
        guard frames > 0 else {
            throw AudioError(.emptyFile, path: path, message: "the file's audio stream holds no audio")
        }
        try writer.commit()
        progress?(1)
        return decoder.description
    }

    /// Runs `helper decode-media PATH OUTPUT [--stream N]`, which prints `progress SHARE` and `alive` lines
    /// and, last, `decoded DESCRIPTION`; or, failing, `error CODE MESSAGE` on standard error.
    static func decodeInHelper(
        _ helper: String, _ path: String, audioStream: Int?, to output: String, silence: Int,
        progress: (@Sendable (Double) -> Void)?
    ) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = ["decode-media", path, output] + (audioStream.map { ["--stream", String($0)] } ?? [])
        let lines = Pipe()
        let errors = Pipe()
        process.standardOutput = lines
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        // The helper watches for this process to go (killed, even by SIGKILL), and goes too.
        process.environment = ProcessInfo.processInfo.environment.merging([
            DecoderHelper.parentVariable: String(getpid())
        ]) { $1 }
        do {
            try process.run()
        } catch {
            throw AudioError(.decodeFailed, path: path, message: "cannot start the decoder \(helper) (\(error))")
        }
        var description = ""
        var pending = Data()
        var lastHeard = Date()
        var stalled = false
        let descriptor = lines.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 500)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                guard Date().timeIntervalSince(lastHeard) >= Double(silence) else { continue }
                kill(process.processIdentifier, SIGKILL)
                stalled = true
                break
            }
            let count = ready < 0 ? -1 : read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            lastHeard = Date()
            pending += Data(buffer[0..<count])
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
                pending = Data(pending[pending.index(after: end)...])
                if line.hasPrefix("progress "), let share = Double(line.dropFirst(9)) { progress?(share) }
                if line.hasPrefix("decoded ") { description = String(line.dropFirst(8)) }
            }
        }
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, !description.isEmpty else {
            unlink(output)
            if stalled {
                throw AudioError(
                    .decodeFailed, path: path,
                    message:
                        "the decoder (\(helper) decode-media) said nothing for \(silence) s and was stopped: is the file on a drive or share that stalled?"
                )
            }
            let parts = failure.split(separator: " ", maxSplits: 2).map(String.init)
            if parts.count == 3, parts[0] == "error", let code = AudioFailure(rawValue: parts[1]) {
                throw AudioError(code, path: path, message: parts[2].trimmingCharacters(in: .newlines))
            }
            if process.terminationReason == .uncaughtSignal {
                throw AudioError(
                    .decodeFailed, path: path,
                    message:
                        "the decoder (\(helper) decode-media) was killed by signal \(process.terminationStatus) before it finished: try again, and if it happens again the file may be what kills it"
                )
            }
            let said = failure.trimmingCharacters(in: .whitespacesAndNewlines).prefix(200)
            throw AudioError(
                .decodeFailed, path: path,
                message: said.isEmpty
                    ? "the decoder failed and said nothing (status \(process.terminationStatus))"
                    : "the decoder failed (\(said))")
        }
        return description
    }

    /// Decodes `path`'s audio through FFmpeg's libraries and discards it: what `loop-benchmark
    /// segment` times next to `ffmpeg -i FILE -f null -`. Returns the frames decoded.
    public static func decodeOnly(_ path: String, audioStream: Int? = nil) throws -> Int {
        let decoder = try FFmpegAudioDecoder(path: path, audioStream: audioStream)
        var frames = 0
        try decoder.decode { frames += $0.count / decoder.channelCount }
        return frames
    }
}

private enum Slug {
    /// A name safe in a file name: letters and digits, the rest as `-`, at most 40.
    static func file(_ text: String) -> String {
        String(
            text.unicodeScalars.map { $0.isASCII && CharacterSet.alphanumerics.contains($0) ? Character($0) : "-" }
                .prefix(40))
    }
}

/// The decode helper's side of its tie to the process that started it.
public enum DecoderHelper {
    /// The variable that names the parent's process id.
    static let parentVariable = "LOOP_DECODER_PARENT"

    /// Ends this helper (status 1) as soon as the process that started it is gone, checked every
    /// 100 ms on a thread of its own: a parent killed with SIGKILL cannot say so, and the helper
    /// must not go on writing an hour of audio that nobody will read. Its half-written file is
    /// named for the parent, and the next `loop` that decodes removes it.
    public static func endWithParent() {
        guard let value = ProcessInfo.processInfo.environment[parentVariable], let parent = pid_t(value), parent > 1
        else { return }
        guard getppid() == parent else { _exit(1) }
        Thread.detachNewThread {
            while true {
                usleep(100_000)
                if getppid() != parent { _exit(1) }
            }
        }
    }

    /// The helper's side of ``MediaInput/decodeInHelper(_:_:audioStream:to:silence:progress:)``:
    /// decodes `input`'s audio (stream `stream`, or its main one) into the FLAC file `output`,
    /// printing `progress SHARE` and `alive` lines (unbuffered, a line at a time) and, last,
    /// `decoded DESCRIPTION`; failing, `error CODE MESSAGE` on standard error. Whether it decoded.
    public static func serve(_ input: String, stream: Int?, to output: String) -> Bool {
        endWithParent()
        @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        do {
            // `alive` lines tell the parent the decoding moves when its share cannot be told.
            let description = try MediaInput.decode(
                input, audioStream: stream, to: output, progress: { say(String(format: "progress %.4f", $0)) },
                heartbeat: { say("alive") })
            say("decoded " + description)
            return true
        } catch {
            let (code, message) =
                (error as? AudioError).map { ($0.kind.rawValue, $0.message) } ?? ("decodeFailed", "\(error)")
            FileHandle.standardError.write(Data("error \(code) \(message)\n".utf8))
            return false
        }
    }
}
