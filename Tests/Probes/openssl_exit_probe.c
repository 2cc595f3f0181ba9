/* Preloaded into `loop` by a test: says on stderr whether libcrypto started (it made a
 * thread-local key, as OpenSSL does when it starts) and whether it registered a handler to
 * run at exit (OpenSSL's cleanup, which raced a request's thread as `loop` exited). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int from_libcrypto(void *function) {
    Dl_info info;
    return function && dladdr(function, &info) && info.dli_fname && strstr(info.dli_fname, "libcrypto");
}

int pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
    static int (*next)(pthread_key_t *, void (*)(void *));
    if (!next) next = (int (*)(pthread_key_t *, void (*)(void *)))dlsym(RTLD_NEXT, "pthread_key_create");
    if (from_libcrypto((void *)destructor)) fprintf(stderr, "probe: libcrypto started\n");
    return next(key, destructor);
}

int __cxa_atexit(void (*function)(void *), void *argument, void *dso) {
    static int (*next)(void (*)(void *), void *, void *);
    if (!next) next = (int (*)(void (*)(void *), void *, void *))dlsym(RTLD_NEXT, "__cxa_atexit");
    if (from_libcrypto((void *)function)) fprintf(stderr, "probe: libcrypto cleans up at exit\n");
    return next(function, argument, dso);
}
