/// One CouchDB database: documents with revision trees, `_local` documents,
/// a changes sequence, all in one SQLite file (WAL).
///
/// Writes are serialized on one writer connection and batched into one
/// transaction where they arrive together; reads run concurrently on a pool
/// of reader connections. An `async` write returns only after its commit.
///
/// API CONTRACT — implementation to be completed by the store work.
public final class Database: Sendable {
    public let name: String

    init(name: String) { self.name = name }

    // MARK: Information

    public func info() async throws -> DatabaseInfo {
        DatabaseInfo(name: name, docCount: 0, deletedDocCount: 0, updateSeq: 0, purgeSeq: 0, fileSize: 0,
                     activeSize: 0, externalSize: 0, isCompacting: false)
    }

    /// The current update sequence.
    public func updateSequence() async throws -> Int64 { 0 }

    // MARK: Documents

    /// Applies `updates` in order in one transaction.
    ///
    /// `newEdits == true`: each update makes a child of `baseRevision` (a new
    /// document when nil) with a deterministic rev id; `.conflict` when the base
    /// is not a leaf or a live document exists and no base was given.
    /// `newEdits == false`: `history` is merged into the tree as is; revisions
    /// already present are success and get no new seq.
    /// - Returns: one result per update, in order: the stored revision or the error for that document.
    /// - Throws: only for failures of the whole batch (I/O, SQLite); nothing is then stored.
    public func update(_ updates: [DocumentUpdate], newEdits: Bool) async throws -> [Result<RevisionID, StoreError>] {
        []
    }

    /// Reads a document's tree and the bodies of `revisions`. Nil when the id was never written.
    /// A `.revision` not in the tree is simply absent from `StoredDocument.revisions`.
    public func document(id: String, revisions: RevisionSelection) async throws -> StoredDocument? { nil }

    /// Reads several revisions of one document by id.
    public func document(id: String, revs: [RevisionID]) async throws -> StoredDocument? { nil }

    /// `_all_docs`.
    public func allDocs(_ query: AllDocsQuery) async throws -> AllDocsResult {
        AllDocsResult(totalRows: 0, rows: [], updateSeq: 0)
    }

    /// Changes after `since` in sequence order (descending: newest first, `since` ignored), at most `limit`.
    /// `docIDs` restricts to those documents.
    public func changes(since: Int64, limit: Int?, descending: Bool, docIDs: Set<String>? = nil) async throws -> [Change] {
        []
    }

    /// `_revs_diff`: for each id, the given revisions this database lacks, and
    /// for those, the leaves of lower generation that could be their ancestors.
    /// Ids with nothing missing are left out.
    public func revisionsDiff(_ request: [(id: String, revs: [RevisionID])]) async throws -> [RevisionsDiff] { [] }

    // MARK: Local documents

    public func localDocument(id: String) async throws -> LocalDocument? { nil }

    /// Stores `_local/<id>` with no revision check: the new rev is `0-(N+1)` where
    /// `0-N` is the given `rev` (N = 0 when none), as CouchDB 3 does.
    /// Deleting (`isDeleted`) a missing local document throws `.documentNotFound(reason: "missing")`.
    public func putLocal(id: String, body: [UInt8], rev: String?, isDeleted: Bool) async throws -> String { "0-1" }

    /// `_local_docs`: local documents by id range (same query shape as `_all_docs`).
    public func localDocuments(_ query: AllDocsQuery) async throws -> [LocalDocument] { [] }

    // MARK: Maintenance

    public func revsLimit() async throws -> Int { 1000 }
    public func setRevsLimit(_ limit: Int) async throws {}

    /// The stored `_security` object (serialized JSON), `{}` when never set.
    public func security() async throws -> [UInt8] { Array("{}".utf8) }
    public func setSecurity(_ object: [UInt8]) async throws {}

    /// Drops bodies of non-leaf revisions and reclaims space. Returns at once;
    /// `info().isCompacting` is true while it runs.
    public func startCompaction() async throws {}
}
