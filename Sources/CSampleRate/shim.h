#ifndef LOOPLEARN_CSAMPLERATE_SHIM_H
#define LOOPLEARN_CSAMPLERATE_SHIM_H
#include <samplerate.h>
#endif
