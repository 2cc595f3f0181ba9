/* The SoundTouch functions LoopLearn calls, defined here and forwarded to libSoundTouchDll, which
 * is opened with dlopen on the first call instead of being linked. The prototypes come from
 * SoundTouch's own header, so a mismatch is a compile error. */
#include "soundtouch_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <SoundTouchDLL.h>

static struct {
    __typeof__(&soundtouch_createInstance) soundtouch_createInstance;
    __typeof__(&soundtouch_destroyInstance) soundtouch_destroyInstance;
    __typeof__(&soundtouch_setRate) soundtouch_setRate;
    __typeof__(&soundtouch_setTempo) soundtouch_setTempo;
    __typeof__(&soundtouch_setChannels) soundtouch_setChannels;
    __typeof__(&soundtouch_setSampleRate) soundtouch_setSampleRate;
    __typeof__(&soundtouch_flush) soundtouch_flush;
    __typeof__(&soundtouch_putSamples) soundtouch_putSamples;
    __typeof__(&soundtouch_clear) soundtouch_clear;
    __typeof__(&soundtouch_receiveSamples) soundtouch_receiveSamples;
} soundtouch;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];

static void load(void) {
    void *handle = dlopen("libSoundTouchDll.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(load_error, sizeof load_error, "SoundTouch is not installed (Debian: the libsoundtouch1 package)");
        return;
    }
#define RESOLVE(name) \
    if (!(soundtouch.name = (__typeof__(soundtouch.name))dlsym(handle, #name))) { \
        snprintf(load_error, sizeof load_error, "SoundTouch lacks %s", #name); return; }
    RESOLVE(soundtouch_createInstance)
    RESOLVE(soundtouch_destroyInstance)
    RESOLVE(soundtouch_setRate)
    RESOLVE(soundtouch_setTempo)
    RESOLVE(soundtouch_setChannels)
    RESOLVE(soundtouch_setSampleRate)
    RESOLVE(soundtouch_flush)
    RESOLVE(soundtouch_putSamples)
    RESOLVE(soundtouch_clear)
    RESOLVE(soundtouch_receiveSamples)
#undef RESOLVE
}

const char *loop_soundtouch_load_error(void) {
    pthread_once(&once, load);
    return load_error[0] ? load_error : NULL;
}

/* Each function: load on first use. Without SoundTouch no instance is ever created (NULL, which
 * the caller reports), so the others are only reached once it is loaded. */
#define READY (loop_soundtouch_load_error() == NULL)

HANDLE soundtouch_createInstance(void) { return READY ? soundtouch.soundtouch_createInstance() : NULL; }
void soundtouch_destroyInstance(HANDLE h) { if (READY) soundtouch.soundtouch_destroyInstance(h); }
void soundtouch_setRate(HANDLE h, float newRate) { if (READY) soundtouch.soundtouch_setRate(h, newRate); }
void soundtouch_setTempo(HANDLE h, float newTempo) { if (READY) soundtouch.soundtouch_setTempo(h, newTempo); }
int soundtouch_setChannels(HANDLE h, unsigned int numChannels) { return READY ? soundtouch.soundtouch_setChannels(h, numChannels) : 0; }
int soundtouch_setSampleRate(HANDLE h, unsigned int srate) { return READY ? soundtouch.soundtouch_setSampleRate(h, srate) : 0; }
int soundtouch_flush(HANDLE h) { return READY ? soundtouch.soundtouch_flush(h) : 0; }
int soundtouch_putSamples(HANDLE h, const float *samples, unsigned int numSamples) {
    return READY ? soundtouch.soundtouch_putSamples(h, samples, numSamples) : 0;
}
void soundtouch_clear(HANDLE h) { if (READY) soundtouch.soundtouch_clear(h); }
unsigned int soundtouch_receiveSamples(HANDLE h, float *outBuffer, unsigned int maxSamples) {
    return READY ? soundtouch.soundtouch_receiveSamples(h, outBuffer, maxSamples) : 0;
}
