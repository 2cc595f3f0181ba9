internal import CFFmpeg
internal import CFFmpegLoader
import Foundation
import LoopAudioFiles
import LoopFoundation

/// Every FFmpeg call that decodes audio goes through here (libavformat, libavcodec,
/// libswresample, opened on first use by CFFmpegLoader): C types stay inside this file.
///
/// One audio stream of a media file is demuxed (every other stream discarded unread), decoded,
/// and converted to interleaved Float at its own rate; more than two channels are mixed down to
/// stereo. The decoder drops what the container says to drop (an AAC encoder's priming samples,
/// the padding at the end), as the `ffmpeg` command does, so sample N here is sample N of
/// `ffmpeg -i FILE -f f32le -`.
public final class FFmpegAudioDecoder {
    /// The file decoded.
    public let path: String
    /// The decoded audio's rate (the stream's own).
    public let sampleRate: Int
    /// 1 or 2 (more are mixed down to two).
    public let channelCount: Int
    /// The container's duration, when it says.
    public let duration: Double?
    /// "aac, 44100 Hz, 2 channels, stream 1 of 3".
    public let description: String

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let streamIndex: Int32

    /// The message when the file has no audio stream at all.
    public static let noAudioStream = "the file holds no audio stream"

    /// FFmpeg's libraries log to standard error; this tool says what went wrong itself.
    private static let quiet: Void = av_log_set_level(AV_LOG_QUIET)

