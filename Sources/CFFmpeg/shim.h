#ifndef LOOP_CFFMPEG_SHIM_H
#define LOOP_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/tx.h>

/* FFmpeg's error codes are macros Swift does not import. */
static inline int loop_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int loop_averror_eof(void) { return AVERROR_EOF; }
#endif
