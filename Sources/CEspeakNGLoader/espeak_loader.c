/* The espeak-ng functions LoopLearn calls, defined here and forwarded to libespeak-ng, which is
 * opened with dlopen on the first call instead of being linked. The prototypes come from
 * espeak-ng's own header, so a mismatch is a compile error. */
#include "espeak_loader.h"

#include <espeak-ng/speak_lib.h>
#include <dynamic_library.h>

#define FUNCTIONS(X)                                                                               \
    X(espeak_Initialize) X(espeak_SetSynthCallback) X(espeak_SetVoiceByName) X(espeak_SetParameter) \
    X(espeak_Synth) X(espeak_Synchronize) X(espeak_ListVoices)
LOOP_DYNAMIC_LIBRARY(loop_espeak_load_error, "libespeak-ng.so.1", "espeak-ng", "libespeak-ng1", FUNCTIONS)

/* Each function: load on first use. Without espeak-ng, initialisation fails (-1), which the
 * caller reports, so the others are only reached once it is loaded. */
#define READY (loop_espeak_load_error() == NULL)

int espeak_Initialize(espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options) {
    return READY ? CALL(espeak_Initialize)(output, buflength, path, options) : -1;
}
void espeak_SetSynthCallback(t_espeak_callback *callback) { if (READY) CALL(espeak_SetSynthCallback)(callback); }
espeak_ERROR espeak_SetVoiceByName(const char *name) { return READY ? CALL(espeak_SetVoiceByName)(name) : EE_INTERNAL_ERROR; }
espeak_ERROR espeak_SetParameter(espeak_PARAMETER parameter, int value, int relative) {
    return READY ? CALL(espeak_SetParameter)(parameter, value, relative) : EE_INTERNAL_ERROR;
}
espeak_ERROR espeak_Synth(const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
                          unsigned int end_position, unsigned int flags, unsigned int *unique_identifier, void *user_data) {
    return READY ? CALL(espeak_Synth)(text, size, position, position_type, end_position, flags, unique_identifier, user_data) : EE_INTERNAL_ERROR;
}
espeak_ERROR espeak_Synchronize(void) { return READY ? CALL(espeak_Synchronize)() : EE_INTERNAL_ERROR; }
const espeak_VOICE **espeak_ListVoices(espeak_VOICE *voice_spec) { return READY ? CALL(espeak_ListVoices)(voice_spec) : NULL; }
