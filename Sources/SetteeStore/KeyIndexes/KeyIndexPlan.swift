/*
 How a refresh keeps a key index consistent while documents are written.

 Invariant of a stored index (its `key_indexes.seq`, the cursor c): every document
 whose latest change (`docs.seq`) is at most c has exactly its current entries.
 A document whose seq is above c may hold any older entries or none.

 A refresh used to walk `docs` by seq from c and stop at a target sequence T taken at
 its start. A document ahead of the walk that was written meanwhile jumped past T
 before the walk reached it, so the walk never read it: at T the index lacked it (a
 first build) or kept a version from before c (issue #47: 19,937 rows for 20,000
 documents while writes ran).

 So a refresh first takes its plan from one snapshot: T, the snapshot's update
 sequence, and the documents changed in (c, T] in that snapshot, by row id. Each
 batch of the plan is then read again from a newer snapshot: the documents still at
 their planned seq as they are (unchanged since T), the few written since as they
 stood at T (the winner of their revisions whose row sequence is at most T). The batch
 is mapped outside the writer and written in one short write job. So the index holds
 every document as it was at T, and a document written since has a seq above T: the
 next refresh's. (Should stemming or a compaction have removed a document's revision
 or body at T meanwhile, its current version stands in: newer, never missing.) Once a batch whose documents
 were at most seq s in the plan is written, every document with seq at most s is
 current (any other document at or below s in the plan's snapshot was in an earlier
 batch), so the cursor moves to s; after the last batch it is T.

 This needs that no other refresh of the same index writes between the plan and its
 last batch (it could write a version older than one this refresh wrote): one refresh
 per index runs at a time (`KeyIndexRefreshes`). A table dropped meanwhile (`_index`
 DELETE, `_view_cleanup`) is noticed when its seq is not where the refresh left it.
 */

/// What one refresh of a set of indexes brings them to: read from one snapshot.
struct KeyIndexPlan: Sendable {
    /// A document changed after the lowest cursor, at its seq in the plan's snapshot.
    struct Pending: Sendable {
        let rowID: Int64
        let seq: Int64
    }

    /// The snapshot's update sequence: every index reaches it.
    let target: Int64
    /// Where each index's table stood, in the refresh's order of indexes.
    let sinces: [Int64]
    /// Signatures whose tables were empty (never built): their documents come once
    /// each, so they are only inserted.
    let empty: Set<String>
    /// The documents changed in (lowest of `sinces`, `target`], in seq order.
    let documents: [Pending]

    var since: Int64 { sinces.min() ?? target }

    /// The plan's documents in runs of at most `size`; one empty run when there are none
    /// but some index is behind (its cursor still moves to `target`).
    func runs(of size: Int) -> [Range<Int>] {
        guard !documents.isEmpty else { return sinces.contains { $0 < target } ? [0..<0] : [] }
        return stride(from: 0, to: documents.count, by: size).map { $0..<min($0 + size, documents.count) }
    }

    /// Where each index stands once the run ending before `end` is written.
    func cursors(through end: Int) -> [Int64] {
        let reached = end >= documents.count ? target : documents[end - 1].seq
        return sinces.map { $0 < target ? max($0, reached) : $0 }
    }

    /// Where each index stands before the run starting at `start`.
    func cursors(before start: Int) -> [Int64] { start == 0 ? sinces : cursors(through: start) }
}

/// One run of a plan, read again: each document as it is now (wherever its seq moved).
struct KeyIndexBatch: Sendable {
    struct Change: Sendable {
        let rowID: Int64
        /// Its seq in the plan: the indexes whose cursor is below it index it.
        let planned: Int64
        /// The live winner at the plan's target; nil for a deleted (or purged) document: its entries go.
        var document: KeyIndexDocument?
    }

    let changes: [Change]
    /// The database's `purge_seq` when the batch was read: a write seeing another knows
    /// some documents may be gone.
    let purgeSeq: Int64

    /// The documents index `position` (standing at `since` in the plan) has not seen, in order.
    func documents(after since: Int64) -> [KeyIndexDocument] {
        changes.filter { $0.planned > since }.compactMap(\.document)
    }
}
