internal import SetteeDocuments
internal import SetteeJSON
internal import Synchronization

/// A revision as the `multipart/related` body of `PUT /{db}/{docid}?new_edits=false`:
/// the JSON first, then one part per `follows` attachment in `_attachments` order
/// (CouchDB reads parts by that order and the entries' `length`).
///
/// The framing is made here; the attachment bytes are not copied: each part's body is
/// a segment naming its spool file (or its few bytes in memory), read as curl sends.
enum MultipartUpload {
    static func body(_ revision: TransferRevision,
                     spoolingIn directory: SpoolDirectory) async throws -> (contentType: String, body: UploadBody) {
        let segments = Mutex<[UploadBody.Segment]>([])
        var writer = MultipartWriter(subtype: .related) { bytes in segments.withLock { $0.append(.bytes(bytes)) } }
        let json = try revision.json()
        try await writer.writeJSONPart(JSONWriter.serialize(.object(json)))
        for member in json["_attachments"]?.objectValue ?? JSONObject() {
            guard let attachment = revision.attachments[member.key] else { continue }
            let readable = try await attachment.readable(spoolingIn: directory)
            try await writer.beginAttachmentPart(.init(
                name: member.key, contentType: member.value["content_type"]?.stringValue ?? "application/octet-stream",
                length: readable.length))
            segments.withLock { $0.append(readable.segment) }
            try await writer.endPart()
        }
        try await writer.finish()
        return (writer.contentType, UploadBody(segments.withLock { Self.merged($0) }))
    }

    /// Adjacent framing pieces joined, so curl's reads copy a few large pieces.
    private static func merged(_ segments: [UploadBody.Segment]) -> [UploadBody.Segment] {
        var out: [UploadBody.Segment] = []
        for segment in segments {
            if case .bytes(let more) = segment, case .bytes(let bytes)? = out.last {
                out[out.count - 1] = .bytes(bytes + more)
            } else {
                out.append(segment)
            }
        }
        return out
    }
}

extension AttachmentBody {
    /// A part body of an upload: a spool file, or the bytes in memory.
    var segment: UploadBody.Segment {
        switch storage {
        case .memory(let bytes): .bytes(bytes)
        case .spooled(let spool): .file(spool)
        case .stored: preconditionFailure("a stored attachment is spooled (readable(spoolingIn:)) before its upload")
        }
    }
}
