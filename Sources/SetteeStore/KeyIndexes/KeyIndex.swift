public import SetteeJSON

/// A secondary index over documents' winning revisions: sortable byte keys, each
/// with a value, from each live document (a Mango index: at most one key and no
/// value; a view: what its map function emits), kept in a table of its own
/// (`KeyIndexRecords`).
///
/// The store knows nothing of what a key means: Mango (`SetteeJSON/Mango`) and
/// views supply `entries`, a function from a document to keys whose `memcmp` order
/// is the order their queries want. Keys end with something unique to the document
/// and the entry (the document id, and for views the emit's place), so no two
/// entries share one.
///
/// Indexes are brought up to date when queried (`Database.refreshIndex`), as
/// CouchDB's views are, not inside each document write: writes pay nothing for
/// indexes, and a query catches up on what changed since the last one.
public struct KeyIndex: Sendable {
    /// Names the index's table; definitions with equal signatures share one.
    /// Lowercase hex, at most 40 characters.
    public let signature: String
    /// What the index is for, as `_active_tasks` names it while it builds (Mango: its
    /// design document).
    public let label: String
    /// The entries of each of a batch of live documents (none: left out of the index),
    /// in the batch's order: a view's map function runs over a batch in one call, on a
    /// dispatch queue, never inside a write transaction. A throw fails the catch-up: the
    /// index stays at the last batch written and the failure is kept
    /// (`Database.indexFailure`) until a later refresh gets past it.
    public let entries: @Sendable ([KeyIndexDocument]) throws -> [[KeyIndexEntry]]
    /// The group whose call computes this index's entries with its siblings', and the
    /// index's position in it (a design document's views); nil for an index mapped alone.
    public let group: KeyIndexGroup?
    public let member: Int

    public init(signature: String, label: String = "",
                batchEntries: @escaping @Sendable ([KeyIndexDocument]) throws -> [[KeyIndexEntry]]) {
        self.signature = signature
        self.label = label
        self.entries = batchEntries
        group = nil
        member = 0
    }

    /// Member `member` of `group`: refreshed with the group's other members, its entries
    /// come from one call for all of them.
    public init(signature: String, label: String = "", group: KeyIndexGroup, member: Int) {
        self.signature = signature
        self.label = label
        self.entries = { documents in try group.entries(documents, [member]).first ?? [] }
        self.group = group
        self.member = member
    }

    public init(signature: String, label: String = "", entries: @escaping @Sendable (KeyIndexDocument) -> [KeyIndexEntry]) {
        self.init(signature: signature, label: label) { documents in documents.map(entries) }
    }

    /// An index of at most one key per document, with no value (Mango's json indexes).
    public init(signature: String, label: String = "", key: @escaping @Sendable (KeyIndexDocument) -> [UInt8]?) {
        self.init(signature: signature, label: label) { document in
            key(document).map { [KeyIndexEntry(key: $0, value: [])] } ?? []
        }
    }

    /// Whether `signature` can name a table: checked before it is spliced into SQL.
    static func isValidSignature(_ signature: String) -> Bool {
        !signature.isEmpty && signature.utf8.count <= 40
            && signature.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    var table: String { Self.table(signature) }

    static func table(_ signature: String) -> String { "key_index_" + signature }
}

/// One key of a document in a key index, and the value stored with it.
public struct KeyIndexEntry: Sendable {
    public let key: [UInt8]
    public let value: [UInt8]

    public init(key: [UInt8], value: [UInt8]) {
        self.key = key
        self.value = value
    }
}

/// What an index's key function sees: a live document's winning revision, and what
/// CouchDB's index updater opens it with (couch_index_updater: `[conflicts,
/// deleted_conflicts]`, `local_seq` on request) and its attachments' stubs.
public struct KeyIndexDocument: Sendable {
    public let id: String
    public let rev: RevisionID
    /// The stored JSON object, without `_id` and `_rev`.
    public let body: [UInt8]
    /// The update sequence of the document's last write (`_local_seq`).
    public var seq: Int64 = 0
    /// `_conflicts` and `_deleted_conflicts`, in winner order.
    public var conflicts: [RevisionID] = []
    public var deletedConflicts: [RevisionID] = []
    /// The revision's attachments (`_attachments` stubs).
    public var attachments: [StoredAttachment] = []
}

/// One row of a scan: a document found by its key, with its winner's body.
public struct KeyIndexRow: Sendable {
    /// The index key (for `_all_docs` scans, the id's UTF-8 bytes): where a
    /// following page resumes.
    public let key: [UInt8]
    public let id: String
    public let rev: RevisionID
    /// The winner's JSON, when the page was asked for bodies (else empty).
    public let body: [UInt8]
    /// The value stored with the key (empty for Mango's indexes and `_all_docs` pages).
    public let value: [UInt8]
}
