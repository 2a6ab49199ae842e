/// The one place a rule can refuse a document write before anything of it is
/// stored: `Database.update(_:newEdits:policy:)` asks the policy about each
/// update inside the write's transaction, with the document's current winner at
/// hand. `_users`' rules and `validate_doc_update` plug in here; a rejected
/// update's result is `.forbidden` or `.unauthorized` and the batch's other
/// documents are written as usual.
public protocol WritePolicy: Sendable {
    /// - Parameters:
    ///   - update: what is about to be written.
    ///   - newEdits: false for replicated revisions (`new_edits=false`).
    ///   - current: reads the document's winning revision as stored now (nil for an
    ///     id never written), when the rule needs it.
    /// - Throws: `WriteRejection` to refuse this update.
    func review(_ update: DocumentUpdate, newEdits: Bool,
                current: () throws -> StoredRevision?) throws(WriteRejection)

    /// Changes an update before its transaction begins (`_users` hashes a
    /// `password` here: seconds of CPU that must not hold the writer).
    /// - Throws: `WriteRejection` to refuse it already.
    func prepare(_ update: DocumentUpdate, newEdits: Bool) throws(WriteRejection) -> DocumentUpdate
}

extension WritePolicy {
    public func prepare(_ update: DocumentUpdate, newEdits: Bool) throws(WriteRejection) -> DocumentUpdate { update }
}

/// Why a policy refused a write, in CouchDB's two words for it.
public enum WriteRejection: Error, Sendable, Equatable {
    /// 403 `forbidden`: the writer may not make this change.
    case forbidden(String)
    /// 401 `unauthorized`: the writer must authenticate (or be someone else).
    case unauthorized(String)
    /// Any other status with CouchDB's `error` word: a design document whose functions
    /// do not compile (400 `compilation_error`), a `validate_doc_update` that threw
    /// something else than forbidden or unauthorized (500 `unknown_error`).
    case refused(status: Int, error: String, reason: String)
}
