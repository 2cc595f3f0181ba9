/* The FFmpeg functions LoopLearn calls, defined here and forwarded to FFmpeg's libraries, which
 * are opened with dlopen on the first call instead of being linked: `loop` starts without
 * loading them (and the hundred-odd libraries they depend on). The prototypes come from
 * FFmpeg's own headers, so a mismatch is a compile error. */
#include "ffmpeg_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/tx.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

#define STR2(x) #x
#define STR(x) STR2(x)

static struct {
    __typeof__(&av_find_input_format) av_find_input_format;
    __typeof__(&avformat_open_input) avformat_open_input;
    __typeof__(&avformat_find_stream_info) avformat_find_stream_info;
    __typeof__(&av_find_best_stream) av_find_best_stream;
    __typeof__(&av_read_frame) av_read_frame;
    __typeof__(&avformat_close_input) avformat_close_input;
    __typeof__(&avcodec_alloc_context3) avcodec_alloc_context3;
    __typeof__(&avcodec_free_context) avcodec_free_context;
    __typeof__(&avcodec_parameters_to_context) avcodec_parameters_to_context;
    __typeof__(&avcodec_open2) avcodec_open2;
    __typeof__(&avcodec_send_packet) avcodec_send_packet;
    __typeof__(&avcodec_receive_frame) avcodec_receive_frame;
    __typeof__(&avcodec_get_name) avcodec_get_name;
    __typeof__(&avcodec_find_decoder) avcodec_find_decoder;
    __typeof__(&av_packet_alloc) av_packet_alloc;
    __typeof__(&av_packet_free) av_packet_free;
    __typeof__(&av_packet_unref) av_packet_unref;
    __typeof__(&av_log_set_level) av_log_set_level;
    __typeof__(&av_strerror) av_strerror;
    __typeof__(&av_channel_layout_default) av_channel_layout_default;
    __typeof__(&av_frame_alloc) av_frame_alloc;
    __typeof__(&av_frame_free) av_frame_free;
    __typeof__(&av_frame_unref) av_frame_unref;
    __typeof__(&swr_alloc_set_opts2) swr_alloc_set_opts2;
    __typeof__(&swr_init) swr_init;
    __typeof__(&swr_convert) swr_convert;
    __typeof__(&swr_free) swr_free;
    __typeof__(&sws_getContext) sws_getContext;
    __typeof__(&sws_freeContext) sws_freeContext;
    __typeof__(&sws_scale) sws_scale;
} ffmpeg;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void *open_library(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (!handle && !load_error[0]) {
        snprintf(load_error, sizeof load_error, "FFmpeg's library %s is not installed (Debian: the libavformat-dev, libavcodec-dev, libswresample-dev and libswscale-dev packages)", name);
    }
    return handle;
}

static void *symbol(void *handle, const char *name) {
    void *found = handle ? dlsym(handle, name) : NULL;
    if (!found && !load_error[0]) snprintf(load_error, sizeof load_error, "FFmpeg's libraries lack %s", name);
    return found;
}

#define RESOLVE(handle, name) ffmpeg.name = (__typeof__(ffmpeg.name))symbol(handle, #name)

