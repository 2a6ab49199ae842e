#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer: Swift cannot import it.
static inline sqlite3_destructor_type settee_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type settee_sqlite_static(void) { return SQLITE_STATIC; }

// sqlite3_config is variadic: Swift cannot call it. Must run before the first connection opens.
static inline int settee_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
