/// `sizes.file` and `sizes.active` of `GET /{db}`.
///
/// SQLite's pages are rarely full: a B-tree page keeps free space for the next
/// insert. CouchDB's `active` counts only the live data inside its file, so right
/// after a compaction it is below `file`. Measuring that exactly (`dbstat`) reads
/// every page, far too slow for `GET /{db}`, which every replicator asks for; so
/// compaction measures the unused bytes inside used pages once (`slack`, kept in
/// `info`) and `active` is the used pages' bytes less that slack, never below 0.
enum FileUsage {
    struct Sizes {
        var file: Int64
        var active: Int64
    }

    static func sizes(_ db: Connection) throws -> Sizes {
        let pageSize = try db.integer("PRAGMA page_size") ?? 0
        let pages = try db.integer("PRAGMA page_count") ?? 0
        let free = try db.integer("PRAGMA freelist_count") ?? 0
        let slack = try db.integer("SELECT value FROM info WHERE key = 'page_slack'") ?? 0
        let used = (pages - free) * pageSize
        return Sizes(file: pages * pageSize, active: max(0, used - slack))
    }

    /// Records the unused bytes inside the file's used pages (SQLite's `dbstat`),
    /// or none when this SQLite lacks `dbstat`. Call in a transaction.
    static func measureSlack(_ db: Connection) throws {
        let slack: Int64
        do {
            slack = try db.integer("SELECT coalesce(sum(unused), 0) FROM dbstat") ?? 0
        } catch {
            slack = 0
        }
        try db.run("INSERT OR REPLACE INTO info(key, value) VALUES ('page_slack', ?)", [.integer(slack)])
    }
}
