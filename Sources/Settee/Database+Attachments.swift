public import FoundationEssentials
internal import SetteeStore
internal import SetteeDocuments

/// Attachments: named binary data of a document, stored beside the database
/// (content-addressed, synced before the revision naming them commits).
extension Database {
    /// Adds (or replaces) attachment `name` of document `id` at `revision` (nil: a new
    /// document holding only the attachment).
    /// - Returns: the document's new revision.
    /// - Throws: ``SetteeError/conflict(id:currentRevision:)`` for a stale revision;
    ///   ``SetteeError/invalidDocument(_:)`` for a bad attachment name.
    public func putAttachment(_ bytes: Data, named name: String, contentType: String = "application/octet-stream",
                              documentID id: String, revision: String?) async throws(SetteeError) -> String {
        let base = try Self.revision(revision)
        try checkNames(id: id, attachment: name)
        let (body, kept) = try await contents(id: id, base: base, without: name)
        let stored = try await run(id: id) {
            try await self.store.storeAttachment(name: name, contentType: contentType, bytes: Array(bytes))
        }
        let update = DocumentUpdate(id: id, body: body, baseRevision: base, attachments: [.new(stored)] + kept)
        return try await writeOne(update)
    }

    /// Removes attachment `name` of document `id` at `revision`.
    /// - Returns: the document's new revision.
    /// - Throws: ``SetteeError/notFound(id:reason:)`` when there is no such attachment.
    public func removeAttachment(named name: String, documentID id: String,
                                 revision: String) async throws(SetteeError) -> String {
        let base = try Self.revision(revision)
        let (body, kept) = try await contents(id: id, base: base, without: name)
        let current = try await run(id: id) { try await self.store.winner(id: id) }
        guard current?.attachments.contains(where: { $0.name == name }) == true else {
            throw .notFound(id: id, reason: "missing attachment \(name)")
        }
        return try await writeOne(DocumentUpdate(id: id, body: body, baseRevision: base, attachments: kept))
    }

    /// The bytes of attachment `name` of document `id`'s current revision; nil when the
    /// document or the attachment does not exist.
    public func attachment(named name: String, documentID id: String) async throws(SetteeError) -> Data? {
        try await run(id: id) {
            guard let winner = try await self.store.winner(id: id), !winner.isDeleted,
                  let attachment = winner.attachments.first(where: { $0.name == name }) else { return nil }
            return Data(try await self.store.attachmentData(attachment))
        }
    }

    /// The names of document `id`'s attachments, with their content types.
    public func attachmentNames(documentID id: String) async throws(SetteeError) -> [String: String] {
        try await run(id: id) {
            guard let winner = try await self.store.winner(id: id), !winner.isDeleted else { return [:] }
            return Dictionary(winner.attachments.map { ($0.name, $0.contentType) }) { first, _ in first }
        }
    }

    func checkNames(id: String, attachment name: String) throws(SetteeError) {
        do {
            try DocumentParser.validate(id: id)
            try AttachmentParser.validate(name: name)
        } catch {
            throw SetteeError.from(error, id: id)
        }
    }

    /// The body of revision `base` of `id` (an empty object for a new document) and its
    /// other attachments, kept as stubs.
    func contents(id: String, base: RevisionID?,
                          without name: String) async throws(SetteeError) -> ([UInt8], [AttachmentUpdate]) {
        guard let base else { return (Array("{}".utf8), []) }
        let stored = try await run(id: id) { try await self.store.document(id: id, revisions: .revision(base)) }
        guard let revision = stored?.revisions.first, stored?.tree.leaves.contains(where: { $0.rev == base }) == true else {
            throw await failure(.conflict, id: id)
        }
        let kept = revision.attachments.filter { $0.name != name }.map { AttachmentUpdate.stub(name: $0.name, digest: $0.digest) }
        return (revision.body ?? Array("{}".utf8), kept)
    }

    func writeOne(_ update: DocumentUpdate) async throws(SetteeError) -> String {
        let result = try await run(id: update.id) { try await self.write([update]).first ?? .failure(.conflict) }
        switch result {
        case .success(let rev): return rev.description
        case .failure(let error): throw await failure(error, id: update.id)
        }
    }
}
