import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/_bulk_docs` and `POST /{db}/_bulk_get`
/// (CouchDB API Reference › Databases › /{db}/_bulk_docs, /{db}/_bulk_get).
enum BulkHandlers {
    /// Every document is validated before anything is written (a malformed one
    /// fails the request with 400, as CouchDB's `from_json_obj_validate` does);
    /// conflicts are per document. `new_edits:false` answers only the failures.
    /// `"all_or_nothing": true` is not supported by CouchDB 3 (chttpd_db:db_req/2): 417, one
    /// `not_implemented` row per document (its id, or a new one, and its rev or "0-"), and
    /// nothing written.
    static func allOrNothingRefused(_ docs: [JSONValue], _ context: RequestContext) -> HTTPResponse {
        let rows: [JSONValue] = docs.map { doc in
            ["id": .string(doc["_id"]?.stringValue ?? context.node.live.uuids.next()),
             "rev": .string(doc["_rev"]?.stringValue ?? "0-"), "error": "not_implemented",
             "reason": "all_or_nothing is not supported"]
        }
        return JSONResponse.make(status: 417, .array(rows))
    }

    static func bulkDocs(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try MaintenanceHandlers.requireJSONContentType(context)
        let bytes = try await context.jsonBodyBytes()
        let maxDepth = context.node.configuration.maxJSONDepth
        if let batch = try ReplicatedBatch.read(bytes, maxDepth: maxDepth, parser: DocumentHandlers.parser(context)) {
            return try await write(batch.parsed, newEdits: false, options: batch.options, context, database)
        }
        let request = try JSONValueBody(bytes: bytes, maxDepth: maxDepth)
        let body = try request.object()
        guard let given = body["docs"] else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        guard let docs = given.arrayValue else { throw CouchError.badRequest("`docs` parameter must be an array.") }
        // A repeated key anywhere: the tree is not the text, the bodies are serialized.
        let spans = request.hadDuplicateKeys ? nil : docSpans(request.bytes, body, count: docs.count)
        let newEdits: Bool
        switch body["new_edits"] {
        case nil: newEdits = true
        case .bool(let b)?: newEdits = b
        default: throw CouchError.badRequest("`new_edits` parameter must be a boolean.")
        }
        if newEdits, body["all_or_nothing"] == .bool(true) { return allOrNothingRefused(docs, context) }
        // `_local/` ids are written as local documents, as CouchDB's update_docs does.
        let locals = docs.indices.filter { docs[$0].objectValue?["_id"]?.stringValue?.hasPrefix("_local/") == true }
        if !locals.isEmpty {
            return try await mixedBulkDocs(context, database, docs: docs, locals: Set(locals), newEdits: newEdits)
        }
        let parser = DocumentHandlers.parser(context)
        let parsed = try docs.indices.map { i -> DocumentParser.Parsed in
            guard let object = docs[i].objectValue else { throw CouchError.badRequest("Document must be a JSON object") }
            let raw = spans?[i].map { DocumentParser.RawMembers(text: request.bytes, spans: $0) }
            return try parser.parse(object, id: nil, newEdits: newEdits, raw: raw)
        }
        return try await write(parsed, newEdits: newEdits, options: body, context, database)
    }

    /// Stores the parsed documents (attachments first) and answers with their rows.
    /// - Parameter options: the request's other members (`w` is read from them).
    private static func write(_ parsed: [DocumentParser.Parsed], newEdits: Bool, options: JSONObject,
                              _ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        // Validate every document's attachments before storing any blob.
        let entries = try parsed.map { try AttachmentParser.entries($0.attachments) }
        var updates: [DocumentUpdate] = []
        for (p, docEntries) in zip(parsed, entries) {
            var update = p.update
            update.attachments = try await AttachmentParser.updates(docEntries, database, newEdits: newEdits)
            updates.append(update)
        }
        let results: [Result<RevisionID, StoreError>]
        do {
            results = try await database.update(updates, newEdits: newEdits)
        } catch let error as StoreError where newEdits && error.isDiskFull {
            // A full disk refuses each document of an interactive batch, answered 201, as
            // CouchDB's disk monitor does (couch_db.erl `update_docs`); a replicated batch
            // gets the whole 507, which a replicator retries rather than skipping its documents.
            results = updates.map { _ in .failure(error) }
        }
        context.node.stats.recordWrite(documents: updates.count,
                                       inserted: newEdits ? updates.filter { $0.baseRevision == nil }.count : 0)
        let accepted = WriteQuorum.isUnmet(context, body: .object(options))
        return JSONResponse.make(status: accepted ? 202 : 201,
                                 bytes: resultRows(parsed, results, newEdits: newEdits, accepted: accepted))
    }

    /// `_bulk_docs` with local documents among the others: every document is parsed
    /// first (a bad one fails the request), then the local ones are written one by one
    /// and the rest in one batch; rows keep the request's order.
    private static func mixedBulkDocs(_ context: RequestContext, _ database: Database, docs: [JSONValue],
                                      locals: Set<Int>, newEdits: Bool) async throws -> HTTPResponse {
        let parser = DocumentHandlers.parser(context)
        var localRevs: [Int: String?] = [:]
        var parsed: [Int: DocumentParser.Parsed] = [:]
        for index in docs.indices {
            guard var object = docs[index].objectValue else { throw CouchError.badRequest("Document must be a JSON object") }
            if locals.contains(index) {
                // Local revs are `0-N`, not revision ids (as LocalDocHandlers.write).
                localRevs[index] = object["_rev"]?.stringValue
                object["_rev"] = nil
                parsed[index] = try parser.parse(object, id: nil, newEdits: true)
            } else {
                parsed[index] = try parser.parse(object, id: nil, newEdits: newEdits)
            }
        }
        let stored = docs.indices.filter { !locals.contains($0) }
        var updates: [DocumentUpdate] = []
        for index in stored {
            guard let p = parsed[index] else { continue }
            var update = p.update
            update.attachments = try await AttachmentParser.updates(AttachmentParser.entries(p.attachments), database,
                                                                    newEdits: newEdits)
            updates.append(update)
        }
        var storeResults = try await database.update(updates, newEdits: newEdits).makeIterator()
        var out: [UInt8] = [UInt8(ascii: "[")]
        for index in docs.indices {
            guard let p = parsed[index] else { continue }
            if locals.contains(index) {
                let id = p.update.id
                let rev: String
                do {
                    rev = try await database.putLocal(id: String(id.dropFirst("_local/".count)), body: p.update.body,
                                                      rev: localRevs[index] ?? nil, isDeleted: p.update.isDeleted)
                } catch StoreError.documentNotFound {
                    rev = "0-0"  // deleting a local document that is not there: CouchDB answers 0-0
                }
                guard newEdits else { continue }
                if out.count > 1 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeObject(["ok": true, "id": .string(id), "rev": .string(rev)], to: &out)
            } else if let result = storeResults.next() {
                writeRow(p, result, newEdits: newEdits, to: &out)
            }
        }
        out.append(contentsOf: "]\n".utf8)
        return JSONResponse.make(status: 201, bytes: out)
    }

    /// Each document's member spans in the request's text (nil for a document that is
    /// not an object), so compact bodies are copied rather than serialized again. The
    /// tree and the spans come from the same bytes, so `docs` is the first member named
    /// `docs` in both; nil if anything does not line up, and the bodies are serialized.
    static func docSpans(_ text: [UInt8], _ body: JSONObject, count: Int) -> [[JSONMemberSpan]?]? {
        guard let position = body.members.firstIndex(where: { $0.key == "docs" }) else { return nil }
        let elements = text.withUnsafeBufferPointer { JSONSpanScanner.elementMembers(ofMember: position, ofObjectIn: $0) }
        return elements?.count == count ? elements : nil
    }

    /// The answer's rows, written straight to bytes: a row per document (only the
    /// failures with `new_edits:false`). Building a `JSONValue` per row first cost
    /// as much as the serializing itself on a 1,000-document batch.
    /// - Parameter accepted: the write quorum was not met (`WriteQuorum`): rows written say `"accepted": true`.
    static func resultRows(_ parsed: [DocumentParser.Parsed], _ results: [Result<RevisionID, StoreError>],
                           newEdits: Bool, accepted: Bool = false) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(results.count * 80)
        for (p, result) in zip(parsed, results) { writeRow(p, result, newEdits: newEdits, accepted: accepted, to: &out) }
        out.append(contentsOf: "]\n".utf8)
        return out
    }

    /// One document's row, after a comma unless it is the first; none for a
    /// replicated write that succeeded.
    private static func writeRow(_ p: DocumentParser.Parsed, _ result: Result<RevisionID, StoreError>,
                                 newEdits: Bool, accepted: Bool = false, to out: inout [UInt8]) {
        switch result {
        case .success(let rev) where newEdits:
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"ok":true,"id":"#.utf8)
            JSONWriter.writeString(p.update.id, to: &out)
            // `rev.description` in parts: building that string was a third of this loop.
            out.append(contentsOf: #","rev":""#.utf8)
            out.append(contentsOf: String(rev.generation).utf8)
            out.append(UInt8(ascii: "-"))
            JSONWriter.writeEscaped(rev.suffix, to: &out)
            out.append(contentsOf: (accepted ? #"","accepted":true}"# : #""}"#).utf8)
        case .success:
            return
        case .failure(let error):
            let couch = CouchError(store: error)
            var row: JSONObject = ["id": .string(p.update.id)]
            // Replicated writes name the rev that failed; interactive ones do not
            // (chttpd_db update_doc_result_to_json/1 and /2).
            if !newEdits, let rev = p.rev { row["rev"] = .string(rev.description) }
            row["error"] = .string(couch.error)
            row["reason"] = .string(couch.reason)
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeObject(row, to: &out)
        }
    }
}
