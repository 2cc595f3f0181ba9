/* The espeak-ng functions LoopLearn calls, defined here and forwarded to libespeak-ng, which is
 * opened with dlopen on the first call instead of being linked. The prototypes come from
 * espeak-ng's own header, so a mismatch is a compile error. */
#define _GNU_SOURCE
#include "espeak_loader.h"

#include <espeak-ng/speak_lib.h>
#include <dynamic_library.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The child's samples of the text being rendered. */
struct child_samples {
    int16_t *samples;
    size_t count, capacity;
    int failed;
};

static int child_receive(short *wave, int count, espeak_EVENT *events) {
    struct child_samples *sink = events ? (struct child_samples *)events->user_data : NULL;
    if (sink == NULL || wave == NULL || count <= 0) return 0;
    if (sink->count + (size_t)count > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity * 2 : 65536;
        while (capacity < sink->count + (size_t)count) capacity *= 2;
        int16_t *grown = realloc(sink->samples, capacity * sizeof(int16_t));
        if (grown == NULL) { sink->failed = 1; return 1; }
        sink->samples = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->samples + sink->count, wave, (size_t)count * sizeof(int16_t));
    sink->count += (size_t)count;
    return 0;
}

/* All of `size` bytes, or 0 when the reader is gone. */
static int write_all(int fd, const void *bytes, size_t size) {
    const char *next = bytes;
    while (size > 0) {
        ssize_t written = write(fd, next, size);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return 0;
        next += written;
        size -= (size_t)written;
    }
    return 1;
}

int loop_espeak_render_in_child(const char *voice, int words_per_minute, const char *const *texts, int count,
                                int *child) {
    if (!READY) return -1;
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(ends[0]);
        close(ends[1]);
        return -1;
    }
    if (pid == 0) {
        /* The child: C and espeak-ng only (the parent's other threads, and whatever locks they
         * held, are not here), then _exit without the parent's exit handlers. */
        close(ends[0]);
        int32_t status = CALL(espeak_SetVoiceByName)(voice) == EE_OK ? 0 : 1;
        if (!write_all(ends[1], &status, sizeof status) || status != 0) _exit(1);
        CALL(espeak_SetParameter)(espeakRATE, words_per_minute, 0);
        CALL(espeak_SetSynthCallback)(child_receive);
        struct child_samples sink = {0};
        for (int index = 0; index < count; index++) {
            sink.count = 0;
            sink.failed = 0;
            size_t size = strlen(texts[index]) + 1;
            /* As in this process: what espeak-ng rendered, whatever it returned (an empty phrase
             * is no failure); -1 only when the samples could not be kept. */
            CALL(espeak_Synth)(texts[index], size, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, &sink);
            CALL(espeak_Synchronize)();
            int32_t samples = (!sink.failed && sink.count <= INT32_MAX) ? (int32_t)sink.count : -1;
            if (!write_all(ends[1], &samples, sizeof samples)) _exit(1);
            if (samples > 0 && !write_all(ends[1], sink.samples, sink.count * sizeof(int16_t))) _exit(1);
        }
        _exit(0);
    }
    close(ends[1]);
    *child = (int)pid;
    return ends[0];
}
