#include "dynamic_library.h"

#include <dlfcn.h>
#include <stdio.h>

int loop_dynamic_library_open(const char *soname, const char *what, const char *package,
                              const char *const names[], void *functions[], size_t count,
                              char *error, size_t error_size) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(error, error_size, "%s is not installed (Debian: the %s package)", what, package);
        return 0;
    }
    for (size_t index = 0; index < count; index++) {
        /* dlsym on the handle also searches the libraries it depends on (glib under chafa). */
        if (!(functions[index] = dlsym(handle, names[index]))) {
            snprintf(error, error_size, "%s lacks %s", what, names[index]);
            return 0;
        }
    }
    return 1;
}
