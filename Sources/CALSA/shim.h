#ifndef LOOPLEARN_CALSA_SHIM_H
#define LOOPLEARN_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* alsa-lib prints "ALSA lib ..." lines to stderr on failures we report ourselves. Its error
   handler is variadic, which Swift cannot write: a no-op one lives here. */
static void loop_alsa_ignore_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void loop_alsa_silence_errors(void) {
    snd_lib_error_set_handler(loop_alsa_ignore_error);
}
#endif
