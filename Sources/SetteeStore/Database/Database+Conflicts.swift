/// Documents in conflict, read from the index the writer keeps (`ConflictRecords`).
extension Database {
    /// One document in conflict: its winning revision and its other live leaves.
    public struct ConflictedDocument: Sendable, Equatable {
        public let id: String
        public let winner: RevisionID
        /// The live losing leaves, in CouchDB's `_conflicts` order.
        public let conflicts: [RevisionID]
    }

    /// Up to `limit` documents in conflict in id order, from `startKey` (inclusive).
    public func conflictedDocuments(startKey: String? = nil, limit: Int) async throws -> [ConflictedDocument] {
        let ids = try await readers.read { db in try ConflictRecords.ids(db, from: startKey, limit: max(0, limit)) }
        var found: [ConflictedDocument] = []
        for id in ids {
            guard let tree = try await document(id: id, revisions: .none)?.tree, let winner = tree.winner,
                  !tree.conflicts.isEmpty else { continue }
            found.append(ConflictedDocument(id: id, winner: winner.rev, conflicts: tree.conflicts))
        }
        return found
    }

    /// How many documents are in conflict.
    public func conflictedDocumentCount() async throws -> Int {
        try await readers.read { db in try ConflictRecords.count(db) }
    }

    /// Up to `limit` ids of documents in conflict, in id order, from `startKey` (inclusive):
    /// the index alone, no tree read.
    public func conflictedIDs(startKey: String? = nil, limit: Int) async throws -> [String] {
        try await readers.read { db in try ConflictRecords.ids(db, from: startKey, limit: max(0, limit)) }
    }

    /// Those of `ids` whose documents are in conflict now (one read of the index).
    public func conflictedIDs(among ids: [String]) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        return try await readers.read { db in try ConflictRecords.conflicted(db, among: ids) }
    }
}
