/// Attachment bytes: uploads into and downloads from the database's blob store.
///
/// A write with attachments is two steps: stream each attachment into an
/// `AttachmentUpload` and `finish` it, then `update` with `.new` entries naming the
/// blobs. A larger attachment's blob file is fsync'd and renamed into place by
/// `finish`; small ones ride with the update, which stores them all in one transaction
/// (`BlobStore.storeSmall`) before its revisions are written. So a committed revision
/// never names a missing blob; a crash between the steps leaves only unreferenced
/// blobs, which the next compaction sweeps.
extension Database {
    /// Starts an upload. `contentType` decides compression (`compressibleTypes`) unless
    /// the bytes arrive already gzip'd (`alreadyGzipped` with their identity length).
    /// - Throws: `StoreError.io` when the temp file cannot be created.
    public func makeAttachmentUpload(contentType: String,
                                     alreadyGzipped decodedLength: Int64? = nil) async throws -> AttachmentUpload {
        let encoding: AttachmentUpload.Encoding
        if let decodedLength {
            encoding = .gzipped(decodedLength: decodedLength)
        } else {
            encoding = Gzip.isCompressible(contentType: contentType, patterns: compressibleTypes) ? .compress : .identity
        }
        return try AttachmentUpload(store: blobs, inlineLimit: inlineAttachmentLimit, encoding: encoding) { [weak self] error in
            self?.markDamaged(DatabaseDamage.ioFailure(error))
        }
    }

    /// Stores `bytes` (inline base64 `data`, already decoded) as an attachment.
    /// - Throws: as `AttachmentUpload`.
    public func storeAttachment(name: String, contentType: String, bytes: [UInt8]) async throws -> StoredAttachment {
        let upload = try await makeAttachmentUpload(contentType: contentType)
        do {
            try await upload.write(bytes)
            return try await upload.finish(name: name, contentType: contentType)
        } catch {
            await upload.abort()
            throw error
        }
    }

    /// Opens `attachment` for reading: its stored bytes (`range` of them), or decoded
    /// identity bytes when `decode` is true and it is stored gzip'd.
    ///
    /// A revision names only blobs stored before it committed (see above), so a blob
    /// that is not there was lost (a `small.sqlite-wal` frame failing its checksum drops
    /// the rows after it): that is damage, not an attachment the document lacks.
    /// - Throws: `StoreError.attachmentDamaged` when the bytes are gone or do not match
    ///   the digest, `.io`.
    public func openAttachment(_ attachment: StoredAttachment, range: Range<Int64>? = nil,
                               decode: Bool = false) async throws -> AttachmentDownload {
        let blobs = self.blobs
        return try await BlobIO.run {
            do {
                return try AttachmentDownload(reader: try blobs.open(attachment.digest, range: range),
                                              decode: decode && attachment.isGzipped)
            } catch StoreError.attachmentNotFound {
                throw StoreError.attachmentDamaged(digest: attachment.digest.couchDigest,
                                                   detail: "no stored bytes in \(blobs.directory)")
            }
        }
    }

    /// The identity bytes of `attachment` (for inline `data`).
    public func attachmentData(_ attachment: StoredAttachment) async throws -> [UInt8] {
        let download = try await openAttachment(attachment, decode: true)
        defer { download.close() }
        return try await download.readAll()
    }
}
