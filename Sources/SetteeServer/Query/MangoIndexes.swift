import SetteeJSON
import SetteeStore

/// A database's Mango indexes, read from its design documents, and the
/// `KeyIndex` that stores each one.
enum MangoIndexes {
    /// Every json index of `database`'s design documents, in (ddoc, name) order as `GET _index` lists them.
    static func all(_ database: Database) async throws -> [MangoIndex] {
        let indexes = try await DesignDocuments.all(database).flatMap {
            MangoIndex.indexes(designDocumentID: $0.id, body: $0.body)
        }
        return indexes.sorted { ($0.ddoc ?? "", $0.name) < ($1.ddoc ?? "", $1.name) }
    }

    /// The stored table behind `index`.
    static func keyIndex(_ index: MangoIndex) -> KeyIndex {
        KeyIndex(signature: index.signature, label: index.ddoc ?? "") { document in
            guard let body = try? JSONReader.parse(document.body) else { return nil }
            return index.key(id: document.id, rev: document.rev.description, body: body)
        }
    }
}

extension KeyIndexFailure {
    /// The answer to a query whose index could not be brought up to date: a 500 that
    /// says so, what failed and where the index stays, instead of the generic "could not
    /// be accessed"; the index is not marked broken, so the next query tries again.
    /// `name` is how the client knows the index (Mango: `_design/ddoc/name`).
    func couchError(index name: String) -> CouchError {
        // A full disk: CouchDB's answer when its disk monitor stops an index update
        // (fabric_view_map.erl); the index resumes from its seq once there is room.
        if let error = error as? StoreError, error.isDiskFull {
            return CouchError(507, CouchError.insufficientStorageError, "not enough room to update index")
        }
        let cause: String
        if let error = error as? StoreError, case .sqlite(let code, let message, _) = error {
            cause = "SQLite error \(code): \(message)"  // the SQL stays in the log, not the answer
        } else {
            cause = String(describing: error)
        }
        return CouchError(500, "index_update_failed",
                          "The index \(name) could not be brought up to date (\(cause)). It stays at update seq "
                          + "\(sequence); the next query that needs it tries again.")
    }
}
