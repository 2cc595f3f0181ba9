#ifndef LOOP_CHAFA_LOADER_H
#define LOOP_CHAFA_LOADER_H

/* chafa, loaded when a picture is first drawn in a terminal rather than when `loop` starts: it
 * and the libraries it needs (GLib, PCRE2) would otherwise load at every command. Returns NULL
 * once loaded, else what is missing. */
const char *loop_chafa_load_error(void);

#endif
