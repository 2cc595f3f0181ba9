/* The MeCab functions LoopLearn calls, defined here and forwarded to libmecab, which is opened
 * with dlopen on the first call instead of being linked. The prototypes come from MeCab's own
 * header, so a mismatch is a compile error. */
#include "mecab_loader.h"

#include <mecab.h>
#include <dynamic_library.h>

#define FUNCTIONS(X) X(mecab_new2) X(mecab_strerror) X(mecab_destroy) X(mecab_sparse_tostr)
LOOP_DYNAMIC_LIBRARY(loop_mecab_load_error, "libmecab.so.2", "MeCab", "libmecab2", FUNCTIONS)

#define READY (loop_mecab_load_error() == NULL)

mecab_t *mecab_new2(const char *arg) { return READY ? CALL(mecab_new2)(arg) : NULL; }
const char *mecab_strerror(mecab_t *mecab) { return READY ? CALL(mecab_strerror)(mecab) : loop_mecab_load_error(); }
void mecab_destroy(mecab_t *mecab) { if (READY) CALL(mecab_destroy)(mecab); }
const char *mecab_sparse_tostr(mecab_t *mecab, const char *str) { return READY ? CALL(mecab_sparse_tostr)(mecab, str) : NULL; }
