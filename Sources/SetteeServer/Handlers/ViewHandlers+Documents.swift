import SetteeDocuments
import SetteeJSON
import SetteeStore

extension ViewHandlers {
    static func writeRow(_ row: KeyIndexRow, _ database: Database, _ query: ViewQuery,
                                 attachments: [StoredAttachment], to out: inout [UInt8]) async throws {
        let pair = Self.keyAndValue(row)
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONWriter.writeString(row.id, to: &out)
        out.append(contentsOf: #","key":"#.utf8)
        JSONWriter.write(pair[0], to: &out)
        out.append(contentsOf: #","value":"#.utf8)
        JSONWriter.write(pair[1], to: &out)
        if query.includeDocs {
            out.append(contentsOf: #","doc":"#.utf8)
            // A value with an `_id` links another document (docs.couchdb.org "Joins With Views").
            if let linked = pair[1]["_id"]?.stringValue {
                try await writeLinked(linked, rev: pair[1]["_rev"], database, to: &out)
            } else {
                var writer = DocumentWriter(id: row.id, rev: row.rev.description, body: row.body)
                if query.conflicts, let tree = try await database.document(id: row.id, revisions: .none)?.tree,
                   !tree.conflicts.isEmpty {
                    writer.append("_conflicts", .array(tree.conflicts.map { .string($0.description) }))
                }
                if !attachments.isEmpty {
                    var forms: [String: AttachmentJSON.Form] = [:]
                    if query.attachments {
                        for attachment in attachments { forms[attachment.name] = .data(try await database.attachmentData(attachment)) }
                    }
                    writer.append("_attachments", AttachmentJSON.object(attachments, forms: forms,
                                                                        showEncoding: query.attEncodingInfo))
                }
                writer.write(to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A linked document as a plain read gives it, with its attachments' stubs: the winner,
    /// or the revision the value's `_rev` names (couch_mrview_util:maybe_load_doc); null
    /// when missing or deleted.
    static func writeLinked(_ id: String, rev: JSONValue?, _ database: Database,
                                    to out: inout [UInt8]) async throws {
        var found: StoredRevision?
        if let rev {
            guard let text = rev.stringValue, let wanted = RevisionID(text) else {
                throw CouchError.badRequest("Invalid rev format")
            }
            found = try await database.document(id: id, revs: [wanted])?.revisions.first
        } else {
            found = try await database.winner(id: id)
        }
        guard let doc = found, !doc.isDeleted, let body = doc.body else {
            out.append(contentsOf: "null".utf8)
            return
        }
        var writer = DocumentWriter(id: id, rev: doc.rev.description, body: body)
        let stubs = rev == nil ? try await database.winnerAttachments([(id, doc.rev)])[id] ?? [] : doc.attachments
        if !stubs.isEmpty {
            writer.append("_attachments", AttachmentJSON.object(stubs, forms: [:], showEncoding: false))
        }
        writer.write(to: &out)
    }
}
