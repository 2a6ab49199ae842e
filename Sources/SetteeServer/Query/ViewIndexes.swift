import SetteeDocuments
import SetteeJSON
import SetteeStore
import SetteeViews

/// Design document views: each compiled once into a JavaScript engine (kept while
/// its functions stay the same), and the `KeyIndex` that stores what it emits.
enum ViewIndexes {
    /// A view's functions in their engine.
    final class Compiled: Sendable {
        let engine: JavaScriptEngine
        let map: Int
        let reduce: Int?

        init(_ view: ViewDefinition) throws(JavaScriptError) {
            engine = try JavaScriptEngine()
            map = try engine.compile(view.map, modules: view.modules)
            if let source = view.reduce, view.builtinReduce == nil {
                reduce = try engine.compile(source)
            } else {
                reduce = nil
            }
        }
    }

    private static let cache = CompiledFunctions<Compiled>()

    /// The compiled view; CouchDB's `compilation_error` when a function does not compile.
    static func compiled(_ view: ViewDefinition) throws -> Compiled {
        let key = view.signature + "\u{0}" + view.map + "\u{0}" + (view.reduce ?? "")
        return try cache.value(for: key, failure: {
            "Compilation of the map function in the '\(view.name)' view failed: \($0)"
        }) { () throws(JavaScriptError) in try Compiled(view) }
    }

    /// The views of every JavaScript design document of `database`.
    static func all(_ database: Database) async throws -> [ViewDefinition] {
        try await DesignDocuments.all(database).flatMap { ddoc -> [ViewDefinition] in
            (ddoc.body["views"]?.objectValue?.keys ?? []).compactMap {
                ViewDefinition.named($0, designDocumentID: ddoc.id, body: ddoc.body)
            }
        }
    }

    /// The signatures of every index some design document still defines (Mango's and
    /// views'): `_view_cleanup` and `_index` DELETE drop the stored tables of the rest.
    static func liveSignatures(_ database: Database) async throws -> Set<String> {
        let mango = try await MangoIndexes.all(database).map(\.signature)
        let views = try await all(database).map(\.signature)
        return Set(mango + views)
    }

    /// The index of `view`: per emitted row, the key (collation-ordered, then the
    /// document id and the emit's place) and `[key, value]` as JSON. Design documents
    /// are not mapped, as in CouchDB; a document the function throws on emits nothing.
    static func keyIndex(_ view: ViewDefinition, _ compiled: Compiled) -> KeyIndex {
        KeyIndex(signature: view.signature, label: view.designDocument) { document -> [KeyIndexEntry] in
            guard !document.id.hasPrefix("_design/") else { return [] }
            let json = DocumentWriter(id: document.id, rev: document.rev.description, body: document.body).serialize()
            guard let rows = try? compiled.engine.map(compiled.map, documents: [String(decoding: json, as: UTF8.self)]),
                  let first = rows.first, let emitted = first else { return [] }
            return emitted.enumerated().compactMap { place, row -> KeyIndexEntry? in
                guard case .array(let pair) = row, pair.count == 2 else { return nil }
                var key = IndexKeyEncoding.encode(pair[0])
                IndexKeyEncoding.append(.string(document.id), to: &key)
                IndexKeyEncoding.append(.int(place), to: &key)
                return KeyIndexEntry(key: key, value: JSONWriter.serialize(.array(pair)))
            }
        }
    }
}
