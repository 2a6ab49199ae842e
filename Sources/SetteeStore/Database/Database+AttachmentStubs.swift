/// The attachments of many documents' winning revisions in one read, for answers that
/// list documents with their bodies (`_all_docs` and views with `include_docs`, `_find`):
/// CouchDB shows each one's `_attachments` stubs there, as a single `GET` does.
extension Database {
    /// Per document id of `documents` whose winning revision is still the given one, the
    /// attachments it has (documents without any are left out). One query per 500 ids.
    public func winnerAttachments(_ documents: [(id: String, rev: RevisionID)]) async throws
        -> [String: [StoredAttachment]] {
        guard !documents.isEmpty else { return [:] }
        let wanted = Dictionary(documents.map { ($0.id, $0.rev.description) }, uniquingKeysWith: { first, _ in first })
        return try await readers.read { db in
            var found: [String: [StoredAttachment]] = [:]
            let ids = Array(wanted.keys)
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = ids[start..<min(ids.count, start + 500)]
                let sql = """
                    SELECT d.docid, d.winner, a.name, a.content_type, a.digest, a.revpos, a.length,
                           a.encoded_length, a.encoding
                    FROM docs d JOIN attachments a ON a.sequence = d.winner_seq
                    WHERE d.docid IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))
                    ORDER BY a.rowid
                    """
                try db.query(sql, chunk.map { .text($0) }) { row in
                    guard let id = row.text(0), wanted[id] == row.text(1),
                          let digest = row.blob(4).flatMap(AttachmentDigest.init(md5:)) else { return }
                    found[id, default: []].append(StoredAttachment(
                        name: row.text(2) ?? "", contentType: row.text(3) ?? "", digest: digest,
                        revpos: Int(row.int64(5)), length: row.int64(6), encodedLength: row.int64(7),
                        encoding: row.text(8)))
                }
            }
            return found
        }
    }
}
