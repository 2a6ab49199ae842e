internal import SetteeDocuments
internal import SetteeJSON
internal import Synchronization

/// A revision as the `multipart/related` body of `PUT /{db}/{docid}?new_edits=false`:
/// the JSON first, then one part per `follows` attachment in `_attachments` order
/// (CouchDB reads parts by that order and the entries' `length`).
enum MultipartUpload {
    static func body(_ revision: TransferRevision) async throws -> (contentType: String, bytes: [UInt8]) {
        let collected = Mutex<[UInt8]>([])
        var writer = MultipartWriter(subtype: .related) { bytes in collected.withLock { $0.append(contentsOf: bytes) } }
        try await writer.writeJSONPart(JSONWriter.serialize(.object(revision.json)))
        for member in revision.json["_attachments"]?.objectValue ?? JSONObject() {
            guard let bytes = revision.attachments[member.key] else { continue }
            try await writer.beginAttachmentPart(.init(
                name: member.key, contentType: member.value["content_type"]?.stringValue ?? "application/octet-stream",
                length: Int64(bytes.count)))
            try await writer.writeBody(bytes)
            try await writer.endPart()
        }
        try await writer.finish()
        return (writer.contentType, collected.withLock { $0 })
    }
}
