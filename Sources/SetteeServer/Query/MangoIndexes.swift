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
