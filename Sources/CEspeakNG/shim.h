#ifndef LOOPLEARN_CESPEAKNG_SHIM_H
#define LOOPLEARN_CESPEAKNG_SHIM_H
#include <espeak-ng/speak_lib.h>
#endif
