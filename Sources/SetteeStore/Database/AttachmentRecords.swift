/// Row-level reads and writes of `attachments`, and the resolution of a write's
/// `_attachments` into the rows of its new revision. Runs on a connection's queue.
///
/// Stub resolution (CouchDB `couch_doc:merge_stubs`): with `new_edits=true` a stub
/// names an attachment of the base revision. With `new_edits=false` the base is not
/// known, so the stub is looked up in the nearest ancestor (newest first in the given
/// history) that still has it, and then, when the stub carries a digest, in any
/// revision of the document with that digest (a compacted ancestor loses its rows
/// but a leaf may still share the blob). Nothing found: `.missingStub`.
enum AttachmentRecords {
    static func attachments(_ db: Connection, sequence: Int64) throws -> [StoredAttachment] {
        var found: [StoredAttachment] = []
        let sql = """
            SELECT name, content_type, digest, revpos, length, encoded_length, encoding
            FROM attachments WHERE sequence = ? ORDER BY rowid
            """
        try db.query(sql, [.integer(sequence)]) { row in
            // Rows are written only by this store; a bad digest means corruption: skip it.
            guard let digest = row.blob(2).flatMap(AttachmentDigest.init(md5:)) else { return }
            found.append(StoredAttachment(name: row.text(0) ?? "", contentType: row.text(1) ?? "",
                                          digest: digest, revpos: Int(row.int64(3)), length: row.int64(4),
                                          encodedLength: row.int64(5), encoding: row.text(6)))
        }
        return found
    }

    static func insert(_ db: Connection, sequence: Int64, _ attachments: [StoredAttachment]) throws {
        for a in attachments {
            try db.run("""
                INSERT INTO attachments(sequence, name, content_type, digest, revpos, length, encoded_length, encoding)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [.integer(sequence), .text(a.name), .text(a.contentType), .blob(a.digest.md5),
                      .integer(Int64(a.revpos)), .integer(a.length), .integer(a.encodedLength),
                      a.encoding.map(SQLiteValue.text) ?? .null])
        }
    }

    static func delete(_ db: Connection, sequence: Int64) throws {
        try db.run("DELETE FROM attachments WHERE sequence = ?", [.integer(sequence)])
    }

    /// Every blob key some revision still names (what a compaction sweep keeps).
    static func referencedKeys(_ db: Connection) throws -> Set<BlobKey> {
        var keys = Set<BlobKey>()
        try db.query("SELECT DISTINCT digest FROM attachments") { row in
            if let key = row.blob(0).flatMap(BlobKey.init(md5:)) { keys.insert(key) }
        }
        return keys
    }

    /// `new_edits=true`: the new revision's attachments; stubs come from `parent`'s rows.
    static func resolve(_ db: Connection, id: String, _ updates: [AttachmentUpdate], parent: Int64?, generation: Int,
                        blobs: BlobStore?) throws -> Result<[StoredAttachment], StoreError> {
        // An edit without `_attachments` keeps none, so there is nothing to look up.
        guard !updates.isEmpty else { return .success([]) }
        let base = try parent.map { try attachments(db, sequence: $0) } ?? []
        return try resolve(id: id, updates, generation: generation, blobs: blobs) { name, _, revpos in
            base.first { $0.name == name && (revpos == nil || $0.revpos == revpos) }
        }
    }

    /// A new document's attachments: no parent, so a stub is `.missingStub` and nothing is read.
    static func resolveWithoutParent(id: String, _ updates: [AttachmentUpdate], generation: Int,
                                     blobs: BlobStore?) throws -> Result<[StoredAttachment], StoreError> {
        guard !updates.isEmpty else { return .success([]) }
        return try resolve(id: id, updates, generation: generation, blobs: blobs) { _, _, _ in nil }
    }

    /// `new_edits=false`: stubs from the nearest ancestor in `ancestors` (sequences, newest
    /// first) that has the name, else any attachment of document `rowID` with the digest.
    static func resolve(_ db: Connection, id: String, _ updates: [AttachmentUpdate], ancestors: [Int64], rowID: Int64?,
                        generation: Int, blobs: BlobStore?) throws -> Result<[StoredAttachment], StoreError> {
        // A replicated stub's revpos is not checked: the nearest ancestor or a digest decides.
        try resolve(id: id, updates, generation: generation, blobs: blobs) { name, digest, _ in
            for sequence in ancestors {
                if let found = try attachments(db, sequence: sequence).first(where: { $0.name == name }) { return found }
            }
            guard let digest, let rowID else { return nil }
            return try withDigest(db, rowID: rowID, digest: digest).map { found in
                var renamed = found
                renamed.name = name
                return renamed
            }
        }
    }

    private static func resolve(id: String, _ updates: [AttachmentUpdate], generation: Int, blobs: BlobStore?,
                                stub: (String, AttachmentDigest?, Int?) throws -> StoredAttachment?)
        throws -> Result<[StoredAttachment], StoreError> {
        var resolved: [StoredAttachment] = []
        for update in updates where !resolved.contains(where: { $0.name == update.name }) {
            switch update {
            case .new(var attachment):
                // The blob was stored before this job. An upload's pin kept compaction's
                // sweep off it (`BlobPins`); one named without a pin (COPY's source) may
                // be gone: refuse rather than dangle.
                guard blobs?.contains(attachment.digest) ?? true else {
                    return .failure(.attachmentNotFound(attachment.digest.couchDigest))
                }
                if attachment.revpos <= 0 { attachment.revpos = generation }
                resolved.append(attachment)
            case .stub(let name, let digest, let revpos):
                guard let found = try stub(name, digest, revpos) else {
                    return .failure(.missingStub(document: id, attachment: name))
                }
                resolved.append(found)
            }
        }
        return .success(resolved)
    }

    private static func withDigest(_ db: Connection, rowID: Int64, digest: AttachmentDigest) throws -> StoredAttachment? {
        var sequence: Int64?
        try db.query("""
            SELECT a.sequence FROM attachments a JOIN revs r ON r.sequence = a.sequence
            WHERE r.doc_id = ? AND a.digest = ? LIMIT 1
            """, [.integer(rowID), .blob(digest.md5)]) { sequence = $0.int64(0) }
        guard let sequence else { return nil }
        return try attachments(db, sequence: sequence).first { $0.digest == digest }
    }
}
