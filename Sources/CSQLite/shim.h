#ifndef CSQLite_SHIM_H
#define CSQLite_SHIM_H
/* Debian's SQLite is built with the pre-update hook; its declarations are behind this. */
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro Swift cannot import: these bind a copy. */
static inline int sb_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text, int bytes) {
    return sqlite3_bind_text(stmt, index, text, bytes, SQLITE_TRANSIENT);
}

static inline int sb_sqlite3_bind_blob(sqlite3_stmt *stmt, int index, const void *data, int bytes) {
    return sqlite3_bind_blob(stmt, index, data, bytes, SQLITE_TRANSIENT);
}
/* sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory
   statistics, which take a global mutex around every allocation SQLite makes; only
   possible before SQLite initializes (SQLITE_MISUSE after). */
static inline int sb_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
