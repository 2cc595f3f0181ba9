#ifndef LOOPLEARN_CDEFLATE_SHIM_H
#define LOOPLEARN_CDEFLATE_SHIM_H
#include <zlib.h>

/// zlib's `inflateInit2` and `deflateInit2` are macros, which Swift cannot call: raw deflate
/// streams (no zlib or gzip wrapper, as zip entries hold them), with a 32 KiB window.
static inline int loop_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}

static inline int loop_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
#endif
