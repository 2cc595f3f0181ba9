/* The SoundTouch functions LoopLearn calls, defined here and forwarded to libSoundTouchDll, which
 * is opened with dlopen on the first call instead of being linked. The prototypes come from
 * SoundTouch's own header, so a mismatch is a compile error. */
#include "soundtouch_loader.h"

#include <SoundTouchDLL.h>
#include <dynamic_library.h>

#define FUNCTIONS(X)                                                                               \
    X(soundtouch_createInstance) X(soundtouch_destroyInstance) X(soundtouch_setRate)               \
    X(soundtouch_setTempo) X(soundtouch_setChannels) X(soundtouch_setSampleRate) X(soundtouch_flush) \
    X(soundtouch_putSamples) X(soundtouch_clear) X(soundtouch_receiveSamples)
LOOP_DYNAMIC_LIBRARY(loop_soundtouch_load_error, "libSoundTouchDll.so.1", "SoundTouch", "libsoundtouch1", FUNCTIONS)

/* Each function: load on first use. Without SoundTouch no instance is ever created (NULL, which
 * the caller reports), so the others are only reached once it is loaded. */
#define READY (loop_soundtouch_load_error() == NULL)

HANDLE soundtouch_createInstance(void) { return READY ? CALL(soundtouch_createInstance)() : NULL; }
void soundtouch_destroyInstance(HANDLE h) { if (READY) CALL(soundtouch_destroyInstance)(h); }
void soundtouch_setRate(HANDLE h, float newRate) { if (READY) CALL(soundtouch_setRate)(h, newRate); }
void soundtouch_setTempo(HANDLE h, float newTempo) { if (READY) CALL(soundtouch_setTempo)(h, newTempo); }
int soundtouch_setChannels(HANDLE h, unsigned int numChannels) { return READY ? CALL(soundtouch_setChannels)(h, numChannels) : 0; }
int soundtouch_setSampleRate(HANDLE h, unsigned int srate) { return READY ? CALL(soundtouch_setSampleRate)(h, srate) : 0; }
int soundtouch_flush(HANDLE h) { return READY ? CALL(soundtouch_flush)(h) : 0; }
int soundtouch_putSamples(HANDLE h, const float *samples, unsigned int numSamples) {
    return READY ? CALL(soundtouch_putSamples)(h, samples, numSamples) : 0;
}
void soundtouch_clear(HANDLE h) { if (READY) CALL(soundtouch_clear)(h); }
unsigned int soundtouch_receiveSamples(HANDLE h, float *outBuffer, unsigned int maxSamples) {
    return READY ? CALL(soundtouch_receiveSamples)(h, outBuffer, maxSamples) : 0;
}
