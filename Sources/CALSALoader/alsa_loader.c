/* The ALSA functions LoopLearn calls, defined here and forwarded to libasound, which is opened
 * with dlopen on the first call instead of being linked. */
#include "alsa_loader.h"

#include <errno.h>
#include <alsa/asoundlib.h>
#include <dynamic_library.h>

#define FUNCTIONS(X)                                                                               \
    X(snd_lib_error_set_handler) X(snd_strerror) X(snd_pcm_open) X(snd_pcm_close)                  \
    X(snd_pcm_set_params) X(snd_pcm_get_params) X(snd_pcm_prepare) X(snd_pcm_recover)              \
    X(snd_pcm_readi) X(snd_pcm_writei) X(snd_pcm_delay) X(snd_pcm_drain) X(snd_pcm_drop)
LOOP_DYNAMIC_LIBRARY(loop_alsa_load_error, "libasound.so.2", "ALSA's library", "libasound2", FUNCTIONS)

/* Each function: load on first use. Without the library no device ever opens (-ENOSYS, which
 * snd_strerror then words as what is missing), so the others are only reached once it is loaded. */
#define READY (loop_alsa_load_error() == NULL)

int snd_lib_error_set_handler(snd_lib_error_handler_t handler) { return READY ? CALL(snd_lib_error_set_handler)(handler) : 0; }
const char *snd_strerror(int errnum) { return READY ? CALL(snd_strerror)(errnum) : loop_alsa_load_error(); }
int snd_pcm_open(snd_pcm_t **pcm, const char *name, snd_pcm_stream_t stream, int mode) {
    return READY ? CALL(snd_pcm_open)(pcm, name, stream, mode) : -ENOSYS;
}
int snd_pcm_close(snd_pcm_t *pcm) { return READY ? CALL(snd_pcm_close)(pcm) : -ENOSYS; }
int snd_pcm_set_params(snd_pcm_t *pcm, snd_pcm_format_t format, snd_pcm_access_t access, unsigned int channels,
                       unsigned int rate, int soft_resample, unsigned int latency) {
    return READY ? CALL(snd_pcm_set_params)(pcm, format, access, channels, rate, soft_resample, latency) : -ENOSYS;
}
int snd_pcm_get_params(snd_pcm_t *pcm, snd_pcm_uframes_t *buffer_size, snd_pcm_uframes_t *period_size) {
    return READY ? CALL(snd_pcm_get_params)(pcm, buffer_size, period_size) : -ENOSYS;
}
int snd_pcm_prepare(snd_pcm_t *pcm) { return READY ? CALL(snd_pcm_prepare)(pcm) : -ENOSYS; }
int snd_pcm_recover(snd_pcm_t *pcm, int err, int silent) { return READY ? CALL(snd_pcm_recover)(pcm, err, silent) : -ENOSYS; }
snd_pcm_sframes_t snd_pcm_readi(snd_pcm_t *pcm, void *buffer, snd_pcm_uframes_t size) {
    return READY ? CALL(snd_pcm_readi)(pcm, buffer, size) : -ENOSYS;
}
snd_pcm_sframes_t snd_pcm_writei(snd_pcm_t *pcm, const void *buffer, snd_pcm_uframes_t size) {
    return READY ? CALL(snd_pcm_writei)(pcm, buffer, size) : -ENOSYS;
}
int snd_pcm_delay(snd_pcm_t *pcm, snd_pcm_sframes_t *delayp) { return READY ? CALL(snd_pcm_delay)(pcm, delayp) : -ENOSYS; }
int snd_pcm_drain(snd_pcm_t *pcm) { return READY ? CALL(snd_pcm_drain)(pcm) : -ENOSYS; }
int snd_pcm_drop(snd_pcm_t *pcm) { return READY ? CALL(snd_pcm_drop)(pcm) : -ENOSYS; }