    /// Opens `path` on its best audio stream, or on its `audioStream`th (from 0) when given.
    public init(path: String, audioStream: Int?) throws(AudioError) {
        self.path = path
        if let missing = loop_ffmpeg_load_error() {
            throw AudioError(.unsupportedFormat, path: path, message: String(cString: missing))
        }
        _ = Self.quiet
        var format: UnsafeMutablePointer<AVFormatContext>?
        var status = avformat_open_input(&format, path, nil, nil)
        guard status >= 0, let format else {
            throw AudioError(.unsupportedFormat, path: path, message: Self.message(status))
        }
        self.format = format
        var codec: UnsafeMutablePointer<AVCodecContext>?
        do throws(AudioError) {
            status = avformat_find_stream_info(format, nil)
            guard status >= 0 else {
                throw AudioError(
                    .decodeFailed, path: path, message: "cannot read the file's streams (\(Self.message(status)))")
            }
            let streams = (0..<Int(format.pointee.nb_streams)).compactMap { format.pointee.streams[$0] }
            let audio = streams.filter { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
            guard !audio.isEmpty else { throw AudioError(.unsupportedFormat, path: path, message: Self.noAudioStream) }
            let chosen: UnsafeMutablePointer<AVStream>
            if let audioStream {
                guard audio.indices.contains(audioStream) else {
                    throw AudioError(
                        .invalidArgument, path: path,
                        message:
                            "the file has \(audio.count) audio stream\(audio.count == 1 ? "" : "s") (0 to \(audio.count - 1)), not \(audioStream)"
                    )
                }
                chosen = audio[audioStream]
            } else {
                let best = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
                chosen = audio.first { $0.pointee.index == best } ?? audio[0]
            }
            streamIndex = chosen.pointee.index
            for stream in streams where stream.pointee.index != streamIndex { stream.pointee.discard = AVDISCARD_ALL }
            guard let parameters = chosen.pointee.codecpar else {
                throw AudioError(.decodeFailed, path: path, message: "its audio stream has no codec parameters")
            }
            guard let decoder = avcodec_find_decoder(parameters.pointee.codec_id) else {
                throw AudioError(
                    .unsupportedFormat, path: path,
                    message:
                        "no decoder for its audio (\(String(cString: avcodec_get_name(parameters.pointee.codec_id))))")
            }
            codec = avcodec_alloc_context3(decoder)
            guard let codec, avcodec_parameters_to_context(codec, parameters) >= 0 else {
                throw AudioError(.decodeFailed, path: path, message: "cannot set up the audio decoder")
            }
            codec.pointee.pkt_timebase = chosen.pointee.time_base
            status = avcodec_open2(codec, decoder, nil)
            guard status >= 0 else {
                throw AudioError(
                    .decodeFailed, path: path, message: "cannot open the audio decoder (\(Self.message(status)))")
            }
            self.codec = codec
            let inputChannels = Int(codec.pointee.ch_layout.nb_channels)
            guard codec.pointee.sample_rate > 0, inputChannels > 0 else {
                throw AudioError(
                    .unsupportedFormat, path: path,
                    message: "the audio announces \(inputChannels) channels at \(codec.pointee.sample_rate) Hz")
            }
            sampleRate = Int(codec.pointee.sample_rate)
            channelCount = min(inputChannels, 2)
            var outputLayout = AVChannelLayout()
            av_channel_layout_default(&outputLayout, Int32(channelCount))
            var resampler: OpaquePointer?
            status = swr_alloc_set_opts2(
                &resampler, &outputLayout, AV_SAMPLE_FMT_FLT, codec.pointee.sample_rate,
                &codec.pointee.ch_layout, codec.pointee.sample_fmt, codec.pointee.sample_rate, 0, nil)
            guard status >= 0, let resampler, swr_init(resampler) >= 0 else {
                throw AudioError(.decodeFailed, path: path, message: "cannot convert its audio samples")
            }
            self.resampler = resampler
            packet = av_packet_alloc()
            frame = av_frame_alloc()
            let seconds = format.pointee.duration > 0 ? Double(format.pointee.duration) / Double(AV_TIME_BASE) : nil
            duration = seconds
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            let chosenIndex = chosen.pointee.index
            let position = audio.firstIndex { $0.pointee.index == chosenIndex } ?? 0
            description =
                "\(name), \(codec.pointee.sample_rate) Hz, \(inputChannels) channel\(inputChannels == 1 ? "" : "s")"
                + (audio.count > 1 ? ", audio stream \(position) of \(audio.count)" : "")
        } catch {
            if codec != nil { avcodec_free_context(&codec) }
            var opened: UnsafeMutablePointer<AVFormatContext>? = format
            avformat_close_input(&opened)
            self.format = nil
            throw error
        }
    }

    deinit {
        if packet != nil { av_packet_free(&packet) }
        if frame != nil { av_frame_free(&frame) }
        if resampler != nil { swr_free(&resampler) }
        if codec != nil { avcodec_free_context(&codec) }
        if format != nil { avformat_close_input(&format) }
    }

    /// Decodes the whole stream, calling `body` with blocks of interleaved frames in order.
    public func decode(_ body: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        guard let format, let codec, let packet, let frame, let resampler else { return }
        var output = [Float](repeating: 0, count: 16_384 * channelCount)
        func convert(_ input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int32) throws {
            while true {
                let capacity = Int32(output.count / channelCount)
                let produced = output.withUnsafeMutableBytes { bytes -> Int32 in
                    var out: UnsafeMutablePointer<UInt8>? = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    return swr_convert(resampler, &out, capacity, input, count)
                }
                guard produced >= 0 else {
                    throw AudioError(
                        .decodeFailed, path: path,
                        message: "cannot convert its audio samples (\(Self.message(produced)))")
                }
                if produced > 0 {
                    try output.withUnsafeBufferPointer {
                        try body(UnsafeBufferPointer(rebasing: $0[0..<(Int(produced) * channelCount)]))
                    }
                }
                // The converter holds nothing back at one rate; a full buffer may leave more.
                if produced < capacity || input != nil { return }
            }
        }
        func drain() throws {
            while true {
                let status = avcodec_receive_frame(codec, frame)
                if status == loop_averror_eagain() || status == loop_averror_eof() { return }
                guard status >= 0 else {
                    throw AudioError(
                        .decodeFailed, path: path, message: "the audio data is damaged (\(Self.message(status)))")
                }
                let planes = UnsafeMutableRawPointer(frame.pointee.extended_data).map {
                    $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                }
                try convert(planes, count: frame.pointee.nb_samples)
                av_frame_unref(frame)
            }
        }
        while true {
            let status = av_read_frame(format, packet)
            if status == loop_averror_eof() { break }
            guard status >= 0 else {
                throw AudioError(.decodeFailed, path: path, message: "cannot read the file (\(Self.message(status)))")
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0 && sent != loop_averror_eagain() {
                throw AudioError(
                    .decodeFailed, path: path, message: "the audio data is damaged (\(Self.message(sent)))")
            }
            try drain()
        }
        avcodec_send_packet(codec, nil)
        try drain()
        try convert(nil, count: 0)
    }

    private static func message(_ status: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(status, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
