/// Document reads: single documents, `_all_docs`, `_changes`, `_revs_diff`.
///
/// `_all_docs` order is raw byte order of the UTF-8 document ids, not ICU
/// collation. Apache CouchDB sorts `_all_docs` "raw", by Erlang binary
/// comparison (Jan Lehnardt on dev@couchdb.apache.org, 2015-09-15,
/// "_all_docs is sorted raw ... Views are sorted using the ICU library"), and
/// still does in 3.x: CouchDB PR #6123 (test/elixir/test/mango/26_id_collation_test.exs)
/// states "Doc _id comparisons in selectors should be by byte order like _all_docs".
/// Erlang compares binaries byte by byte, which is exactly SQLite's BINARY
/// collation (memcmp) on UTF-8 text: `docs.docid` is declared COLLATE BINARY.
extension Database {
    /// Reads a document's tree and the bodies of `revisions`. Nil when the id was never written.
    /// A `.revision` not in the tree is simply absent from `StoredDocument.revisions`.
    public func document(id: String, revisions: RevisionSelection) async throws -> StoredDocument? {
        try await readers.read { db in try Self.document(db, id: id, revisions: revisions) }
    }

    /// `document(id:revisions:)` for each of `lookups`, in their order, on one snapshot and
    /// in one trip to a reader: `_bulk_get` of 100 documents read each on its own trip spent
    /// more in the hand-offs between threads than in SQLite (bench/RESULTS.md, "Replication
    /// at 15× CouchDB").
    public func documents(_ lookups: [(id: String, revisions: RevisionSelection)]) async throws -> [StoredDocument?] {
        guard !lookups.isEmpty else { return [] }
        // Many documents hold a reader as a scan does: placed as one, point reads need not queue behind it.
        return try await readers.read(lookups.count > 8 ? .scan : .point) { db in
            // Every tree in a statement per 256 ids (`DocumentRecords.documentsTreesAndWinners`).
            let reads = try DocumentRecords.documentsTreesAndWinners(db, ids: lookups.map(\.id))
            return try lookups.map { try Self.document(db, reads[$0.id], id: $0.id, revisions: $0.revisions) }
        }
    }

    private static func document(_ db: Connection, id: String, revisions: RevisionSelection) throws -> StoredDocument? {
        try document(db, DocumentRecords.documentTreeAndWinner(db, id: id), id: id, revisions: revisions)
    }

    /// The document `read` found (nil: never written), with the bodies of `revisions`.
    private static func document(_ db: Connection, _ read: DocumentWithWinner?, id: String,
                                 revisions: RevisionSelection) throws -> StoredDocument? {
        guard let read else { return nil }
        let (record, tree) = (read.record, read.tree)
        let revs: [RevisionID]
        switch revisions {
        case .winner: revs = tree.winner.map { [$0.rev] } ?? []
        case .revision(let rev): revs = [rev]
        case .allLeaves: revs = tree.leaves.map(\.rev)
        case .none: revs = []
        }
        let stored = try DocumentRecords.revisions(db, rowID: record.rowID, tree: tree, revs: revs, known: read.winner)
        return StoredDocument(id: id, tree: tree, revisions: stored, sequence: record.sequence)
    }

    /// Reads a document's winning revision (even when deleted) without its tree: what
    /// a plain `GET` and `include_docs` need, at about half the cost of
    /// `document(id:revisions: .winner)`. Nil when the id was never written.
    ///
    /// A winner read lately comes from memory (`WinnerCache`), with no reader and no suspension.
    public func winner(id: String) async throws -> StoredRevision? {
        if let kept = cachedWinners.revision(id: id) { return kept }
        let read = try await readers.readCounted { [cachedWinners] db, commit in
            let read = try DocumentRecords.winner(db, id: id)
            if case .found(let revision) = read { cachedWinners.insert(revision, id: id, readAt: commit) }
            return read
        }
        switch read {
        case .neverWritten: return nil
        case .found(let revision): return revision
        case .unlinked: return try await document(id: id, revisions: .winner)?.revisions.first
        }
    }

    /// Reads several revisions of one document by id; revisions not in its tree are left out.
    public func document(id: String, revs: [RevisionID]) async throws -> StoredDocument? {
        try await readers.read { db in
            guard let (record, tree) = try DocumentRecords.documentAndTree(db, id: id) else { return nil }
            let stored = try DocumentRecords.revisions(db, rowID: record.rowID, tree: tree, revs: revs)
            return StoredDocument(id: id, tree: tree, revisions: stored, sequence: record.sequence)
        }
    }

