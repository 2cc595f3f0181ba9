/* The aubio functions LoopLearn calls (pitch by YIN), defined here and forwarded to libaubio,
 * which is opened with dlopen on the first call instead of being linked. */
#include "aubio_loader.h"

#include <aubio/aubio.h>
#include <dynamic_library.h>

#define FUNCTIONS(X)                                                                                \
    X(new_aubio_pitch) X(del_aubio_pitch) X(aubio_pitch_do) X(aubio_pitch_set_unit)                  \
    X(aubio_pitch_set_silence) X(aubio_pitch_set_tolerance) X(aubio_pitch_get_confidence)           \
    X(new_fvec) X(del_fvec)
LOOP_DYNAMIC_LIBRARY(loop_aubio_load_error, "libaubio.so.5", "aubio", "libaubio5", FUNCTIONS)

#define READY (loop_aubio_load_error() == NULL)

aubio_pitch_t *new_aubio_pitch(const char_t *method, uint_t buf_size, uint_t hop_size, uint_t samplerate) {
    return READY ? CALL(new_aubio_pitch)(method, buf_size, hop_size, samplerate) : NULL;
}
void del_aubio_pitch(aubio_pitch_t *o) {
    if (READY) CALL(del_aubio_pitch)(o);
}
void aubio_pitch_do(aubio_pitch_t *o, const fvec_t *in, fvec_t *out) {
    if (READY) CALL(aubio_pitch_do)(o, in, out);
}
uint_t aubio_pitch_set_unit(aubio_pitch_t *o, const char_t *mode) {
    return READY ? CALL(aubio_pitch_set_unit)(o, mode) : 1;
}
uint_t aubio_pitch_set_silence(aubio_pitch_t *o, smpl_t silence) {
    return READY ? CALL(aubio_pitch_set_silence)(o, silence) : 1;
}
uint_t aubio_pitch_set_tolerance(aubio_pitch_t *o, smpl_t tol) {
    return READY ? CALL(aubio_pitch_set_tolerance)(o, tol) : 1;
}
smpl_t aubio_pitch_get_confidence(aubio_pitch_t *o) { return READY ? CALL(aubio_pitch_get_confidence)(o) : 0; }
fvec_t *new_fvec(uint_t length) { return READY ? CALL(new_fvec)(length) : NULL; }
void del_fvec(fvec_t *s) {
    if (READY) CALL(del_fvec)(s);
}
