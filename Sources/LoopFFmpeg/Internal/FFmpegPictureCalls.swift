internal import CFFmpeg
internal import CFFmpegLoader
import Foundation
import LoopFoundation
import LoopPictures

/// The FFmpeg calls of the pictures module (libavformat, libavcodec, libswscale, opened on first
/// use by CFFmpegLoader): a picture's first frame decoded and scaled to RGBA. C types stay
/// inside this file.
enum FFmpegPictureCalls {
    /// FFmpeg's libraries log to standard error; this tool says what went wrong itself.
    private static let quiet: Void = av_log_set_level(AV_LOG_QUIET)

    /// The demuxer for each format, named so that FFmpeg never guesses another from the bytes.
    private static func demuxer(_ format: PictureFormat) -> String {
        switch format {
        case .png: "png_pipe"
        case .jpeg: "jpeg_pipe"
        case .webp: "webp_pipe"
        case .gif: "gif"
        }
    }

    /// The first frame of the picture at `path`, scaled (aspect kept) to fit `size`×`size`
    /// pixels when it is larger.
    static func decodeFirstFrame(
        path: String, format pictureFormat: PictureFormat, width: Int, height: Int, fitting size: Int
    ) throws(PictureError) -> RGBAPicture {
        if let missing = loop_ffmpeg_load_error() {
            throw PictureError(.unreadable, String(cString: missing), path: path)
        }
        _ = quiet
        func damaged(_ what: String) -> PictureError {
            PictureError(.damaged, "the \(pictureFormat.displayName) picture does not decode (\(what))", path: path)
        }
        var format: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&format, path, av_find_input_format(demuxer(pictureFormat)), nil) >= 0, let format
        else {
            throw damaged("unreadable")
        }
        var codec: UnsafeMutablePointer<AVCodecContext>?
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer {
            av_frame_free(&frame)
            av_packet_free(&packet)
            avcodec_free_context(&codec)
            var owned: UnsafeMutablePointer<AVFormatContext>? = format
            avformat_close_input(&owned)
        }
        guard let packet, let frame else { throw damaged("out of memory") }
        let streams = (0..<Int(format.pointee.nb_streams)).compactMap { format.pointee.streams[$0] }
        guard let stream = streams.first(where: { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO }),
            let decoder = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id)
        else { throw damaged("no picture inside") }
        codec = avcodec_alloc_context3(decoder)
        guard let codec, avcodec_parameters_to_context(codec, stream.pointee.codecpar) >= 0 else {
            throw damaged("no decoder")
        }
        // The header was checked already; the decoder refuses anything larger all the same.
        // (With room: FFmpeg counts some padding rows in.)
        codec.pointee.max_pixels = Int64(PictureFile.maxPixels(of: pictureFormat)) * 2
        codec.pointee.thread_count = 1
        // A large JPEG is decoded at a half, a quarter or an eighth of its size (its DCT allows
        // it): memory for at most maxDecodedPixels, whatever the picture.
        // (The sizes come from the header: the demuxer has not read them yet.)
        if pictureFormat == .jpeg {
            var reduction: Int32 = 0
            while reduction < 3,
                ((width + (1 << reduction) - 1) >> reduction) * ((height + (1 << reduction) - 1) >> reduction)
                    > PictureFile.maxDecodedPixels
            {
                reduction += 1
            }
            codec.pointee.lowres = reduction
        }
        guard avcodec_open2(codec, decoder, nil) >= 0 else { throw damaged("no decoder") }

        var decoded = false
        var ended = false
        while !decoded {
            if !ended {
                if av_read_frame(format, packet) >= 0 {
                    defer { av_packet_unref(packet) }
                    if packet.pointee.stream_index == stream.pointee.index, avcodec_send_packet(codec, packet) < 0 {
                        throw damaged("damaged data")
                    }
                } else {
                    ended = true
                    _ = avcodec_send_packet(codec, nil)
                }
            }
            let status = avcodec_receive_frame(codec, frame)
            if status >= 0 {
                decoded = true
            } else if status == loop_averror_eof() || (ended && status != loop_averror_eagain()) {
                break
            }
        }
        guard decoded, frame.pointee.width > 0, frame.pointee.height > 0 else { throw damaged("no frame") }
        // Damage the decoder noticed and concealed (a cut-short scan) counts as damage.
        guard frame.pointee.decode_error_flags == 0 else { throw damaged("damaged data") }

        let width = Int(frame.pointee.width)
        let height = Int(frame.pointee.height)
        let scale = min(1, Double(size) / Double(max(width, height)))
        let outWidth = max(1, Int((Double(width) * scale).rounded()))
        let outHeight = max(1, Int((Double(height) * scale).rounded()))
        guard
            let scaler = sws_getContext(
                Int32(width), Int32(height), AVPixelFormat(frame.pointee.format), Int32(outWidth), Int32(outHeight),
                AV_PIX_FMT_RGBA, Int32(SWS_AREA), nil, nil, nil)
        else { throw damaged("unknown pixel format") }
        defer { sws_freeContext(scaler) }
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        let scaled = pixels.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var planes: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(outWidth * 4), 0, 0, 0]
            return withUnsafePointer(to: frame.pointee.data) { data in
                withUnsafePointer(to: frame.pointee.linesize) { lines in
                    data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { source in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                            sws_scale(scaler, source, sourceStrides, 0, Int32(height), &planes, &strides)
                        }
                    }
                }
            }
        }
        guard scaled > 0 else { throw damaged("cannot convert its pixels") }
        return RGBAPicture(width: outWidth, height: outHeight, pixels: pixels)
    }
}
