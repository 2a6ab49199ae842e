import SetteeDocuments
import SetteeJSON
import SetteeStore
import SetteeViews
internal import Dispatch
internal import Synchronization

/// Design document views: each compiled once into a JavaScript engine (kept while
/// its functions stay the same), and the `KeyIndex` that stores what it emits.
enum ViewIndexes {
    /// A view's functions in their engine, and its map function in a second engine:
    /// an index build maps two halves of each batch at once, one per core (an engine
    /// runs one call at a time).
    final class Compiled: Sendable {
        let engine: JavaScriptEngine
        let map: Int
        let reduce: Int?
        /// Engines with the map function compiled in each (the first is `engine`), and its handle in each.
        let mappers: [(engine: JavaScriptEngine, map: Int)]

        init(_ view: ViewDefinition) throws(JavaScriptError) {
            engine = try JavaScriptEngine()
            map = try engine.compile(view.map, modules: view.modules)
            if let source = view.reduce, view.builtinReduce == nil {
                reduce = try engine.compile(source)
            } else {
                reduce = nil
            }
            let second = try JavaScriptEngine()
            mappers = [(engine, map), (second, try second.compile(view.map, modules: view.modules))]
        }

        /// Per document of `documents`, in order, its entries: the map function's rows
        /// keyed by collation (then document id and the emit's place), the value `[key,
        /// value]` as JSON. A large batch goes in two halves, each on its own engine and
        /// core, serializing, mapping and encoding at once.
        /// - Throws: the engine's error when a call was stopped (time or memory limit): the
        ///   index does not move, and the query answers it (CouchDB's `os_process_error`).
        func entries(_ documents: [KeyIndexDocument]) throws -> [[KeyIndexEntry]] {
            guard documents.count >= 64 else { return try Self.entries(documents, mappers[0]) }
            let half = documents.count / 2
            let parts = [Array(documents[..<half]), Array(documents[half...])]
            let results = Mutex<[Result<[[KeyIndexEntry]], JavaScriptError>]>([.success([]), .success([])])
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                let entries = Result { () throws(JavaScriptError) in try Self.entries(parts[part], mappers[part]) }
                results.withLock { $0[part] = entries }
            }
            let (first, second) = results.withLock { ($0[0], $0[1]) }
            return try first.get() + second.get()
        }

        private static func entries(_ documents: [KeyIndexDocument], _ mapper: (engine: JavaScriptEngine, map: Int))
            throws(JavaScriptError) -> [[KeyIndexEntry]] {
            // Design documents are not mapped, as in CouchDB.
            let mapped = documents.filter { !$0.id.hasPrefix("_design/") }
            let texts = mapped.map { document in
                String(decoding: DocumentWriter(id: document.id, rev: document.rev.description,
                                                body: document.body).serialize(), as: UTF8.self)
            }
            // A document the function throws on emits nothing (`nil` here); a stopped call throws.
            let results = texts.isEmpty ? [] : try mapper.engine.map(mapper.map, documents: texts)
            var next = 0
            return documents.map { document -> [KeyIndexEntry] in
                guard !document.id.hasPrefix("_design/") else { return [] }
                defer { next += 1 }
                guard next < results.count, let emitted = results[next] else { return [] }
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

    private static let cache = CompiledFunctions<Compiled>()

    /// The compiled view; CouchDB's `compilation_error` when a function does not compile.
    /// Kept per database (`DesignCodeKey`): equal views of two databases share an index
    /// signature but never an engine.
    static func compiled(_ view: ViewDefinition, in database: Database) throws -> Compiled {
        let key = "\(ObjectIdentifier(database).hashValue)/\(database.name)\u{0}" + view.signature + "\u{0}"
            + view.map + "\u{0}" + (view.reduce ?? "")
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
        KeyIndex(signature: view.signature, label: view.designDocument, batchEntries: compiled.entries)
    }

    /// The indexes of every view of the design document `view` belongs to: refreshed
    /// together, as CouchDB updates a design document's views. Views that do not compile
    /// are left out (their own queries answer the error).
    static func siblings(of view: ViewDefinition, body: JSONValue, in database: Database) -> [KeyIndex] {
        (body["views"]?.objectValue?.keys ?? []).compactMap { name -> KeyIndex? in
            guard let sibling = ViewDefinition.named(name, designDocumentID: view.designDocument, body: body),
                  sibling.validateReduce() == nil, let compiled = try? compiled(sibling, in: database) else { return nil }
            return keyIndex(sibling, compiled)
        }
    }
}
