#include "sqlite_settings.h"

#include <sqlite3.h>

int loop_sqlite_stop_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
