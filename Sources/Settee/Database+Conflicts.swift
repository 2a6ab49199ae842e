internal import FoundationEssentials
internal import Synchronization
internal import SetteeJSON
internal import SetteeServer
internal import SetteeStore

/// Conflicts: reading them, the database's declared policy, a Swift closure policy, and
/// resolving on demand. Resolution is the node's own (`settee serve`'s): it runs after
/// every replicated write that leaves documents in conflict, off the write's path, and
/// when the policy changes.
extension Database {
    /// The revisions of document `id` that lose to its current one (CouchDB's
    /// `_conflicts`, in that order); empty when it is not in conflict or does not exist.
    public func conflicts(documentID id: String) async throws(SetteeError) -> [String] {
        try await run(id: id) {
            try await self.store.document(id: id, revisions: .none)?.tree.conflicts.map(\.description) ?? []
        }
    }

    /// Declares `policy` in design document `_design/{designDocument}` (created when
    /// missing, its other members kept). It replicates with the data, so every peer
    /// merges the same way; documents already in conflict are resolved by it at once.
    ///
    /// A database has one declared policy: the first design document, in id order, that
    /// declares `conflicts`.
    /// - Returns: the design document's new revision.
    /// - Throws: ``SetteeError/invalidDocument(_:)`` when an earlier design document
    ///   declares a policy already (it would stay the database's), or for a malformed
    ///   policy (CouchDB's `invalid_design_doc`, `compilation_error`);
    ///   ``SetteeError/forbidden(_:)`` when the directory's identity is not an admin.
    @discardableResult
    public func setConflictPolicy(_ policy: ConflictPolicy,
                                  designDocument: String = "conflicts") async throws(SetteeError) -> String {
        let id = "_design/" + designDocument
        if let declared = try await declaredPolicy(), declared.designDocument < id {
            throw .invalidDocument("\(declared.designDocument) declares this database's conflicts policy already")
        }
        return try await updateDesignDocument(designDocument) { body in body["conflicts"] = policy.declaration }
    }

    /// Removes the `conflicts` member of design document `_design/{designDocument}`.
    /// - Returns: the design document's new revision; nil when it declared no policy.
    @discardableResult
    public func removeConflictPolicy(designDocument: String = "conflicts") async throws(SetteeError) -> String? {
        let id = "_design/" + designDocument
        let current = try await run(id: id) { try await self.store.winner(id: id) }
        guard let current, !current.isDeleted, let bytes = current.body,
              (try? JSONReader.parse(bytes))?["conflicts"] != nil else { return nil }
        return try await updateDesignDocument(designDocument) { body in body.removeAll { $0.key == "conflicts" } }
    }

    /// The policy the database's design documents declare (nil: none, or one this version
    /// does not know). A policy set with ``setConflictResolver(_:_:)`` is not declared and
    /// is not shown here.
    public func conflictPolicy() async throws(SetteeError) -> ConflictPolicy? {
        try await declaredPolicy().flatMap { ConflictPolicy(declaration: $0.declaration) }
    }

    private func declaredPolicy() async throws(SetteeError) -> (designDocument: String, declaration: JSONValue)? {
        let store = self.store
        return try await run { try await EmbeddedConflicts.declaredPolicy(in: store) }
    }

    /// Resolves every document in conflict by the database's policy now (its Swift
    /// resolver, else its declared policy), trying again those it failed on before.
    /// - Throws: ``SetteeError/noConflictPolicy(database:)`` when there is none.
    public func resolveConflicts() async throws(SetteeError) -> ConflictResolutionReport {
        let (store, node, name) = (self.store, data.node, self.name)
        do {
            let outcome = try await run { try await EmbeddedConflicts.resolveAll(in: store, node: node) }
            return ConflictResolutionReport(
                resolved: outcome.resolved,
                failed: outcome.failed.map { ConflictResolutionReport.Failure(id: $0.id, reason: $0.reason) },
                remaining: outcome.remaining)
        } catch .invalidQuery(error: "bad_request", _) {
            throw .noConflictPolicy(database: name)
        }
    }
}
