internal import CALSA
internal import CALSALoader
import Foundation
import LoopAudioFiles
import LoopFoundation

/// Every ALSA call of the package goes through here: C types stay inside this file.
enum ALSA {
    struct PCM: @unchecked Sendable {
        fileprivate let raw: OpaquePointer
    }

    struct Negotiated {
        var bufferFrames: Int
        var periodFrames: Int
    }

    /// Opens `device` for playback of interleaved float32 at `sampleRate` and `channelCount`,
    /// letting ALSA convert to the device's own rate and format (its `plug` layer).
    static func openPlayback(device: String, sampleRate: Int, channelCount: Int, latency: Duration) throws(AudioError)
        -> (PCM, Negotiated)
    {
        try open(
            device: device, stream: SND_PCM_STREAM_PLAYBACK, sampleRate: sampleRate, channelCount: channelCount,
            latency: latency,
            missing: .noPlaybackDevice, "no sound device '\(device)' (%@)")
    }

    /// Opens `device` for capture of interleaved float32 at `sampleRate` and `channelCount`.
    static func openCapture(device: String, sampleRate: Int, channelCount: Int, latency: Duration) throws(AudioError)
        -> (PCM, Negotiated)
    {
        if writesAFile(device) {
            throw AudioError(
                .captureWritesAFile, path: nil,
                message:
                    "'\(device)' is not a device to record from: ALSA's file and tee plugins write into the file they name"
            )
        }
        return try open(
            device: device, stream: SND_PCM_STREAM_CAPTURE, sampleRate: sampleRate, channelCount: channelCount,
            latency: latency,
            missing: .noCaptureDevice, "no capture device '\(device)' (%@)")
    }

    /// Whether a device name opens ALSA's `file` or `tee` plugin (`file:PATH`, `plug:'tee:...'`,
    /// `{ type file ... }`), which write what passes through into a file: named for capture, it
    /// would truncate the user's file and fill it (an option read as an input never writes).
    static func writesAFile(_ device: String) -> Bool {
        func isWordCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "_"
        }
        var previous: Substring?
        for word in device.split(whereSeparator: { !isWordCharacter($0) }) {
            defer { previous = word }
            guard word == "file" || word == "tee" else { continue }
            // A plugin named with its arguments (`file:`), or as a type (`type file`).
            let after = device[word.endIndex...].drop { $0 == " " || $0 == "\t" || $0 == "'" || $0 == "\"" }
            if after.first == ":" || previous == "type" { return true }
        }
        return false
    }

    /// `missing` is the code and message for a device that is not there; `%@` takes ALSA's reason.
    private static func open(
        device: String, stream: snd_pcm_stream_t, sampleRate: Int, channelCount: Int, latency: Duration,
        missing code: AudioFailure, _ missing: String
    ) throws(AudioError) -> (PCM, Negotiated) {
        if let missing = loop_alsa_load_error().map({ String(cString: $0) }) {
            throw AudioError(
                .libraryMissing, path: nil, message: "cannot open the sound device '\(device)': \(missing)")
        }
        loop_alsa_silence_errors()
        var handle: OpaquePointer?
        let opened = snd_pcm_open(&handle, device, stream, 0)
        guard opened >= 0, let raw = handle else {
            throw AudioError(code, path: nil, message: missing.replacingOccurrences(of: "%@", with: explain(opened)))
        }
        let microseconds = UInt32(latency / .microseconds(1))
        let configured = snd_pcm_set_params(
            raw, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
            UInt32(channelCount), UInt32(sampleRate), 1, microseconds)
        guard configured >= 0 else {
            snd_pcm_close(raw)
            throw AudioError(
                .invalidArgument, path: nil,
                message:
                    "the sound device '\(device)' refuses \(channelCount) channels at \(sampleRate) Hz (\(explain(configured)))"
            )
        }
        var buffer: snd_pcm_uframes_t = 0
        var period: snd_pcm_uframes_t = 0
        snd_pcm_get_params(raw, &buffer, &period)
        return (PCM(raw: raw), Negotiated(bufferFrames: Int(buffer), periodFrames: Int(max(period, 1))))
    }

    /// Reads up to `frames` interleaved frames. An overrun (the reader fell behind and audio was
    /// lost) is recovered from and reported through `overrun`.
    static func read(_ pcm: PCM, into buffer: UnsafeMutablePointer<Float>, frames: Int, overrun: inout Bool)
        throws(AudioError) -> Int
    {
        while true {
            let count = snd_pcm_readi(pcm.raw, buffer, snd_pcm_uframes_t(frames))
            if count >= 0 { return Int(count) }
            let code = Int32(count)
            if code == -EINTR || code == -EAGAIN { continue }
            if code == -EPIPE { overrun = true }
            if snd_pcm_recover(pcm.raw, code, 1) < 0 {
                throw AudioError(.decodeFailed, path: nil, message: "the capture device stopped (\(explain(code)))")
            }
        }
    }

    /// Writes interleaved frames, recovering from underruns; returns when all are queued.
    static func write(_ pcm: PCM, _ samples: UnsafeBufferPointer<Float>, channelCount: Int) throws(AudioError) {
        guard var pointer = samples.baseAddress else { return }
        var remaining = samples.count / channelCount
        while remaining > 0 {
            let written = snd_pcm_writei(pcm.raw, pointer, snd_pcm_uframes_t(remaining))
            if written >= 0 {
                remaining -= Int(written)
                pointer += Int(written) * channelCount
                continue
            }
            let code = Int32(written)
            if code == -EINTR { continue }
            // An underrun (-EPIPE) or a suspend (-ESTRPIPE): recover and go on.
            let recovered = snd_pcm_recover(pcm.raw, code, 1)
            if recovered < 0 {
                throw AudioError(
                    .writeFailed, path: nil, message: "the sound device stopped playing (\(explain(code)))")
            }
        }
    }

    /// Discards what is queued, at once, and gets ready to play again.
    static func drop(_ pcm: PCM) {
        snd_pcm_drop(pcm.raw)
        snd_pcm_prepare(pcm.raw)
    }

    /// Waits until what is queued has played.
    static func drain(_ pcm: PCM) {
        snd_pcm_drain(pcm.raw)
        snd_pcm_prepare(pcm.raw)
    }

    /// Frames queued but not yet heard.
    static func delay(_ pcm: PCM) -> Int {
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm.raw, &frames) == 0 ? Int(frames) : 0
    }

    static func close(_ pcm: PCM) {
        snd_pcm_close(pcm.raw)
    }

    static func explain(_ code: Int32) -> String {
        String(cString: snd_strerror(code))
    }

}
