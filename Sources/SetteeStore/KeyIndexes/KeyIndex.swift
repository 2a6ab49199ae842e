public import SetteeJSON

/// A secondary index over documents' winning revisions: at most one sortable
/// byte key per live document, kept in a table of its own (`KeyIndexRecords`).
///
/// The store knows nothing of what a key means: Mango (`SetteeJSON/Mango`)
/// supplies `key`, a function from a document to bytes whose `memcmp` order is
/// the order its queries want. Keys end with something unique to the document
/// (Mango appends the document id), so no two documents share one.
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
    /// The key of a live document, or nil to leave it out of the index.
    public let key: @Sendable (KeyIndexDocument) -> [UInt8]?

    public init(signature: String, label: String = "", key: @escaping @Sendable (KeyIndexDocument) -> [UInt8]?) {
        self.signature = signature
        self.label = label
        self.key = key
    }

    /// Whether `signature` can name a table: checked before it is spliced into SQL.
    static func isValidSignature(_ signature: String) -> Bool {
        !signature.isEmpty && signature.utf8.count <= 40
            && signature.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    var table: String { "key_index_" + signature }
}

/// What an index's key function sees: a live document's winning revision.
public struct KeyIndexDocument: Sendable {
    public let id: String
    public let rev: RevisionID
    /// The stored JSON object, without `_id` and `_rev`.
    public let body: [UInt8]
}

/// One row of a scan: a document found by its key, with its winner's body.
public struct KeyIndexRow: Sendable {
    /// The index key (for `_all_docs` scans, the id's UTF-8 bytes): where a
    /// following page resumes.
    public let key: [UInt8]
    public let id: String
    public let rev: RevisionID
    public let body: [UInt8]
}
