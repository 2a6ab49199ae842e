import SetteeDocuments
import SetteeJSON
import SetteeStore
import SetteeViews

/// Design document views: their map and reduce functions as the node's
/// `JavaScriptService` runs them, and the `KeyIndex` that stores what a map emits.
enum ViewIndexes {
    /// Documents per map call below which a batch is not split: an index build maps the
    /// two halves of a larger batch at once, on two of the service's threads and engines.
    static let splitThreshold = 64

    static func mapFunction(_ view: ViewDefinition, _ code: DesignCode) -> DesignFunction {
        DesignFunction(code: code, name: "views/\(view.name)/map", source: view.map, scope: .modules(view.modules),
                       failure: "Compilation of the map function in the '\(view.name)' view failed: ")
    }

    /// The view's JavaScript reduce function; nil for a built-in reduce or none.
    static func reduceFunction(_ view: ViewDefinition, _ code: DesignCode) -> DesignFunction? {
        guard let source = view.reduce, view.builtinReduce == nil else { return nil }
        return DesignFunction(code: code, name: "views/\(view.name)/reduce", source: source, scope: .plain,
                              failure: "Compilation of the reduce function in the '\(view.name)' view failed: ")
    }

    /// The view's functions compile (known from an earlier call, or checked by one).
    /// - Throws: CouchDB's `compilation_error` when one does not.
    static func compile(_ view: ViewDefinition, _ code: DesignCode, _ service: JavaScriptService) async throws {
        try await service.compile(mapFunction(view, code))
        if let reduce = reduceFunction(view, code) { try await service.compile(reduce) }
    }

    /// Whether `compile` would call nothing: the view's functions compiled before.
    static func isCompiled(_ view: ViewDefinition, _ code: DesignCode, _ service: JavaScriptService) -> Bool {
        service.isKnownToCompile(mapFunction(view, code)) && reduceFunction(view, code).map(service.isKnownToCompile) ?? true
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
    ///
    /// The store calls `entries` synchronously, from a task of its index build (never
    /// inside its write transaction): that task waits, blocked, for the service's threads
    /// to map the batch. A call stopped by its time or memory limit throws, the index
    /// does not move, and the query answers it (CouchDB's `os_process_error`).
    static func keyIndex(_ view: ViewDefinition, _ code: DesignCode, _ service: JavaScriptService) -> KeyIndex {
        let function = mapFunction(view, code)
        let view = view
        return KeyIndex(signature: view.signature, label: view.designDocument) { documents in
            let parts = documents.count >= splitThreshold ? 2 : 1
            let half = documents.count / parts
            let slices = parts == 1 ? [documents] : [Array(documents[..<half]), Array(documents[half...])]
            return try service.callAndWait(function, parts: parts) { (part, engine, handle) throws(JavaScriptError) in
                try entries(slices[part], engine, handle, view)
            }.flatMap { $0 }
        }
    }

    /// A document as the map function gets it: `_id`, `_rev`, the body, then what CouchDB's
    /// index updater opened it with (`_conflicts`, `_deleted_conflicts`, `_local_seq` under the
    /// design option) and its attachments' stubs (couch_doc:to_json_obj/2).
    static func mapInput(_ document: KeyIndexDocument, localSeq: Bool) -> String {
        var writer = DocumentWriter(id: document.id, rev: document.rev.description, body: document.body)
        if !document.conflicts.isEmpty { writer.append("_conflicts", .array(document.conflicts.map { .string($0.description) })) }
        if !document.deletedConflicts.isEmpty {
            writer.append("_deleted_conflicts", .array(document.deletedConflicts.map { .string($0.description) }))
        }
        if localSeq { writer.append("_local_seq", .number(JSONNumber(document.seq))) }
        if !document.attachments.isEmpty {
            writer.append("_attachments", AttachmentJSON.object(document.attachments, forms: [:], showEncoding: false))
        }
        return String(decoding: writer.serialize(), as: UTF8.self)
    }

    /// Per document of `documents`, in order, its entries: the map function's rows keyed
    /// by collation (then document id and the emit's place), the value `[key, value]` as JSON.
    private static func entries(_ documents: [KeyIndexDocument], _ engine: JavaScriptEngine, _ map: Int,
                                _ view: ViewDefinition) throws(JavaScriptError) -> [[KeyIndexEntry]] {
        let collation = view.collation
        // Design documents are not mapped, as in CouchDB, unless the design document's `include_design` says so.
        let isMapped = { (document: KeyIndexDocument) in view.includeDesign || !document.id.hasPrefix("_design/") }
        let texts = documents.filter(isMapped).map { mapInput($0, localSeq: view.localSeq) }
        // A document the function throws on emits nothing (`nil` here); a stopped call throws.
        let results = texts.isEmpty ? [] : try engine.map(map, documents: texts)
        var next = 0
        return documents.map { document -> [KeyIndexEntry] in
            guard isMapped(document) else { return [] }
            defer { next += 1 }
            guard next < results.count, let emitted = results[next] else { return [] }
            return emitted.enumerated().compactMap { place, row -> KeyIndexEntry? in
                guard case .array(let pair) = row, pair.count == 2 else { return nil }
                var key = IndexKeyEncoding.encode(pair[0], collation: collation)
                IndexKeyEncoding.appendDocumentID(document.id, to: &key)
                IndexKeyEncoding.append(.int(place), to: &key)
                return KeyIndexEntry(key: key, value: JSONWriter.serialize(.array(pair)))
            }
        }
    }

    /// The indexes of every view of the design document `view` belongs to: refreshed
    /// together, as CouchDB updates a design document's views. Views that do not compile
    /// are left out (their own queries answer the error).
    static func siblings(of view: ViewDefinition, _ code: DesignCode, _ service: JavaScriptService) async -> [KeyIndex] {
        var indexes: [KeyIndex] = []
        for name in (code.body["views"]?.objectValue?.keys ?? []) {
            guard let sibling = ViewDefinition.named(name, designDocumentID: view.designDocument, body: code.body),
                  sibling.validateReduce() == nil, (try? await compile(sibling, code, service)) != nil else { continue }
            indexes.append(keyIndex(sibling, code, service))
        }
        return indexes
    }
}
