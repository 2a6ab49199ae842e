internal import SetteeJSON

/// `_purge`: revisions removed as if they had never been written (CouchDB API
/// Reference › Databases › /{db}/_purge). Only leaves are purged; each purged
/// leaf takes its branch with it up to where another leaf's history joins, so
/// the rest of the tree stays and the winner is chosen again. A document whose
/// every leaf is purged is gone. As in CouchDB the document moves to a new
/// update seq (it shows again in `_changes`), `purge_seq` counts each document
/// named, and the request is kept in a bounded log (`_purged_infos`, at most
/// `_purged_infos_limit` entries). Attachment blobs no revision names any more
/// go at the next compaction.
extension Database {
    /// What one purge request did to one document.
    public struct Purged: Sendable, Equatable {
        public let id: String
        /// The requested revisions that were leaves and are now gone.
        public let revisions: [RevisionID]
    }

    /// Purges `requests` (document id → revisions) in one transaction.
    /// - Returns: one entry per request, in order.
    public func purge(_ requests: [(id: String, revisions: [RevisionID])]) async throws -> [Purged] {
        let (results, sequence) = try await writer.write { db in
            var counts = DocumentCounts.Change()
            var results: [Purged] = []
            var sequence = try DocumentRecords.updateSequence(db)
            for request in requests {
                let purged = try Self.purge(db, id: request.id, revisions: request.revisions,
                                            sequence: &sequence, counts: &counts)
                results.append(Purged(id: request.id, revisions: purged))
                try Self.logPurge(db, id: request.id, revisions: request.revisions)
            }
            try DocumentCounts.add(db, counts)
            return (results, sequence)
        }
        // A purged design document's validate_doc_update must stop applying.
        if let updateValidator, results.contains(where: { $0.id.hasPrefix("_design/") && !$0.revisions.isEmpty }) {
            updateValidator.designDocumentsChanged(in: self)
        }
        if results.contains(where: { !$0.revisions.isEmpty }) {
            changesNotifier.notify(sequence: sequence)
            events?.record(.updated, databaseName: name)
        }
        return results
    }

    /// `purge_seq`'s count and `_purged_infos`: the kept purge requests, oldest first.
    public func purgedInfos() async throws -> [(id: String, revisions: [String])] {
        try await readers.read { db in
            var infos: [(String, [String])] = []
            try db.query("SELECT docid, revs FROM purges ORDER BY purge_seq") { row in
                let revs = (try? JSONReader.parse(row.text(1) ?? "[]"))?.arrayValue?.compactMap(\.stringValue) ?? []
                infos.append((row.text(0) ?? "", revs))
            }
            return infos
        }
    }

    /// `_purged_infos_limit`: how many purge requests the log keeps (CouchDB's default 1000).
    public func purgedInfosLimit() async throws -> Int {
        try await readers.read { Int(try $0.integer("SELECT value FROM info WHERE key = 'purged_infos_limit'") ?? 1000) }
    }

    /// - Throws: `.invalidDocument` when `limit` is below 1.
    public func setPurgedInfosLimit(_ limit: Int) async throws {
        guard limit >= 1 else { throw StoreError.invalidDocument("purged_infos_limit must be positive") }
        try await writer.write { db in
            try db.run("INSERT OR REPLACE INTO info(key, value) VALUES ('purged_infos_limit', ?)",
                       [.integer(Int64(limit))])
            try Self.trimPurgeLog(db, to: limit)
        }
    }

    /// Purges the leaves of `id` among `revisions`; returns those purged.
    private static func purge(_ db: Connection, id: String, revisions: [RevisionID], sequence: inout Int64,
                              counts: inout DocumentCounts.Change) throws -> [RevisionID] {
        guard let (record, tree) = try DocumentRecords.documentAndTree(db, id: id) else { return [] }
        let leaves = Set(tree.leaves.map(\.rev))
        var purged: [RevisionID] = []
        for rev in revisions where leaves.contains(rev) && !purged.contains(rev) { purged.append(rev) }
        guard !purged.isEmpty else { return [] }
        let remaining = tree.leaves.filter { !purged.contains($0.rev) }
        var kept = Set<RevisionID>()
        for leaf in remaining { kept.formUnion(tree.history(of: leaf.rev)) }
        for node in tree.nodes.values where !kept.contains(node.rev) {
            counts.externalBytes -= try DocumentCounts.retireLeaf(db, sequence: node.sequence)
            try db.run("DELETE FROM revs WHERE sequence = ?", [.integer(node.sequence)])
            try AttachmentRecords.delete(db, sequence: node.sequence)
        }
        let winner = remaining.sorted(by: RevisionTree.ranksBefore).first
        counts.document(wasDeleted: record.isDeleted, isDeleted: winner?.isDeleted)
        // The purge is a change of its own: a new update seq, as CouchDB's purge takes one.
        sequence += 1
        try db.run("UPDATE sqlite_sequence SET seq = ? WHERE name = 'revs'", [.integer(sequence)])
        if let winner {
            try db.run("UPDATE docs SET seq = ?, winner = ?, winner_seq = ?, deleted = ? WHERE doc_id = ?",
                       [.integer(sequence), .text(winner.rev.description), .integer(winner.sequence),
                        .integer(winner.isDeleted ? 1 : 0), .integer(record.rowID)])
            let live = remaining.filter { !$0.isDeleted }.count
            if live < 2 { try ConflictRecords.forget(db, rowID: record.rowID) }
        } else {
            try db.run("DELETE FROM docs WHERE doc_id = ?", [.integer(record.rowID)])
            try ConflictRecords.forget(db, rowID: record.rowID)
            try KeyIndexRecords.forget(db, rowID: record.rowID)
        }
        return purged
    }

    /// Counts the request in `purge_seq` and keeps it in the log, trimmed to the limit.
    private static func logPurge(_ db: Connection, id: String, revisions: [RevisionID]) throws {
        try db.run("UPDATE info SET value = value + 1 WHERE key = 'purge_seq'")
        let seq = try db.integer("SELECT value FROM info WHERE key = 'purge_seq'") ?? 0
        try db.run("INSERT INTO purges(purge_seq, docid, revs) VALUES (?, ?, ?)",
                   [.integer(seq), .text(id),
                    .text(String(decoding: JSONWriter.serialize(.array(revisions.map { .string($0.description) })),
                                 as: UTF8.self))])
        let limit = Int(try db.integer("SELECT value FROM info WHERE key = 'purged_infos_limit'") ?? 1000)
        try trimPurgeLog(db, to: limit)
    }

    private static func trimPurgeLog(_ db: Connection, to limit: Int) throws {
        try db.run("DELETE FROM purges WHERE purge_seq <= (SELECT max(purge_seq) FROM purges) - ?",
                   [.integer(Int64(limit))])
    }
}
