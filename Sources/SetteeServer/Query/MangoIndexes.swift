import SetteeJSON
import SetteeStore

/// A database's Mango indexes, read from its design documents, and the
/// `KeyIndex` that stores each one.
enum MangoIndexes {
    /// Every json index of `database`'s design documents, in (ddoc, name) order as `GET _index` lists them.
    static func all(_ database: Database) async throws -> [MangoIndex] {
        var query = AllDocsQuery()
        query.startKey = "_design/"
        query.endKey = "_design0"
        query.inclusiveEnd = false
        query.includeBodies = true
        let rows = try await database.allDocs(query).rows
        let indexes = rows.flatMap { row -> [MangoIndex] in
            guard let body = row.body, let json = try? JSONReader.parse(body) else { return [] }
            return MangoIndex.indexes(designDocumentID: row.id, body: json)
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
