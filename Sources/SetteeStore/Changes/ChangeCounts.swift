internal import Synchronization

/*
 ChangeCounts: `_changes`' `pending` without counting the rest of the feed per page.

 `pending` is how many documents have a seq after the feed's `last_seq`. Counted
 by `count(*)` over the `docs_by_seq` index, it walks every document after that
 seq: a feed read page by page (a replicator's, 1,000 rows a page) walked the
 rest of the database once per page, quadratic in its length (5 % of a
 replication source's CPU at 100,000 documents, bench/RESULTS.md, "Replication
 of 100,000 documents: where the CPU goes"). CouchDB keeps the figure in its
 by-seq b-tree's reduction (couch_db:count_changes_since/2); SQLite keeps no
 counts in its indexes.

 So each count is remembered with the update seq of the snapshot it was made
 in, and a later count in a snapshot at the same update seq starts from the
 nearest remembered one: count(seq > S) = count(seq > S0) - count(S0 < seq <= S)
 (or + count(S < seq <= S0)), which walks only the documents between, a page.

 Why the update seq names the state exactly: every commit that gives a `docs`
 row a seq, or adds or removes one, takes a new update seq (a revision row, or
 purge's own seq); reads of the two figures are in one snapshot; and this lives
 in one `Database`, one file. Two snapshots at the same update seq see the same
 `docs` seqs.
*/

/// Counts of documents after a seq, remembered for the database's update seq.
final class ChangeCounts: Sendable {
    struct Count: Equatable {
        let updateSequence: Int64
        let since: Int64
        let count: Int
    }

    /// Counts remembered: a few feeds read page by page at once each find their own.
    static let capacity = 8

    private let counts = Mutex<[Count]>([])

    /// How many `docs` rows have a seq after `since`, in `db`'s snapshot.
    func count(_ db: Connection, since: Int64) throws -> Int {
        let updateSequence = try DocumentRecords.updateSequence(db)
        let count: Int
        if let base = nearest(updateSequence: updateSequence, since: since) {
            let low = min(base.since, since), high = max(base.since, since)
            let between = Int(try db.integer("SELECT count(*) FROM docs WHERE seq > ? AND seq <= ?",
                                             [.integer(low), .integer(high)]) ?? 0)
            count = since >= base.since ? base.count - between : base.count + between
        } else {
            count = Int(try db.integer("SELECT count(*) FROM docs WHERE seq > ?", [.integer(since)]) ?? 0)
        }
        remember(Count(updateSequence: updateSequence, since: since, count: count))
        return count
    }

    /// The remembered count at `updateSequence` whose seq is nearest `since`.
    func nearest(updateSequence: Int64, since: Int64) -> Count? {
        counts.withLock { counts in
            counts.filter { $0.updateSequence == updateSequence }
                .min { abs($0.since - since) < abs($1.since - since) }
        }
    }

    /// Keeps `count`, newest first; counts of an older update seq go first, as they
    /// can never be used again, then the oldest.
    func remember(_ count: Count) {
        counts.withLock { counts in
            counts.removeAll { $0.updateSequence < count.updateSequence || $0 == count }
            counts.insert(count, at: 0)
            if counts.count > Self.capacity { counts.removeLast(counts.count - Self.capacity) }
        }
    }
}
