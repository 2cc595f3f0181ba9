#ifndef LOOP_SQLITE_SETTINGS_H
#define LOOP_SQLITE_SETTINGS_H

/// Stops SQLite keeping statistics of the memory it allocates, for the whole process. With them
/// on (the default), every allocation SQLite makes takes one process-wide mutex: a server's
/// connections reading at once on two cores waited on each other for it. Takes effect only
/// when called before SQLite is first used (before any database is opened); returns SQLITE_OK,
/// or SQLITE_MISUSE when it was too late. (`sqlite3_config` takes variable arguments, which
/// Swift cannot call.)
int loop_sqlite_stop_memory_statistics(void);

#endif
