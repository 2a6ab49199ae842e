public import SetteeJSON

/// What to replicate and how: CouchDB's `_replicate` / `_replicator` options.
public struct ReplicationOptions: Sendable {
    /// Follow the source's changes until cancelled, instead of stopping once caught up.
    public var continuous = false
    /// Create the target database when it does not exist.
    public var createTarget = false
    /// Its creation parameters (`create_target_params`: `q`, `n`, `partitioned`), as query values.
    public var createTargetParameters: [String: String] = [:]
    /// Only these documents (`doc_ids`), in any order.
    public var docIDs: [String]?
    /// Only documents whose winner matches this Mango selector (`selector`).
    public var selector: JSONValue?

    /// A design document's filter function of the source, `ddoc/name` (`filter`), and
    /// what its `req.query` holds (`query_params`).
    public var filterFunction: String?
    public var queryParameters = JSONObject()

    /// The `_changes` filter these options ask of the source.
    public var filter: ChangesFilter? {
        if let docIDs { return .docIDs(docIDs) }
        if let filterFunction { return .function(filterFunction, query: queryParameters) }
        return selector.map { .selector($0) }
    }
    /// Changes per page of the source's feed, copied in chunks of 100 several at a
    /// time (CouchDB's `worker_batch_size` is 500; 1,000 measured faster here).
    public var batchSize = 1000
    /// Chunks of 100 revisions fetched and written at once, across page boundaries
    /// (`worker_processes`; CouchDB's default is 4). 8 measured faster than 4: 100k small
    /// documents pulled in 2.4–2.6 s instead of 2.8–3.4, attachments 10 % faster
    /// (bench/RESULTS.md, "Attachments in a blob database").
    public static let defaultWorkers = 8
    public var workers = ReplicationOptions.defaultWorkers
    /// Keep `_local/` checkpoints on both peers (`use_checkpoints`).
    public var useCheckpoints = true
    /// Start from this source sequence instead of a checkpoint (`since_seq`).
    public var sinceSeq: String?
    /// How often checkpoints are written while changes flow; also whenever the
    /// replication catches up. A body's `checkpoint_interval` (milliseconds) sets it;
    /// CouchDB's default is 30 s, Settee's 5 s (a job killed within 30 s kept nothing).
    public var checkpointInterval: Duration = .seconds(5)
    /// How long a continuous replication's longpoll waits for a change before asking again.
    public var pollTimeout: Duration = .seconds(10)
    /// Retries of a failing step before a one-shot replication gives up (`retries_per_request`).
    public var retries = 5

    public init() {}
}
