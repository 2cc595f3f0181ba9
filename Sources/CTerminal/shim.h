#ifndef LOOPLEARN_CTERMINAL_SHIM_H
#define LOOPLEARN_CTERMINAL_SHIM_H
#define _XOPEN_SOURCE 700
#include <wchar.h>
#include <locale.h>

/// The columns a character takes on a terminal (C's `wcwidth`, which Swift's Glibc module leaves out).
static inline int loop_wcwidth(unsigned int scalar) { return wcwidth((wchar_t)scalar); }
#endif
