public import FoundationEssentials
internal import SetteeStore
internal import SetteeDocuments

/// Attachments as streams: from and to files, or as an `AsyncSequence` of pieces, never
/// whole in memory. Bytes go through the store's blob API as `PUT /{db}/{doc}/{att}` and
/// `GET` stream them: an upload is written to the blob store a piece at a time (a large
/// one to its own file, fsync'd before the revision naming it commits), a download is
/// read a piece at a time and checked against its digest.
extension Database {
    /// Adds (or replaces) attachment `name` of document `id` with the contents of the file
    /// at `file`, read a piece at a time.
    /// - Parameters:
    ///   - file: the file to read (a `file:` URL).
    ///   - name: the attachment's name.
    ///   - contentType: its MIME type (compressible types are stored gzip'd).
    ///   - id: the document's id.
    ///   - revision: the document's current revision (nil: a new document holding only
    ///     the attachment).
    /// - Returns: the document's new revision.
    /// - Throws: ``SetteeError/io(operation:path:errno:)`` when the file cannot be read
    ///   (nothing is written); as ``putAttachment(_:named:contentType:documentID:revision:)-(Data,_,_,_,_)``.
    public func putAttachment(contentsOf file: URL, named name: String, contentType: String = "application/octet-stream",
                              documentID id: String, revision: String?) async throws(SetteeError) -> String {
        let source = try await AttachmentFile.reading(file.path)
        return try await putAttachment(named: name, contentType: contentType, documentID: id, revision: revision) {
            () throws(SetteeError) in try await source.read()
        }
    }

    /// Adds (or replaces) attachment `name` of document `id` with the pieces `chunks`
    /// yields, each stored as it arrives (a network download, a file being produced).
    /// - Returns: the document's new revision.
    /// - Throws: what `chunks` throws, as ``SetteeError/io(operation:path:errno:)`` unless
    ///   it is a ``SetteeError``; nothing is written then.
    public func putAttachment<Chunks: AsyncSequence>(
        _ chunks: Chunks, named name: String, contentType: String = "application/octet-stream",
        documentID id: String, revision: String?) async throws(SetteeError) -> String where Chunks.Element == Data {
        var iterator = chunks.makeAsyncIterator()
        return try await putAttachment(named: name, contentType: contentType, documentID: id, revision: revision) {
            () throws(SetteeError) in
            do {
                return try await iterator.next().map { Array($0) }
            } catch let error as SetteeError {
                throw error
            } catch {
                throw .io(operation: "read the attachment's pieces (\(error))", path: name, errno: 0)
            }
        }
    }

    /// Uploads the pieces `next` returns (nil: the end), then writes the revision naming them.
    private func putAttachment(named name: String, contentType: String, documentID id: String, revision: String?,
                               _ next: () async throws(SetteeError) -> [UInt8]?) async throws(SetteeError) -> String {
        let base = try Self.revision(revision)
        try checkNames(id: id, attachment: name)
        let (body, kept) = try await contents(id: id, base: base, without: name)
        let upload = try await run(id: id) { try await self.store.makeAttachmentUpload(contentType: contentType) }
        let stored: StoredAttachment
        do {
            while let piece = try await next() {
                try await run(id: id) { try await upload.write(piece) }
            }
            stored = try await run(id: id) { try await upload.finish(name: name, contentType: contentType) }
        } catch {
            await upload.abort()
            throw error
        }
        return try await writeOne(DocumentUpdate(id: id, body: body, baseRevision: base, attachments: [.new(stored)] + kept))
    }

    /// Attachment `name` of document `id`'s current revision, to read as a stream.
    /// - Throws: ``SetteeError/notFound(id:reason:)`` when the document (`missing`,
    ///   `deleted`) or the attachment (`missing attachment NAME`) does not exist.
    public func attachmentStream(named name: String, documentID id: String) async throws(SetteeError) -> AttachmentStream {
        let winner = try await run(id: id) { try await self.store.winner(id: id) }
        guard let winner else { throw .notFound(id: id, reason: "missing") }
        guard !winner.isDeleted else { throw .notFound(id: id, reason: "deleted") }
        guard let attachment = winner.attachments.first(where: { $0.name == name }) else {
            throw .notFound(id: id, reason: "missing attachment \(name)")
        }
        return AttachmentStream(database: self, attachment: attachment, documentID: id)
    }

    /// Writes attachment `name` of document `id` to the file at `file`, a piece at a time.
    /// The file appears only once complete and synced (written beside it, then renamed);
    /// an existing file there is replaced.
    /// - Returns: the number of bytes written.
    /// - Throws: as ``attachmentStream(named:documentID:)``; ``SetteeError/io(operation:path:errno:)``
    ///   when the file cannot be written; ``SetteeError/damaged(database:reason:)`` when the
    ///   stored bytes do not match their digest (no file is left then).
    @discardableResult
    public func writeAttachment(named name: String, documentID id: String, to file: URL) async throws(SetteeError) -> Int64 {
        let stream = try await attachmentStream(named: name, documentID: id)
        let output = try await AttachmentFile.writing(file.path)
        var written: Int64 = 0
        for try await piece in stream {
            try await output.write(Array(piece))
            written += Int64(piece.count)
        }
        try await output.commit()
        return written
    }
}
