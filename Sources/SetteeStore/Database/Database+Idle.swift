/// Closing an idle database's connections, for the directory's cap on open databases
/// (`[couchdb] max_dbs_open`, `OpenDatabases`).
///
/// A `Database` stays usable after `closeWhenIdle`: whoever holds it (a request that
/// looked it up a moment before, a continuous `_changes` feed, a replication, an
/// index build) goes on using it, and the connection its next read or write needs
/// opens again on the queue that runs it (two `sqlite3_open`s at most). The close
/// itself is queued behind the work already given to each connection, so it never
/// lands inside a transaction (none spans two blocks of a queue) nor under a read.
/// The directory still picks only idle databases to close, so that a busy one is not
/// closed and opened again at every request.
extension Database {
    /// Whether nothing runs or waits on the database now: no write, no read, no
    /// compaction, no index refresh.
    var isIdle: Bool {
        writer.isIdle && readers.isIdle && !compaction.isRunning && !indexRefreshes.isRefreshing
    }

    /// Closes the writer's, the readers' and the small blobs' connections once the work
    /// queued on each has run; the next use opens what it needs again and reports it
    /// (`ConnectionOpener.onReopen`).
    func closeWhenIdle() {
        opener.markIdleClosed()
        // Its kept winners are still current, but a database left idle gives the
        // directory's shared budget (`WinnerCache`) back to those in use.
        cachedWinners.removeAll()
        // The small blobs' connections close on the writer's queue: SQLite's close may
        // checkpoint, which is I/O the caller's thread (perhaps Swift's pool) must not do.
        writer.closeWhenIdle { [blobs, committedSequence] in
            blobs.closeWhenIdle()
            committedSequence.closeDescriptor()
        }
        readers.closeWhenIdle()
    }
}
