#ifndef LOOP_ESPEAK_LOADER_H
#define LOOP_ESPEAK_LOADER_H

/* espeak-ng (the speech synthesizer that renders a loop's text for the aligner), loaded when a
 * take is first aligned with its text rather than when `loop` starts. Returns NULL once loaded,
 * else what is missing. */
const char *loop_espeak_load_error(void);

/* Renders `count` texts (UTF-8, NUL-terminated) in a second process forked from this one, as
 * espeak-ng is set now (its state is global to a process: a second process renders beside
 * this one). The child writes each text's samples to a pipe in order, each as a 32-bit count
 * then that many 16-bit samples (a negative count: they could not be kept), and
 * exits. Returns the pipe's read end and sets `*child` to the child's process id; -1 when no
 * process could be started. Call only with espeak-ng initialised, the voice and rate set, and
 * no other thread inside espeak-ng. */
int loop_espeak_render_in_child(const char *const *texts, int count, int *child);

#endif
