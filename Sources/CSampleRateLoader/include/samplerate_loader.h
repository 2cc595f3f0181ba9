#ifndef LOOP_SAMPLERATE_LOADER_H
#define LOOP_SAMPLERATE_LOADER_H

/* libsamplerate, loaded when a command first converts a sample rate rather than when `loop`
 * starts. Returns NULL once loaded, else what is missing. */
const char *loop_samplerate_load_error(void);

#endif
