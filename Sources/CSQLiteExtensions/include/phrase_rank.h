#ifndef LOOP_PHRASE_RANK_H
#define LOOP_PHRASE_RANK_H

#include <sqlite3.h>

/// Registers the full-text ranking function `loop_rank(table)` on a connection: SQLite's
/// `bm25(table)` (k1 1.2, b 0.75, every column weighed 1), in the same order, without the cost
/// bm25 pays for a query of one phrase. Returns SQLITE_OK or SQLite's error code.
///
/// bm25 weighs each phrase of a query by its inverse document frequency, which it finds by
/// walking every row that holds the phrase: for a word start in half of 200,000 phrases, more
/// time than ranking the matches themselves. With one phrase that weight is the same for every
/// row and changes no order, so `loop_rank` leaves it out; with several it weighs them as bm25.
int loop_register_phrase_rank(sqlite3 *connection);

#endif
