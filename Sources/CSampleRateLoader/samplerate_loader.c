/* The libsamplerate functions LoopLearn calls, defined here and forwarded to libsamplerate,
 * which is opened with dlopen on the first call instead of being linked. */
#include "samplerate_loader.h"

#include <samplerate.h>
#include <dynamic_library.h>

#define FUNCTIONS(X) X(src_simple) X(src_strerror)
LOOP_DYNAMIC_LIBRARY(loop_samplerate_load_error, "libsamplerate.so.0", "libsamplerate", "libsamplerate0", FUNCTIONS)

#define READY (loop_samplerate_load_error() == NULL)

/* Without the library every conversion fails with an error number of its own, which
 * src_strerror words as what is missing. */
enum { not_loaded = -1 };

int src_simple(SRC_DATA *data, int converter_type, int channels) {
    return READY ? CALL(src_simple)(data, converter_type, channels) : not_loaded;
}
const char *src_strerror(int error) { return READY ? CALL(src_strerror)(error) : loop_samplerate_load_error(); }