    /// `_all_docs`: live documents by id range, or exactly `keys` (missing and deleted ones included).
    public func allDocs(_ query: AllDocsQuery) async throws -> AllDocsResult {
        try await readers.read(.scan) { db in
            let total = try DocumentCounts.totals(db).live
            let rows = try query.keys.map { try AllDocsReader.rows(db, keys: $0, query: query) }
                ?? AllDocsReader.rows(db, range: query)
            var before: Int64 = 0
            if query.keys == nil, let start = query.startKey {
                let sql = query.descending ? "SELECT count(*) FROM docs WHERE deleted = 0 AND docid > ?"
                                           : "SELECT count(*) FROM docs WHERE deleted = 0 AND docid < ?"
                before = try db.integer(sql, [.text(start)]) ?? 0
            }
            var result = AllDocsResult(totalRows: total, rows: rows, updateSeq: try DocumentRecords.updateSequence(db),
                                       offset: min(total, Int(before) + min(max(0, query.skip), total)))  // skip may be Int.max
            if query.countsDesignDocuments {
                result.designDocuments = Int(try db.integer(
                    "SELECT count(*) FROM docs WHERE deleted = 0 AND docid >= '_design/' AND docid < '_design0'") ?? 0)
            }
            return result
        }
    }

    /// Changes after `since` in sequence order (descending: newest first, `since` ignored), at most `limit`.
    /// `docIDs` restricts to those documents. One change per document, at its latest seq.
    public func changes(since: Int64, limit: Int?, descending: Bool,
                        docIDs: Set<String>? = nil) async throws -> [Change] {
        guard !descending, docIDs == nil else {
            return try await readChanges(since: since, limit: limit, descending: descending, docIDs: docIDs)
        }
        let key = ChangesReadKey(since: since, limit: limit)
        return try await sharedChangesReads.value(for: key, at: changesNotifier.sequence) {
            try await self.readChanges(since: since, limit: limit, descending: false, docIDs: nil)
        }
    }

    /// How many documents changed after `since` (`_changes`' `pending`), counted
    /// without reading them, from the count nearest `since` made at the same update seq
    /// (`ChangeCounts`). `docIDs` restricts the count to those documents.
    public func changeCount(since: Int64, docIDs: Set<String>? = nil) async throws -> Int {
        try await readers.read(.scan) { db in
            guard let docIDs else { return try self.changeCounts.count(db, since: since) }
            return try docIDs.reduce(0) { count, id in
                try (DocumentRecords.document(db, id: id)?.sequence ?? 0) > since ? count + 1 : count
            }
        }
    }

    private func readChanges(since: Int64, limit: Int?, descending: Bool,
                             docIDs: Set<String>?) async throws -> [Change] {
        try await readers.read(.scan) { db in
            var records: [(rowID: Int64, id: String, seq: Int64)] = []
            if let docIDs {
                for id in docIDs {
                    guard let record = try DocumentRecords.document(db, id: id),
                          descending || record.sequence > since else { continue }
                    records.append((record.rowID, id, record.sequence))
                }
                records.sort { descending ? $0.seq > $1.seq : $0.seq < $1.seq }
                if let limit { records = Array(records.prefix(max(0, limit))) }
            } else if !descending {
                return try DocumentRecords.changes(db, since: since, limit: limit.map { Int64(max(0, $0)) } ?? -1)
            } else {
                let limitValue = SQLiteValue.integer(limit.map { Int64(max(0, $0)) } ?? -1)
                try db.query("SELECT doc_id, docid, seq FROM docs ORDER BY seq DESC LIMIT ?", [limitValue]) { row in
                    records.append((row.int64(0), row.text(1) ?? "", row.int64(2)))
                }
            }
            return try records.map { record in
                Change(sequence: record.seq, id: record.id, tree: try DocumentRecords.tree(db, rowID: record.rowID))
            }
        }
    }

    /// `_revs_diff`: for each id, the given revisions this database lacks, and
    /// for those, the leaves of lower generation that could be their ancestors.
    /// Ids with nothing missing are left out.
    public func revisionsDiff(_ request: [(id: String, revs: [RevisionID])]) async throws -> [RevisionsDiff] {
        let request = request.map { RevsDiffRequest(id: $0.id, revs: $0.revs) }
        return try await readers.read(.scan) { db in
            // Every id's tree in a statement per 256 ids (`DocumentRecords.documentsAndTrees`).
            let reads = try DocumentRecords.documentsAndTrees(db, ids: request.map(\.id))
            return request.compactMap { item in
                let tree = reads[item.id]?.tree ?? RevisionTree()
                var seen = Set<RevisionID>()
                let missing = item.revs.filter { !tree.contains($0) && seen.insert($0).inserted }
                guard let highest = missing.map(\.generation).max() else { return nil }
                let ancestors = tree.leaves.filter { $0.rev.generation < highest }.map(\.rev).sorted()
                return RevisionsDiff(id: item.id, missing: missing, possibleAncestors: ancestors)
            }
        }
    }
}

/// A `_revs_diff` item as a Sendable value (tuples cannot cross to the reader queue).
private struct RevsDiffRequest: Sendable {
    let id: String
    let revs: [RevisionID]
}