static void load(void) {
    /* Each library by the major version these headers describe: the ABI they were built for. */
    void *util = open_library("libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR));
    void *resample = open_library("libswresample.so." STR(LIBSWRESAMPLE_VERSION_MAJOR));
    void *scale = open_library("libswscale.so." STR(LIBSWSCALE_VERSION_MAJOR));
    void *codec = open_library("libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR));
    void *format = open_library("libavformat.so." STR(LIBAVFORMAT_VERSION_MAJOR));
    RESOLVE(format, av_find_input_format);
    RESOLVE(format, avformat_open_input);
    RESOLVE(format, avformat_find_stream_info);
    RESOLVE(format, av_find_best_stream);
    RESOLVE(format, av_read_frame);
    RESOLVE(format, avformat_close_input);
    RESOLVE(codec, avcodec_alloc_context3);
    RESOLVE(codec, avcodec_free_context);
    RESOLVE(codec, avcodec_parameters_to_context);
    RESOLVE(codec, avcodec_open2);
    RESOLVE(codec, avcodec_send_packet);
    RESOLVE(codec, avcodec_receive_frame);
    RESOLVE(codec, avcodec_get_name);
    RESOLVE(codec, avcodec_find_decoder);
    RESOLVE(codec, av_packet_alloc);
    RESOLVE(codec, av_packet_free);
    RESOLVE(codec, av_packet_unref);
    RESOLVE(util, av_log_set_level);
    RESOLVE(util, av_strerror);
    RESOLVE(util, av_channel_layout_default);
    RESOLVE(util, av_frame_alloc);
    RESOLVE(util, av_frame_free);
    RESOLVE(util, av_frame_unref);
    RESOLVE(resample, swr_alloc_set_opts2);
    RESOLVE(resample, swr_init);
    RESOLVE(resample, swr_convert);
    RESOLVE(resample, swr_free);
    RESOLVE(scale, sws_getContext);
    RESOLVE(scale, sws_freeContext);
    RESOLVE(scale, sws_scale);
}

const char *loop_ffmpeg_load_error(void) {
    pthread_once(&once, load);
    return load_error[0] ? load_error : NULL;
}

/* Each function: load on first use; when FFmpeg is missing, fail as FFmpeg itself fails
 * (an error code or NULL), and the caller reports loop_ffmpeg_load_error(). */
#define READY (loop_ffmpeg_load_error() == NULL)

const AVInputFormat *av_find_input_format(const char *short_name) { return READY ? ffmpeg.av_find_input_format(short_name) : NULL; }
int avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options) {
    return READY ? ffmpeg.avformat_open_input(ps, url, fmt, options) : AVERROR(ENOSYS);
}
int avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options) { return READY ? ffmpeg.avformat_find_stream_info(ic, options) : AVERROR(ENOSYS); }
int av_find_best_stream(AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags) {
    return READY ? ffmpeg.av_find_best_stream(ic, type, wanted_stream_nb, related_stream, decoder_ret, flags) : AVERROR(ENOSYS);
}
int av_read_frame(AVFormatContext *s, AVPacket *pkt) { return READY ? ffmpeg.av_read_frame(s, pkt) : AVERROR(ENOSYS); }
void avformat_close_input(AVFormatContext **s) { if (READY) ffmpeg.avformat_close_input(s); }
AVCodecContext *avcodec_alloc_context3(const AVCodec *codec) { return READY ? ffmpeg.avcodec_alloc_context3(codec) : NULL; }
void avcodec_free_context(AVCodecContext **avctx) { if (READY) ffmpeg.avcodec_free_context(avctx); }
int avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par) { return READY ? ffmpeg.avcodec_parameters_to_context(codec, par) : AVERROR(ENOSYS); }
int avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options) { return READY ? ffmpeg.avcodec_open2(avctx, codec, options) : AVERROR(ENOSYS); }
int avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt) { return READY ? ffmpeg.avcodec_send_packet(avctx, avpkt) : AVERROR(ENOSYS); }
int avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame) { return READY ? ffmpeg.avcodec_receive_frame(avctx, frame) : AVERROR(ENOSYS); }
const char *avcodec_get_name(enum AVCodecID id) { return READY ? ffmpeg.avcodec_get_name(id) : "unknown"; }
const AVCodec *avcodec_find_decoder(enum AVCodecID id) { return READY ? ffmpeg.avcodec_find_decoder(id) : NULL; }
AVPacket *av_packet_alloc(void) { return READY ? ffmpeg.av_packet_alloc() : NULL; }
void av_packet_free(AVPacket **pkt) { if (READY) ffmpeg.av_packet_free(pkt); }
void av_packet_unref(AVPacket *pkt) { if (READY) ffmpeg.av_packet_unref(pkt); }
void av_log_set_level(int level) { if (READY) ffmpeg.av_log_set_level(level); }
int av_strerror(int errnum, char *errbuf, size_t errbuf_size) {
    if (READY) return ffmpeg.av_strerror(errnum, errbuf, errbuf_size);
    snprintf(errbuf, errbuf_size, "%s", load_error);
    return 0;
}
void av_channel_layout_default(AVChannelLayout *ch_layout, int nb_channels) { if (READY) ffmpeg.av_channel_layout_default(ch_layout, nb_channels); }
AVFrame *av_frame_alloc(void) { return READY ? ffmpeg.av_frame_alloc() : NULL; }
void av_frame_free(AVFrame **frame) { if (READY) ffmpeg.av_frame_free(frame); }
void av_frame_unref(AVFrame *frame) { if (READY) ffmpeg.av_frame_unref(frame); }
/* The transforms (av_tx) need libavutil alone: the aligner opens it without the codecs and the
 * hundred-odd libraries they bring (tens of megabytes resident, and their start-up time). */
