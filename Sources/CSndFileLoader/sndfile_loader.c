/* The libsndfile functions LoopLearn calls, defined here and forwarded to libsndfile, which is
 * opened with dlopen on the first call instead of being linked. The prototypes come from
 * libsndfile's own header, so a mismatch is a compile error. */
#include "sndfile_loader.h"

#include <sndfile.h>
#include <dynamic_library.h>

#define FUNCTIONS(X)                                                                               \
    X(sf_open) X(sf_close) X(sf_command) X(sf_error) X(sf_strerror) X(sf_format_check) X(sf_seek)  \
    X(sf_readf_float) X(sf_writef_float) X(sf_write_sync)
LOOP_DYNAMIC_LIBRARY(loop_sndfile_load_error, "libsndfile.so.1", "libsndfile", "libsndfile1", FUNCTIONS)

/* Each function: load on first use. Without libsndfile no file ever opens (NULL, and
 * sf_strerror then says what is missing), so the others are only reached once it is loaded. */
#define READY (loop_sndfile_load_error() == NULL)

SNDFILE *sf_open(const char *path, int mode, SF_INFO *sfinfo) { return READY ? CALL(sf_open)(path, mode, sfinfo) : NULL; }
int sf_close(SNDFILE *file) { return READY ? CALL(sf_close)(file) : SF_ERR_SYSTEM; }
int sf_command(SNDFILE *file, int command, void *data, int datasize) { return READY ? CALL(sf_command)(file, command, data, datasize) : 0; }
int sf_error(SNDFILE *file) { return READY ? CALL(sf_error)(file) : SF_ERR_SYSTEM; }
const char *sf_strerror(SNDFILE *file) { return READY ? CALL(sf_strerror)(file) : loop_sndfile_load_error(); }
int sf_format_check(const SF_INFO *info) { return READY ? CALL(sf_format_check)(info) : 0; }
sf_count_t sf_seek(SNDFILE *file, sf_count_t frames, int whence) { return READY ? CALL(sf_seek)(file, frames, whence) : -1; }
sf_count_t sf_readf_float(SNDFILE *file, float *ptr, sf_count_t frames) { return READY ? CALL(sf_readf_float)(file, ptr, frames) : 0; }
sf_count_t sf_writef_float(SNDFILE *file, const float *ptr, sf_count_t frames) { return READY ? CALL(sf_writef_float)(file, ptr, frames) : 0; }
void sf_write_sync(SNDFILE *file) { if (READY) CALL(sf_write_sync)(file); }
