/* The libsndfile functions LoopLearn calls, defined here and forwarded to libsndfile, which is
 * opened with dlopen on the first call instead of being linked. The prototypes come from
 * libsndfile's own header, so a mismatch is a compile error. */
#include "sndfile_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sndfile.h>

static struct {
    __typeof__(&sf_open) sf_open;
    __typeof__(&sf_close) sf_close;
    __typeof__(&sf_command) sf_command;
    __typeof__(&sf_error) sf_error;
    __typeof__(&sf_strerror) sf_strerror;
    __typeof__(&sf_format_check) sf_format_check;
    __typeof__(&sf_seek) sf_seek;
    __typeof__(&sf_readf_float) sf_readf_float;
    __typeof__(&sf_writef_float) sf_writef_float;
    __typeof__(&sf_write_sync) sf_write_sync;
} sndfile;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];

static void load(void) {
    void *handle = dlopen("libsndfile.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(load_error, sizeof load_error, "libsndfile is not installed (Debian: the libsndfile1 package)");
        return;
    }
#define RESOLVE(name) \
    if (!(sndfile.name = (__typeof__(sndfile.name))dlsym(handle, #name))) { \
        snprintf(load_error, sizeof load_error, "libsndfile lacks %s", #name); return; }
    RESOLVE(sf_open)
    RESOLVE(sf_close)
    RESOLVE(sf_command)
    RESOLVE(sf_error)
    RESOLVE(sf_strerror)
    RESOLVE(sf_format_check)
    RESOLVE(sf_seek)
    RESOLVE(sf_readf_float)
    RESOLVE(sf_writef_float)
    RESOLVE(sf_write_sync)
#undef RESOLVE
}

const char *loop_sndfile_load_error(void) {
    pthread_once(&once, load);
    return load_error[0] ? load_error : NULL;
}

/* Each function: load on first use. Without libsndfile no file ever opens (NULL, and
 * sf_strerror then says what is missing), so the others are only reached once it is loaded. */
#define READY (loop_sndfile_load_error() == NULL)

SNDFILE *sf_open(const char *path, int mode, SF_INFO *sfinfo) { return READY ? sndfile.sf_open(path, mode, sfinfo) : NULL; }
int sf_close(SNDFILE *file) { return READY ? sndfile.sf_close(file) : SF_ERR_SYSTEM; }
int sf_command(SNDFILE *file, int command, void *data, int datasize) { return READY ? sndfile.sf_command(file, command, data, datasize) : 0; }
int sf_error(SNDFILE *file) { return READY ? sndfile.sf_error(file) : SF_ERR_SYSTEM; }
const char *sf_strerror(SNDFILE *file) { return READY ? sndfile.sf_strerror(file) : load_error; }
int sf_format_check(const SF_INFO *info) { return READY ? sndfile.sf_format_check(info) : 0; }
sf_count_t sf_seek(SNDFILE *file, sf_count_t frames, int whence) { return READY ? sndfile.sf_seek(file, frames, whence) : -1; }
sf_count_t sf_readf_float(SNDFILE *file, float *ptr, sf_count_t frames) { return READY ? sndfile.sf_readf_float(file, ptr, frames) : 0; }
sf_count_t sf_writef_float(SNDFILE *file, const float *ptr, sf_count_t frames) { return READY ? sndfile.sf_writef_float(file, ptr, frames) : 0; }
void sf_write_sync(SNDFILE *file) { if (READY) sndfile.sf_write_sync(file); }
