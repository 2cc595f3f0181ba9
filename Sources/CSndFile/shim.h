#ifndef LOOPLEARN_CSNDFILE_SHIM_H
#define LOOPLEARN_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
