internal import Synchronization

/*
 `settee check`'s comparison of a stored key index with a rebuild (issue #47, item 4).

 A stored index holds, by its invariant (`KeyIndexPlan`), exactly the current entries
 of every document whose latest change (`docs.seq`) is at most its cursor c; documents
 changed since may hold older entries or none, which the next refresh replaces. So a
 rebuild is compared on those documents only, and needs no snapshot at c: every live
 document with seq <= c is mapped again, a batch at a time in row id order, and its
 entries (keys and values, byte for byte) are compared with the stored rows of that
 document. Stored rows of a document that is deleted at or before c, or that is not in
 `docs` at all, are stray: no rebuild would write them. The whole comparison reads one
 snapshot (one reader transaction) and writes nothing.
*/

/// What a rebuild of one key index found different from its stored table.
public struct KeyIndexVerification: Sendable {
    /// The update sequence the stored index had reached (0: never built, nothing compared).
    public let sequence: Int64
    /// Live documents compared (those not changed since `sequence`).
    public let documentsCompared: Int
    /// How many documents' stored entries differ from the rebuild's (missing, extra or changed).
    public let differingDocuments: Int
    /// The ids of the first few of them.
    public let examples: [String]
    /// Stored entries of documents deleted or purged: no rebuild has them.
    public let strayEntries: Int

    /// Whether the stored index matches the rebuild.
    public var matches: Bool { differingDocuments == 0 && strayEntries == 0 }
}

extension Database {
    /// Compares the stored table of `index` with its entries built afresh from the
    /// documents, in one read snapshot; writes nothing. The key functions run on the
    /// reader's thread (a check's, never a request's: call it from a command).
    /// - Throws: a SQLite failure (a damaged body included); what `index.entries` threw.
    public func verifyIndex(_ index: KeyIndex, batch: Int = 1_000) async throws -> KeyIndexVerification {
        guard KeyIndex.isValidSignature(index.signature) else {
            throw StoreError.invalidDocument("invalid index signature \(index.signature)")
        }
        return try await readers.read(.scan) { db in try KeyIndexVerifier(db, index).run(batch: max(1, batch)) }
    }
}

/// One comparison (see the top of the file); lives for one reader transaction.
private struct KeyIndexVerifier {
    let db: Connection
    let index: KeyIndex

    init(_ db: Connection, _ index: KeyIndex) {
        self.db = db
        self.index = index
    }

    func run(batch: Int) throws -> KeyIndexVerification {
        let cursor = try db.integer("SELECT seq FROM key_indexes WHERE signature = ?", [.text(index.signature)]) ?? 0
        guard cursor > 0, try KeyIndexRecords.exists(db, index) else {
            return KeyIndexVerification(sequence: 0, documentsCompared: 0, differingDocuments: 0, examples: [],
                                        strayEntries: 0)
        }
        var compared = 0, differing = 0, examples: [String] = [], after: Int64 = 0
        while true {
            let documents = try liveDocuments(after: after, through: cursor, limit: batch)
            guard let last = documents.last else { break }
            let fresh = try index.entries(documents.map(\.document))
            let stored = try storedEntries(from: documents[0].rowID, through: last.rowID)
            for (position, document) in documents.enumerated() {
                let rebuilt = position < fresh.count ? fresh[position] : []
                if !Self.same(rebuilt, stored[document.rowID] ?? []) {
                    differing += 1
                    if examples.count < 10 { examples.append(document.document.id) }
                }
            }
            compared += documents.count
            after = last.rowID
        }
        return KeyIndexVerification(sequence: cursor, documentsCompared: compared, differingDocuments: differing,
                                    examples: examples, strayEntries: try strayEntries(through: cursor))
    }

    /// Up to `limit` live documents with row id above `after` and seq at most `cursor`, by row id.
    private func liveDocuments(after: Int64, through cursor: Int64,
                               limit: Int) throws -> [(rowID: Int64, document: KeyIndexDocument)] {
        var found: [(rowID: Int64, document: KeyIndexDocument)] = []
        try db.query("""
            SELECT d.doc_id, d.docid, d.deleted, d.winner, settee_body(r.json, r.crc)
            FROM docs d LEFT JOIN revs r ON r.sequence = d.winner_seq AND r.revid = d.winner
            WHERE d.doc_id > ? AND d.seq <= ? AND d.deleted = 0 ORDER BY d.doc_id LIMIT ?
            """, [.integer(after), .integer(cursor), .integer(Int64(limit))]) { row in
            if let document = KeyIndexRecords.document(row) { found.append((row.int64(0), document)) }
        }
        // A winner whose body is unlinked from its docs row is read from the tree, as a build does.
        return try found.map { entry in
            guard entry.document.body.isEmpty,
                  let body = try DocumentRecords.winnerBodyFromTree(db, rowID: entry.rowID) else { return entry }
            return (entry.rowID, KeyIndexDocument(id: entry.document.id, rev: entry.document.rev, body: body))
        }
    }

    /// The stored entries of the documents with row ids in [first, last], by row id.
    private func storedEntries(from first: Int64, through last: Int64) throws -> [Int64: [KeyIndexEntry]] {
        var stored: [Int64: [KeyIndexEntry]] = [:]
        try db.query("SELECT doc_id, key, value FROM \(index.table) WHERE doc_id BETWEEN ? AND ?",
                     [.integer(first), .integer(last)]) { row in
            stored[row.int64(0), default: []].append(KeyIndexEntry(key: row.blob(1) ?? [], value: row.blob(2) ?? []))
        }
        return stored
    }

    /// Stored entries of documents deleted at or before `cursor`, or gone from `docs`.
    private func strayEntries(through cursor: Int64) throws -> Int {
        Int(try db.integer("""
            SELECT count(*) FROM \(index.table) k LEFT JOIN docs d ON d.doc_id = k.doc_id
            WHERE d.doc_id IS NULL OR (d.deleted = 1 AND d.seq <= ?)
            """, [.integer(cursor)]) ?? 0)
    }

    /// Whether two documents' entries are the same set (keys are unique, so sorting by key
    /// orders both alike).
    private static func same(_ rebuilt: [KeyIndexEntry], _ stored: [KeyIndexEntry]) -> Bool {
        guard rebuilt.count == stored.count else { return false }
        let order = { (a: KeyIndexEntry, b: KeyIndexEntry) in a.key.lexicographicallyPrecedes(b.key) }
        return zip(rebuilt.sorted(by: order), stored.sorted(by: order)).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension Database {
    /// Drops the stored table of the index with `signature` (a check's repair: the next
    /// refresh builds it again from the documents).
    public func dropIndex(_ signature: String) async throws {
        guard KeyIndex.isValidSignature(signature) else {
            throw StoreError.invalidDocument("invalid index signature \(signature)")
        }
        indexSequences.withLock { $0[signature] = nil }
        indexRanks.withLock { $0[signature] = nil }
        try await writer.write { db in
            try db.execute("DROP TABLE IF EXISTS \(KeyIndex.table(signature))")
            try db.run("DELETE FROM key_indexes WHERE signature = ?", [.text(signature)])
        }
    }
}
