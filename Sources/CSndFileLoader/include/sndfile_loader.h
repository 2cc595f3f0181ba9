#ifndef LOOP_SNDFILE_LOADER_H
#define LOOP_SNDFILE_LOADER_H

/* libsndfile, loaded when a command first reads or writes audio rather than when `loop` starts:
 * it and the codecs it links (FLAC, Vorbis, Opus, Ogg, mpg123, LAME) are eight libraries that
 * `loop list`, `show` and `search` would otherwise load for nothing. Returns NULL once loaded,
 * else what is missing. */
const char *loop_sndfile_load_error(void);

#endif
