#ifndef LOOP_FFMPEG_LOADER_H
#define LOOP_FFMPEG_LOADER_H

/* FFmpeg's libraries, loaded when first used rather than when `loop` starts: they and their
 * dependencies are some 130 shared libraries, which every command would otherwise pay for at
 * start-up (most never decode media). Returns NULL once loaded, else what is missing. */
const char *loop_ffmpeg_load_error(void);

/* The same for the transforms (av_tx_init, av_tx_uninit), which load libavutil alone. */
const char *loop_ffmpeg_transforms_load_error(void);

#endif
