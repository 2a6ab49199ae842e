/* Issue 47, item 1, with no Settee code: SQLite 3.40.1 (Debian 12's libsqlite3) with
 * SQLITE_CONFIG_STMTJRNL_SPILL at 4 MiB fails an UPDATE whose statement sub-journal passes
 * 4 MiB inside a SAVEPOINT with SQLITE_FULL ("database or disk is full"); the same UPDATE
 * succeeds with the default threshold.
 *
 * Why (sqlite 3.40.1 memjournal.c and os_unix.c): the in-memory sub-journal is kept in
 * chunks as large as the threshold; when it spills, memjrnlCreateFile writes each chunk to
 * the temporary file in one xWrite, and unix's seekAndWriteFd masks a write to 128 KiB
 * (`nBuf &= 0x1ffff`), so a 4 MiB chunk is a short write, which unixWrite reports as
 * SQLITE_FULL. strace shows the `pwrite64(fd, "", 0, 0) = 0` to the /var/tmp/etilqs_* file.
 *
 * Usage: stmtjrnl_spill SPILL_BYTES (0: leave SQLite's default). Exit status 0 when the
 * UPDATE succeeded, 1 when it failed. `run_stmtjrnl_spill` builds and runs both cases.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static int run(sqlite3 *db, const char *sql) {
    char *message = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &message);
    printf("  %-44.44s -> %d %s\n", sql, rc, message ? message : "ok");
    sqlite3_free(message);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s SPILL_BYTES DATABASE\n", argv[0]); return 2; }
    int spill = atoi(argv[1]);
    if (spill != 0 && sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, spill) != SQLITE_OK) return 2;
    printf("SQLite %s, statement journal spill %s\n", sqlite3_libversion(), spill ? argv[1] : "default");
    sqlite3 *db;
    if (sqlite3_open(argv[2], &db) != SQLITE_OK) return 2;
    run(db, "PRAGMA journal_mode=WAL");
    run(db, "CREATE TABLE t(x BLOB)");
    /* 3,000 rows of 3,000 bytes: a 9 MB table, so rewriting it journals ~10 MB of pages. */
    run(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
            "INSERT INTO t SELECT randomblob(3000) FROM n");
    run(db, "BEGIN IMMEDIATE");
    run(db, "SAVEPOINT job");
    int failed = run(db, "UPDATE t SET x = randomblob(3000)") != SQLITE_OK;
    run(db, failed ? "ROLLBACK" : "COMMIT");
    sqlite3_close(db);
    return failed;
}
