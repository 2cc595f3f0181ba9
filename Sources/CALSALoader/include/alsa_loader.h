#ifndef LOOP_ALSA_LOADER_H
#define LOOP_ALSA_LOADER_H

/* ALSA's library, loaded when a command first opens a sound device rather than when `loop`
 * starts (`list`, `show` and `search` never play). Returns NULL once loaded, else what is
 * missing. */
const char *loop_alsa_load_error(void);

#endif