static struct {
    __typeof__(&av_tx_init) av_tx_init;
    __typeof__(&av_tx_uninit) av_tx_uninit;
} transforms;
static pthread_once_t transforms_once = PTHREAD_ONCE_INIT;
static char transforms_error[512];

static void load_transforms(void) {
    const char *name = "libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR);
    void *util = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    transforms.av_tx_init = util ? (__typeof__(transforms.av_tx_init))dlsym(util, "av_tx_init") : NULL;
    transforms.av_tx_uninit = util ? (__typeof__(transforms.av_tx_uninit))dlsym(util, "av_tx_uninit") : NULL;
    if (!util) {
        snprintf(transforms_error, sizeof transforms_error, "FFmpeg's library %s is not installed (Debian: the libavutil-dev package)", name);
    } else if (!transforms.av_tx_init || !transforms.av_tx_uninit) {
        snprintf(transforms_error, sizeof transforms_error, "FFmpeg's library %s lacks av_tx", name);
    }
}

const char *loop_ffmpeg_transforms_load_error(void) {
    pthread_once(&transforms_once, load_transforms);
    return transforms_error[0] ? transforms_error : NULL;
}

int av_tx_init(AVTXContext **ctx, av_tx_fn *tx, enum AVTXType type, int inv, int len, const void *scale, uint64_t flags) {
    return loop_ffmpeg_transforms_load_error() == NULL ? transforms.av_tx_init(ctx, tx, type, inv, len, scale, flags) : AVERROR(ENOSYS);
}
void av_tx_uninit(AVTXContext **ctx) { if (loop_ffmpeg_transforms_load_error() == NULL) transforms.av_tx_uninit(ctx); }
int swr_alloc_set_opts2(struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate,
                        AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx) {
    return READY ? ffmpeg.swr_alloc_set_opts2(ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, log_offset, log_ctx)
                 : AVERROR(ENOSYS);
}
int swr_init(struct SwrContext *s) { return READY ? ffmpeg.swr_init(s) : AVERROR(ENOSYS); }
int swr_convert(struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count) {
    return READY ? ffmpeg.swr_convert(s, out, out_count, in, in_count) : AVERROR(ENOSYS);
}
void swr_free(struct SwrContext **s) { if (READY) ffmpeg.swr_free(s); }
struct SwsContext *sws_getContext(int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH, enum AVPixelFormat dstFormat,
                                  int flags, SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param) {
    return READY ? ffmpeg.sws_getContext(srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param) : NULL;
}
void sws_freeContext(struct SwsContext *swsContext) { if (READY) ffmpeg.sws_freeContext(swsContext); }
int sws_scale(struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY, int srcSliceH,
              uint8_t *const dst[], const int dstStride[]) {
    return READY ? ffmpeg.sws_scale(c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride) : AVERROR(ENOSYS);
}
