/// What to replicate and how: CouchDB's `_replicate` / `_replicator` options.
public struct ReplicationOptions: Sendable {
    /// Follow the source's changes until cancelled, instead of stopping once caught up.
    public var continuous = false
    /// Create the target database when it does not exist.
    public var createTarget = false
    /// Only these documents (`doc_ids`), in any order.
    public var docIDs: [String]?
    /// Changes read and written per batch (`worker_batch_size` is 500 in CouchDB).
    public var batchSize = 500
    /// Keep `_local/` checkpoints on both peers (`use_checkpoints`).
    public var useCheckpoints = true
    /// Start from this source sequence instead of a checkpoint (`since_seq`).
    public var sinceSeq: String?
    /// How long a continuous replication's longpoll waits for a change before asking again.
    public var pollTimeout: Duration = .seconds(10)
    /// Retries of a failing step before a one-shot replication gives up (`retries_per_request`).
    public var retries = 5

    public init() {}
}
