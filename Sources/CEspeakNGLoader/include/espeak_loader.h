#ifndef LOOP_ESPEAK_LOADER_H
#define LOOP_ESPEAK_LOADER_H

/* espeak-ng (the speech synthesizer that renders a loop's text for the aligner), loaded when a
 * take is first aligned with its text rather than when `loop` starts. Returns NULL once loaded,
 * else what is missing. */
const char *loop_espeak_load_error(void);

#endif
