#ifndef LOOP_DYNAMIC_LIBRARY_H
#define LOOP_DYNAMIC_LIBRARY_H

/* A C library opened with dlopen on the first call of one of its functions rather than linked,
 * so that `loop` starts without loading it. A loader lists the functions it forwards once, as
 * an X-macro, and LOOP_DYNAMIC_LIBRARY writes the rest: the table of resolved functions, the
 * one-time load (thread-safe), and a function saying what is missing, if anything:
 *
 *     #define FUNCTIONS(X) X(snd_pcm_open) X(snd_pcm_close)
 *     LOOP_DYNAMIC_LIBRARY(loop_alsa_load_error, "libasound.so.2", "ALSA's library", "libasound2", FUNCTIONS)
 *     int snd_pcm_close(snd_pcm_t *pcm) { return READY ? CALL(snd_pcm_close)(pcm) : -ENOSYS; }
 *
 * The prototypes come from the library's own header, so a mismatch is a compile error. */

#include <pthread.h>
#include <stddef.h>

/* Opens `soname` and resolves each of `names` into `functions`; returns 1, or 0 with `error`
 * saying in a line what is missing (the library, naming the Debian package, or a function). */
int loop_dynamic_library_open(const char *soname, const char *what, const char *package,
                              const char *const names[], void *functions[], size_t count,
                              char *error, size_t error_size);

#define LOOP_DYNAMIC_INDEX(name) loop_index_##name,
#define LOOP_DYNAMIC_NAME(name) #name,

#define LOOP_DYNAMIC_LIBRARY(load_error, soname, what, package, FUNCTIONS)                         \
    enum { FUNCTIONS(LOOP_DYNAMIC_INDEX) loop_function_count };                                    \
    static const char *const loop_function_names[] = { FUNCTIONS(LOOP_DYNAMIC_NAME) };             \
    static void *loop_functions[loop_function_count];                                             \
    static pthread_once_t loop_once = PTHREAD_ONCE_INIT;                                           \
    static char loop_load_error[256];                                                              \
    static void loop_load(void) {                                                                  \
        loop_dynamic_library_open(soname, what, package, loop_function_names, loop_functions,     \
                                  loop_function_count, loop_load_error, sizeof loop_load_error);   \
    }                                                                                              \
    const char *load_error(void) {                                                                 \
        pthread_once(&loop_once, loop_load);                                                       \
        return loop_load_error[0] ? loop_load_error : NULL;                                        \
    }

/* The resolved function `name`, typed as the library's header declares it. */
#define CALL(name) ((__typeof__(&name))loop_functions[loop_index_##name])

#endif
