internal import FoundationEssentials
internal import SetteeStore
internal import SetteeDocuments
internal import SetteeJSON

/// Saving, reading and deleting typed documents.
extension Database {
    /// Saves `value` as document `id` (nil: a new random id), replacing `revision`
    /// (nil: the document must not exist, or be deleted).
    ///
    /// The document's attachments at `revision` are kept.
    /// - Returns: the document as saved, with its new revision.
    /// - Throws: ``SetteeError/conflict(id:currentRevision:)`` when `revision` is not the
    ///   current one; ``SetteeError/encoding(_:)`` when `value` is not a JSON object;
    ///   ``SetteeError/invalidDocumentID(_:)``, ``SetteeError/documentTooLarge(id:limit:)``,
    ///   ``SetteeError/forbidden(_:)``. Nothing is written then.
    public func save<Value>(_ value: Value, id: String? = nil, revision: String? = nil)
        async throws(SetteeError) -> Document<Value> {
        let results = try await saveAll([DocumentChange(id: id, revision: revision, value: value)])
        guard let result = results.first else { throw .storage(code: 0, message: "the store returned no result") }
        return try result.get()
    }

    /// Saves `document.value` over `document.revision`.
    /// - Throws: as ``save(_:id:revision:)``.
    public func save<Value>(_ document: Document<Value>) async throws(SetteeError) -> Document<Value> {
        try await save(document.value, id: document.id, revision: document.revision)
    }

    /// Saves several documents in one transaction. Each succeeds or fails on its own
    /// (a conflict on one does not stop the others), as `_bulk_docs` does.
    /// - Returns: one result per change, in order.
    /// - Throws: only when the whole batch fails (storage, a closed directory); nothing is written then.
    public func saveAll<Value>(_ changes: [DocumentChange<Value>])
        async throws(SetteeError) -> [Result<Document<Value>, SetteeError>] {
        try data.checkOpen()
        var prepared: [Result<DocumentUpdate, SetteeError>] = []
        for change in changes {
            do throws(SetteeError) {
                prepared.append(.success(try await update(for: change)))
            } catch {
                prepared.append(.failure(error))
            }
        }
        let updates = prepared.compactMap { try? $0.get() }
        let written = try await run { try await self.write(updates) }
        var outcomes = written.makeIterator()
        var results: [Result<Document<Value>, SetteeError>] = []
        for (change, update) in zip(changes, prepared) {
            guard case .success(let update) = update else {
                if case .failure(let error) = update { results.append(.failure(error)) }
                continue
            }
            guard let outcome = outcomes.next() else {
                results.append(.failure(.storage(code: 0, message: "the store returned no result for \(update.id)")))
                continue
            }
            switch outcome {
            case .success(let rev):
                results.append(.success(Document(id: update.id, revision: rev.description, value: change.value)))
            case .failure(let error):
                results.append(.failure(await failure(error, id: update.id)))
            }
        }
        return results
    }

    /// The store update for `change`: its JSON checked as `PUT` checks it, with the
    /// attachments of the revision it replaces kept as stubs.
    private func update<Value>(for change: DocumentChange<Value>) async throws(SetteeError) -> DocumentUpdate {
        let (object, bytes) = try Self.encode(change.value)
        let parser = DocumentParser(maxDocumentSize: data.options.maxDocumentSize)
        let id = change.id ?? ""
        var update: DocumentUpdate
        // The encoder's compact members are copied as written, as `PUT` copies a request's.
        let raw = bytes.withUnsafeBufferPointer { JSONSpanScanner.members(ofObjectIn: $0) }
            .map { DocumentParser.RawMembers(text: bytes, spans: $0) }
        do {
            update = try parser.parse(object, id: change.id, newEdits: true, raw: raw).update
        } catch {
            throw SetteeError.from(error, id: id, maxDocumentSize: data.options.maxDocumentSize)
        }
        update.baseRevision = try Self.revision(change.revision)
        if let base = update.baseRevision {
            let kept = try await run(id: update.id) { try await self.store.winner(id: update.id) }
            if let kept, kept.rev == base {
                update.attachments = kept.attachments.map { .stub(name: $0.name, digest: $0.digest) }
            }
        }
        return update
    }

    /// Members in byte order: `JSONEncoder`'s own order changes from process to process, and
    /// a revision id is a digest of the body, so one value saved by two programs would be two
    /// revisions, in conflict once replicated, instead of one (CouchDB's deterministic revs).
    static let encoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// `value` as a JSON object (members in byte order), and its text.
    static func encode<Value: Encodable>(_ value: Value) throws(SetteeError) -> (JSONObject, [UInt8]) {
        let bytes: [UInt8]
        do {
            bytes = Array(try Self.encoder.encode(value))
        } catch {
            throw .encoding(String(describing: error))
        }
        guard case .object(let object)? = try? JSONReader.parse(bytes) else {
            throw .encoding("\(Value.self) does not encode to a JSON object")
        }
        return (object, bytes)
    }

    /// Decodes stored JSON (a body, or a whole document with its `_` members) as `Value`.
    static func decode<Value: Decodable>(_ type: Value.Type, _ bytes: [UInt8], id: String) throws(SetteeError) -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw .decoding(id: id, reason: String(describing: error))
        }
    }

    /// The current (winning) revision of document `id` decoded as `Value`; nil when
    /// there is no such document or it is deleted.
    /// - Throws: ``SetteeError/decoding(id:reason:)`` when its JSON does not decode as `Value`.
    public func document<Value>(_ type: Value.Type, id: String) async throws(SetteeError) -> Document<Value>? {
        let winner = try await run(id: id) { try await self.store.winner(id: id) }
        guard let winner, !winner.isDeleted, let body = winner.body else { return nil }
        return Document(id: id, revision: winner.rev.description, value: try Self.decode(type, body, id: id))
    }

    /// Deletes document `id` at `revision` (a tombstone replaces it, and replicates).
    /// - Returns: the tombstone's revision.
    /// - Throws: ``SetteeError/conflict(id:currentRevision:)`` for a stale revision,
    ///   ``SetteeError/notFound(id:reason:)`` for a document that never existed.
    @discardableResult
    public func delete(id: String, revision: String) async throws(SetteeError) -> String {
        do {
            try DocumentParser.validate(id: id)
        } catch {
            throw SetteeError.from(error, id: id)
        }
        let base = try Self.revision(revision)
        let update = DocumentUpdate(id: id, body: Array("{}".utf8), isDeleted: true, baseRevision: base)
        let result = try await run(id: id) { try await self.write([update]).first ?? .failure(.conflict) }
        switch result {
        case .success(let rev): return rev.description
        case .failure(.conflict):
            let exists = try await run(id: id) { try await self.store.document(id: id, revisions: .none) != nil }
            if !exists { throw .notFound(id: id, reason: "missing") }
            throw await failure(.conflict, id: id)
        case .failure(let error): throw await failure(error, id: id)
        }
    }
}
