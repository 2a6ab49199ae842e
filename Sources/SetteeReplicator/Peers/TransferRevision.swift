public import SetteeJSON
internal import SetteeDocuments

/// One revision on its way from source to target: CouchDB's JSON (`_id`, `_rev`,
/// `_revisions`, `_deleted`, `_attachments`) and the bytes of each attachment whose
/// entry says `"follows": true` — raw, never base64, as CouchDB's replicator
/// sends them in `multipart/related` — in memory, a spool file or the source's store.
///
/// The JSON is a parsed object, or (a remote source's `_bulk_get` document without
/// attachments) the source's text of it, checked as `JSONReader` checks it and copied
/// into the `_bulk_docs` body as it came (bench/RESULTS.md, "Replication of 100,000
/// documents, second round": parsing it and writing it again was half the replicator's CPU).
public struct TransferRevision: Sendable {
    enum Document: Sendable {
        case object(JSONObject)
        /// `bytes[range]` is one JSON object; `id` and `rev` are its `_id` and `_rev`.
        case text(bytes: [UInt8], range: Range<Int>, id: String, rev: String?)
    }

    var document: Document
    /// Identity bytes by attachment name, for the `follows` entries of the JSON.
    public var attachments: [String: AttachmentBody]

    public init(json: JSONObject, attachments: [String: AttachmentBody] = [:]) {
        document = .object(json)
        self.attachments = attachments
    }

    /// A document without attachments as the source wrote it: `bytes[range]`, which
    /// must be JSON `JSONReader` accepts (`BulkGetAnswer` checked it).
    init(text bytes: [UInt8], range: Range<Int>, id: String, rev: String?) {
        document = .text(bytes: bytes, range: range, id: id, rev: rev)
        attachments = [:]
    }

    /// The document as a parsed object. - Throws: `JSONError` if its text is no JSON
    /// object (never, for text `BulkGetAnswer` checked).
    public func json() throws -> JSONObject {
        switch document {
        case .object(let object): return object
        case .text(let bytes, let range, _, _):
            let value = try bytes.withUnsafeBufferPointer { try JSONReader.parse(UnsafeBufferPointer(rebasing: $0[range])) }
            guard let object = value.objectValue else { throw JSONError(.unexpectedByte(range.isEmpty ? 0 : bytes[range.lowerBound]), at: range.lowerBound) }
            return object
        }
    }

    /// Appends the document's JSON text: the source's bytes, or the object written.
    func write(to out: inout [UInt8]) {
        switch document {
        case .object(let object): JSONWriter.writeObject(object, to: &out)
        case .text(let bytes, let range, _, _): bytes.withUnsafeBufferPointer { out.append(contentsOf: $0[range]) }
        }
    }

    /// About how many bytes `write(to:)` appends, for reserving a body's capacity.
    var estimatedLength: Int {
        if case .text(_, let range, _, _) = document { return range.count }
        return 256
    }

    public var id: String {
        switch document {
        case .object(let object): object["_id"]?.stringValue ?? ""
        case .text(_, _, let id, _): id
        }
    }

    public var rev: String? {
        switch document {
        case .object(let object): object["_rev"]?.stringValue
        case .text(_, _, _, let rev): rev
        }
    }

    /// The `_attachments` entry CouchDB reads a following part by.
    static func followsEntry(contentType: String, revpos: Int, length: Int64) -> JSONValue {
        ["content_type": .string(contentType), "revpos": .int(revpos), "length": .number(JSONNumber(length)), "follows": true]
    }
}

extension TransferRevision {
    /// Where the members of a document that came as text are, so the store copies the
    /// compact ones as they came instead of writing them again (`DocumentParser.body`).
    /// None for a text in which an object may repeat a key: its parsed value keeps the
    /// last (CouchDB's rule), so its text is not the value's and is written again.
    var rawMembers: DocumentParser.RawMembers? {
        guard case .text(let bytes, let range, _, _) = document else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> [JSONMemberSpan]? in
            guard JSONValidator.isValidWithDistinctKeys(UnsafeBufferPointer(rebasing: buffer[range])) else { return nil }
            return JSONSpanScanner.members(ofObjectIn: buffer, at: range.lowerBound)
        }.map { DocumentParser.RawMembers(text: bytes, spans: $0) }
    }
}
