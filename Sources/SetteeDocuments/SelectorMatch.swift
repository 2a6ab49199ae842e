public import SetteeJSON
public import SetteeStore

extension Selector {
    /// Whether document `id`'s winning revision, as CouchDB's JSON (`_id`, `_rev`,
    /// `_deleted`), matches: the `_selector` filter of `_changes` and of replication.
    public func matchesWinner(of id: String, in database: Database) async throws -> Bool {
        guard let revision = try await database.winner(id: id), let body = revision.body else { return false }
        var writer = DocumentWriter(id: id, rev: revision.rev.description, body: body)
        writer.isDeleted = revision.isDeleted
        return matches(try writer.jsonValue())
    }
}
