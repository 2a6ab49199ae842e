/// Told of the writes that may have put documents in conflict, after they committed
/// (`StoreConfiguration.conflictWatcher`): the server's conflict policies
/// (`ConflictResolver`) resolve from here, off the request path and never inside the
/// write's transaction.
///
/// Only replicated writes (`new_edits=false`) add a branch to a tree, so only they can
/// put a document in conflict; design document writes are passed too, since one may
/// declare (or change) the policy that applies to the conflicts already stored.
public protocol ConflictWatcher: Sendable {
    /// `ids` were written to `database` and committed (`newEdits`: as `Database.update`
    /// was called). Called on the writing task: return at once, work elsewhere.
    func written(ids: [String], newEdits: Bool, in database: Database)
}
