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
    static func keyIndex(_ view: ViewDefinition, _ code: DesignCode, _ service: JavaScriptService) -> KeyIndex {
        keyIndexes([view], code, service)[0]
    }

    /// The indexes of `views`, views of one design document with distinct signatures,
    /// mapped together (`KeyIndexGroup`): each batch of documents is converted to text
    /// once, and each document parsed once by the engine for all their map functions,
    /// as CouchDB's query server maps a document through its design document's views.
    ///
    /// The store calls the group synchronously, from a task of its index build (never
    /// inside its write transaction): that task waits, blocked, for the service's threads
    /// to map the batch, in two halves at once on two threads above `splitThreshold`. A
    /// call stopped by its time or memory limit throws, the indexes do not move, and the
    /// query answers it (CouchDB's `os_process_error`).
    static func keyIndexes(_ views: [ViewDefinition], _ code: DesignCode, _ service: JavaScriptService) -> [KeyIndex] {
        let functions = views.map { mapFunction($0, code) }
        let group = KeyIndexGroup { documents, members in
            let parts = documents.count >= splitThreshold ? 2 : 1
            let half = documents.count / parts
            let slices = parts == 1 ? [documents] : [Array(documents[..<half]), Array(documents[half...])]
            let asked = members.map { views[$0] }
            let mapped = try service.callAndWait(members.map { functions[$0] }, parts: parts) {
                (part, engine, handles) throws(JavaScriptError) in
                try entries(slices[part], engine, handles, asked)
            }
            // Per part, per view: the views' entries, the parts' documents joined in order.
            return asked.indices.map { view in mapped.flatMap { $0[view] } }
        }
        return views.enumerated().map { member, view in
            KeyIndex(signature: view.signature, label: view.designDocument, group: group, member: member)
        }
    }

    /// A document as the map function gets it: `_id`, `_rev`, the body, then what CouchDB's
    /// index updater opened it with (`_conflicts`, `_deleted_conflicts`, `_local_seq` under the
    /// design option) and its attachments' stubs (couch_doc:to_json_obj/2).
    static func writeMapInput(_ document: KeyIndexDocument, localSeq: Bool, to out: inout [UInt8]) {
        var writer = DocumentWriter(id: document.id, rev: document.rev.description, body: document.body)
        if !document.conflicts.isEmpty { writer.append("_conflicts", .array(document.conflicts.map { .string($0.description) })) }
        if !document.deletedConflicts.isEmpty {
            writer.append("_deleted_conflicts", .array(document.deletedConflicts.map { .string($0.description) }))
        }
        if localSeq { writer.append("_local_seq", .number(JSONNumber(document.seq))) }
        if !document.attachments.isEmpty {
            writer.append("_attachments", AttachmentJSON.object(document.attachments, forms: [:], showEncoding: false))
        }
        writer.write(to: &out)
    }

    /// Per view of `views` (of one design document), per document of `documents` in order,
    /// its entries: the map function's rows keyed by collation (then document id and the
    /// emit's place), the value `[key, value]` as JSON. One engine call maps every view.
    private static func entries(_ documents: [KeyIndexDocument], _ engine: JavaScriptEngine, _ maps: [Int],
                                _ views: [ViewDefinition]) throws(JavaScriptError) -> [[[KeyIndexEntry]]] {
        // The design document's options, the same for all its views: what is mapped, and how.
        let includeDesign = views[0].includeDesign, localSeq = views[0].localSeq
        // Design documents are not mapped, as in CouchDB, unless the design document's `include_design` says so.
        let isMapped = { (document: KeyIndexDocument) in includeDesign || !document.id.hasPrefix("_design/") }
        // The documents as one JSON array, written in place.
        var text: [UInt8] = [UInt8(ascii: "[")], count = 0
        text.reserveCapacity(documents.reduce(2) { $0 + $1.body.count + 96 })
        for document in documents where isMapped(document) {
            if count > 0 { text.append(UInt8(ascii: ",")) }
            writeMapInput(document, localSeq: localSeq, to: &text)
            count += 1
        }
        text.append(UInt8(ascii: "]"))
        // A document a function throws on emits nothing for it (`nil` here); a stopped call throws.
        let slots = count == 0 ? [] : try engine.map(maps, documentArray: text, count: count).slots()
        var perView = views.map { _ in [[KeyIndexEntry]]() }
        for view in perView.indices { perView[view].reserveCapacity(documents.count) }
        var next = 0
        for document in documents {
            guard isMapped(document) else {
                for view in perView.indices { perView[view].append([]) }
                continue
            }
            for (view, definition) in views.enumerated() {
                let slot = next * views.count + view
                let rows = slot < slots.count ? slots[slot] ?? [] : []
                perView[view].append(rows.map { row in
                    // Room for a scalar key, the id and the place: one allocation, not one per append.
                    var key: [UInt8] = []
                    key.reserveCapacity(document.id.utf8.count + 32)
                    IndexKeyEncoding.append(row.key, to: &key, collation: definition.collation)
                    IndexKeyEncoding.appendDocumentID(document.id, to: &key)
                    IndexKeyEncoding.append(.int(row.place), to: &key)
                    return KeyIndexEntry(key: key, value: row.pair)
                })
            }
            next += 1
        }
        return perView
    }

    /// The views of the design document `view` belongs to that compile, `view` first, one
    /// per signature (views with the same map function share an index): refreshed
    /// together, as CouchDB updates a design document's views. Views that do not compile
    /// are left out (their own queries answer the error).
    static func siblings(of view: ViewDefinition, _ code: DesignCode, _ service: JavaScriptService) async -> [ViewDefinition] {
        var views = [view]
        var seen: Set<String> = [view.signature]
        for name in (code.body["views"]?.objectValue?.keys ?? []) {
            guard let sibling = ViewDefinition.named(name, designDocumentID: view.designDocument, body: code.body),
                  seen.insert(sibling.signature).inserted,
                  sibling.validateReduce() == nil, (try? await compile(sibling, code, service)) != nil else { continue }
            views.append(sibling)
        }
        return views
    }
}
