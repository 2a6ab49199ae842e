#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer: Swift cannot import it.
static inline sqlite3_destructor_type settee_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type settee_sqlite_static(void) { return SQLITE_STATIC; }

// sqlite3_config is variadic: Swift cannot call it. Must run before the first connection opens.
static inline int settee_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

// No page-cache slab per connection: each connection's cache would otherwise take 20
// pages at once on its first read (SQLITE_DEFAULT_PCACHE_INITSZ), ~86 KB of 4 KiB pages
// whatever the file's size. https://sqlite.org/c3ref/c_config_covering_index_scan.html
// (SQLITE_CONFIG_PAGECACHE: a NULL buffer with N = 0 turns the initial allocation off).
static inline int settee_sqlite_no_pagecache_slab(void) { return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0); }
