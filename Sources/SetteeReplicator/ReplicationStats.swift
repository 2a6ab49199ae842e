/// CouchDB's replication counters (`_active_tasks`, checkpoint history, `_replicate`'s answer).
public struct ReplicationStats: Sendable, Equatable {
    /// Revisions asked about in `_revs_diff`.
    public var missingChecked = 0
    /// Revisions the target lacked.
    public var missingFound = 0
    public var docsRead = 0
    public var docsWritten = 0
    public var docWriteFailures = 0
    /// Revisions asked of the source in bulk (`_bulk_get`, or its fallback), and those it
    /// gave: CouchDB 3.4's `bulk_get_attempts` and `bulk_get_docs`.
    public var bulkGetAttempts = 0
    public var bulkGetDocs = 0

    public init() {}
}
