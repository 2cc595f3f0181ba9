#ifndef LOOP_ESPEAK_LOADER_H
#define LOOP_ESPEAK_LOADER_H

/* espeak-ng (the speech synthesizer that renders a loop's text for the aligner), loaded when a
 * take is first aligned with its text rather than when `loop` starts. Returns NULL once loaded,
 * else what is missing. */
const char *loop_espeak_load_error(void);

/* Renders `count` texts (UTF-8, NUL-terminated) with `voice` at `words_per_minute` in a process
 * forked from this one. espeak-ng's state is global to a process, so a second process renders
 * beside this one; and this one only ever initialises espeak-ng, so every child starts from the
 * same state: the voice and rate are set in the child (set here without rendering, each setting
 * waits in espeak-ng's command queue, which overflows after about 130 and garbles the
 * speech of every rendering after). The child writes a 32-bit status first (0: the voice is set;
 * 1: espeak-ng could not set it, and it exits), then each text's samples in order, each as a
 * 32-bit count then that many 16-bit samples (a negative count: they could not be kept), and
 * exits. `count` 0 only checks the voice. Returns the pipe's read end and sets `*child` to the
 * child's process id; -1 when no process could be started. Call only with espeak-ng initialised
 * and no other thread inside espeak-ng. */
int loop_espeak_render_in_child(const char *voice, int words_per_minute, const char *const *texts, int count,
                                int *child);

#endif
