public import SetteeJSON
public import SetteeStore

/// One side of a replication: a database in this process (`LocalPeer`) or at a
/// URL (`RemotePeer`). The replication loop speaks only this protocol, so
/// local↔local, local↔remote and remote↔remote share one code path.
/// Sequences are the peer's own, opaque: stored and sent back, never compared.
public protocol Peer: Sendable {
    /// What the peer is, for logs and task lists: never carries credentials.
    var displayName: String { get }
    /// Names the database writes go to when it is one of this process's, for replications
    /// into it to share revisions in flight (`RevisionsInFlight`); nil for a remote peer.
    var inFlightKey: String? { get }
    /// The server's `uuid` and the database's name: what the replication id is keyed on,
    /// so a peer that moves to another address keeps its checkpoints.
    func identity() async throws -> PeerIdentity
    /// Whether the database exists.
    func exists() async throws -> Bool
    /// Creates the database (`create_target`) with CouchDB's creation parameters
    /// (`create_target_params`: `q`, `n`, `partitioned`); one that already exists is fine.
    func create(parameters: [String: String]) async throws
    /// The source of filter function `name` (`ddoc/filter`): part of the replication id,
    /// as in CouchDB, so an edited filter starts over.
    /// - Throws: `ReplicationError.filterNotFound` when there is none.
    func filterCode(_ name: String) async throws -> String
    /// Changes after `since`, `all_docs` style, at most `limit` that pass `filter`. With
    /// `wait`, a longpoll: when nothing is there yet, waits up to that long for a change.
    func changes(since: JSONValue, limit: Int, filter: ChangesFilter?, wait: Duration?) async throws -> ChangesPage
    /// `_revs_diff`: the revisions this peer lacks, per document.
    func missingRevisions(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions]
    /// The revisions asked for, with `_revisions` history; attachments newer than
    /// `attsSince` come as raw bytes beside the JSON, the rest as stubs.
    func revisions(_ requests: [RevisionRequest]) async throws -> [TransferRevision]
    /// Writes revisions as a replicator does (`new_edits: false`). Per-document
    /// refusals come back as failures; the call throws only when nothing could be written.
    func write(_ revisions: [TransferRevision]) async throws -> [WriteFailure]
    /// The `_local/` checkpoint document `id` names, or nil.
    func checkpoint(id: String) async throws -> JSONObject?
    /// Stores the checkpoint document (local documents have no MVCC in CouchDB 3).
    func saveCheckpoint(id: String, _ body: JSONObject) async throws
}

extension Peer {
    public var inFlightKey: String? { nil }
}

public struct PeerIdentity: Sendable, Equatable {
    public let serverUUID: String
    public let database: String

    public init(serverUUID: String, database: String) {
        self.serverUUID = serverUUID
        self.database = database
    }
}

/// Which documents a replication copies: CouchDB's `doc_ids`, a Mango `selector`
/// (the `_doc_ids` and `_selector` filters of `_changes`) or a design document's
/// filter function `ddoc/name` with its `req.query`.
public enum ChangesFilter: Sendable, Equatable {
    case docIDs([String])
    case selector(JSONValue)
    case function(String, query: JSONObject)
}

/// Runs the filter functions of a local database's design documents: JavaScript
/// lives above the replicator, so whoever makes the peers (the server, the CLI) gives one.
public protocol FilterFunctionRunner: Sendable {
    /// A test of document ids for filter `name` (`ddoc/filter`) of `database`, the
    /// function seeing `query` as `req.query`.
    /// - Throws: when the design document or its function is missing or does not compile.
    func test(_ name: String, query: JSONObject,
              in database: Database) async throws -> @Sendable (String) async throws -> Bool
}

/// One `_changes` row: a document and its leaf revisions.
public struct ChangeRow: Sendable {
    public let seq: JSONValue
    public let id: String
    public let revisions: [String]

    public init(seq: JSONValue, id: String, revisions: [String]) {
        self.seq = seq
        self.id = id
        self.revisions = revisions
    }
}

public struct ChangesPage: Sendable {
    public let rows: [ChangeRow]
    /// Where the next page starts; the checkpoint once every row is written.
    public let lastSeq: JSONValue

    public init(rows: [ChangeRow], lastSeq: JSONValue) {
        self.rows = rows
        self.lastSeq = lastSeq
    }
}

/// `_revs_diff`'s answer for one document.
public struct MissingRevisions: Sendable, Equatable {
    public let missing: [String]
    public let possibleAncestors: [String]

    public init(missing: [String], possibleAncestors: [String]) {
        self.missing = missing
        self.possibleAncestors = possibleAncestors
    }
}

/// One revision to fetch, with the target's revisions whose attachments need not be sent again.
public struct RevisionRequest: Sendable {
    public let id: String
    public let rev: String
    public let attsSince: [String]

    public init(id: String, rev: String, attsSince: [String]) {
        self.id = id
        self.rev = rev
        self.attsSince = attsSince
    }
}

/// A revision the target refused (`forbidden`, `unauthorized`, too large...).
public struct WriteFailure: Sendable, Equatable {
    public let id: String
    public let rev: String?
    public let error: String
    public let reason: String

    public init(id: String, rev: String?, error: String, reason: String) {
        self.id = id
        self.rev = rev
        self.error = error
        self.reason = reason
    }
}
