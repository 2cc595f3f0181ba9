#ifndef LOOPLEARN_CAUBIO_SHIM_H
#define LOOPLEARN_CAUBIO_SHIM_H
#include <aubio/aubio.h>
#endif
