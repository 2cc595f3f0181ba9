#ifndef LOOPLEARN_AUBIO_LOADER_H
#define LOOPLEARN_AUBIO_LOADER_H

/* What is missing when aubio cannot be used (its library, naming the Debian package, or one of
 * its functions); NULL once it is loaded. Call before any aubio function: those defined by the
 * loader do nothing (or return NULL or 0) without the library. */
const char *loop_aubio_load_error(void);

#endif
