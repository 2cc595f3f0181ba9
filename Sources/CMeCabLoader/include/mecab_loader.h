#ifndef LOOP_MECAB_LOADER_H
#define LOOP_MECAB_LOADER_H

/* MeCab (readings of written Japanese, which the synthesizer cannot read in kanji), loaded when
 * a Japanese text is first aligned. Returns NULL once loaded, else what is missing. */
const char *loop_mecab_load_error(void);

#endif
