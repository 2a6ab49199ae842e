/// A check of each update that needs the database itself (CouchDB's
/// `validate_doc_update` functions read its design documents and `_security`): asked
/// before the write's transaction, where it may read asynchronously. Refused updates
/// fail with their `WriteRejection`; the batch's others are written.
public protocol UpdateValidator: Sendable {
    /// Refusals by index into `updates`; the others may be written.
    func validate(_ updates: [DocumentUpdate], newEdits: Bool, in database: Database) async -> [Int: WriteRejection]
    /// A design document of `database` was written or deleted: what the validator
    /// keeps of its functions is out of date.
    func designDocumentsChanged(in database: Database)
}
