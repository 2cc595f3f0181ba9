#ifndef LOOP_SOUNDTOUCH_LOADER_H
#define LOOP_SOUNDTOUCH_LOADER_H

/* SoundTouch (playback at another speed), loaded when first used rather than when `loop` starts:
 * it is a C++ library whose start-up every command would otherwise pay for, and only playback
 * slower or faster than recorded uses it. Returns NULL once loaded, else what is missing. */
const char *loop_soundtouch_load_error(void);

#endif
