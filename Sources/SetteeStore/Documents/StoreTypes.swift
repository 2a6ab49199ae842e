/// One document write, already validated by the caller: `body` is the JSON
/// object without its `_`-prefixed special fields.
public struct DocumentUpdate: Sendable {
    public var id: String
    /// Serialized JSON object with no `_` fields; what reads splice `_id`/`_rev` around.
    public var body: [UInt8]
    public var isDeleted: Bool
    /// `new_edits=true`: the revision this edit replaces (`_rev`), nil for a new document.
    public var baseRevision: RevisionID?
    /// `new_edits=false`: the revision to store first, then its ancestors, newest first
    /// (from `_revisions`, or just `[_rev]`).
    public var history: [RevisionID]
    /// The new revision's attachments, exactly: new ones and stubs to keep. An
    /// attachment of the base revision not listed here is dropped, as in CouchDB.
    public var attachments: [AttachmentUpdate]

    public init(id: String, body: [UInt8], isDeleted: Bool = false, baseRevision: RevisionID? = nil,
                history: [RevisionID] = [], attachments: [AttachmentUpdate] = []) {
        self.id = id
        self.body = body
        self.isDeleted = isDeleted
        self.baseRevision = baseRevision
        self.history = history
        self.attachments = attachments
    }
}

/// One stored revision of a document, with its body when it is still available.
public struct StoredRevision: Sendable {
    public let rev: RevisionID
    public let isDeleted: Bool
    /// The update sequence of the write that stored this revision.
    public let sequence: Int64
    /// The stored JSON object (no `_` fields); nil when compacted away or never received.
    public let body: [UInt8]?
    /// Its attachments, in stored order (empty once compaction dropped the body).
    public let attachments: [StoredAttachment]

    public init(rev: RevisionID, isDeleted: Bool, sequence: Int64, body: [UInt8]?,
                attachments: [StoredAttachment] = []) {
        self.rev = rev
        self.isDeleted = isDeleted
        self.sequence = sequence
        self.body = body
        self.attachments = attachments
    }
}

/// A document as read: its whole revision tree, and the revisions asked for.
public struct StoredDocument: Sendable {
    public let id: String
    public let tree: RevisionTree
    /// The revisions requested from `Database.document(id:revisions:)`, in request order.
    public let revisions: [StoredRevision]
    /// The sequence of the document's latest change.
    public let sequence: Int64

    public init(id: String, tree: RevisionTree, revisions: [StoredRevision], sequence: Int64) {
        self.id = id
        self.tree = tree
        self.revisions = revisions
        self.sequence = sequence
    }
}

/// Which revisions' bodies a read loads.
public enum RevisionSelection: Sendable {
    /// The winning revision (even when deleted).
    case winner
    /// Exactly this revision.
    case revision(RevisionID)
    /// Every leaf.
    case allLeaves
    /// None: the tree only.
    case none
}

/// `GET /{db}`'s figures.
public struct DatabaseInfo: Sendable {
    public var name: String
    public var docCount: Int
    public var deletedDocCount: Int
    public var updateSeq: Int64
    public var purgeSeq: Int64
    /// Bytes of the database file(s) on disk.
    public var fileSize: Int64
    /// Bytes in use by live data.
    public var activeSize: Int64
    /// Uncompressed size of live documents and attachments.
    public var externalSize: Int64
    public var isCompacting: Bool
    /// The `q` the database was created with (1 when none was given).
    public var shardCount: Int

    public init(name: String, docCount: Int, deletedDocCount: Int, updateSeq: Int64, purgeSeq: Int64,
                fileSize: Int64, activeSize: Int64, externalSize: Int64, isCompacting: Bool, shardCount: Int = 1) {
        self.name = name
        self.docCount = docCount
        self.deletedDocCount = deletedDocCount
        self.updateSeq = updateSeq
        self.purgeSeq = purgeSeq
        self.fileSize = fileSize
        self.activeSize = activeSize
        self.externalSize = externalSize
        self.isCompacting = isCompacting
        self.shardCount = shardCount
    }
}

/// One row of `_changes`: a document at the seq of its latest change.
public struct Change: Sendable {
    public let sequence: Int64
    public let id: String
    /// Every leaf revision, the winner first, then in descending winner order.
    public let leaves: [RevisionID]
    /// Whether the winner is a deletion.
    public let isDeleted: Bool

    public init(sequence: Int64, id: String, leaves: [RevisionID], isDeleted: Bool) {
        self.sequence = sequence
        self.id = id
        self.leaves = leaves
        self.isDeleted = isDeleted
    }
}

/// `_all_docs` range or key query over document ids.
public struct AllDocsQuery: Sendable {
    public var startKey: String?
    public var endKey: String?
    public var inclusiveEnd = true
    public var descending = false
    public var limit: Int?
    public var skip = 0
    /// When set, exactly these ids in this order (range fields ignored).
    public var keys: [String]?
    /// Load the winner's body for each row.
    public var includeBodies = false
    /// With `includeBodies`: each row with a body also gets its document's conflicts,
    /// read in the same snapshot as the rows.
    public var includeConflicts = false

    public init() {}
}

/// One `_all_docs` row.
public struct AllDocsRow: Sendable {
    public let id: String
    /// The winning revision; nil when the id was asked for by `keys` and never existed.
    public let rev: RevisionID?
    /// True for a requested key whose winner is deleted.
    public let isDeleted: Bool
    /// The winner's body when asked for and available.
    public var body: [UInt8]?
    /// `_conflicts` (`RevisionTree.conflicts`), when `AllDocsQuery.includeConflicts` asked for them.
    public var conflicts: [RevisionID] = []

    public init(id: String, rev: RevisionID?, isDeleted: Bool, body: [UInt8]?) {
        self.id = id
        self.rev = rev
        self.isDeleted = isDeleted
        self.body = body
    }
}

public struct AllDocsResult: Sendable {
    /// Live (non-deleted) documents in the database.
    public let totalRows: Int
    /// Rows after skip and limit; for `keys`, one per key in order.
    public let rows: [AllDocsRow]
    public let updateSeq: Int64
    /// Live documents before the first row: those outside the start of the range, plus `skip`.
    public let offset: Int

    public init(totalRows: Int, rows: [AllDocsRow], updateSeq: Int64, offset: Int = 0) {
        self.totalRows = totalRows
        self.rows = rows
        self.updateSeq = updateSeq
        self.offset = offset
    }
}

/// A `_local/` document: no history, rev `0-N`.
public struct LocalDocument: Sendable {
    /// The id without the `_local/` prefix.
    public let id: String
    public let rev: String
    public let body: [UInt8]

    public init(id: String, rev: String, body: [UInt8]) {
        self.id = id
        self.rev = rev
        self.body = body
    }
}

/// `_revs_diff` answer for one document.
public struct RevisionsDiff: Sendable {
    public let id: String
    public let missing: [RevisionID]
    public let possibleAncestors: [RevisionID]

    public init(id: String, missing: [RevisionID], possibleAncestors: [RevisionID]) {
        self.id = id
        self.missing = missing
        self.possibleAncestors = possibleAncestors
    }
}
