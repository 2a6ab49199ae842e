public import SetteeJSON
internal import SetteeStore

/// Writes a document's JSON by splicing `_id`, `_rev` and the requested meta
/// fields around the stored body bytes: reading a document never parses it.
/// Field order is CouchDB's (`couch_doc:to_json_obj`): `_id`, `_rev`, the body,
/// `_deleted`, `_revisions`, then meta fields, then `_attachments`.
public struct DocumentWriter {
    public var id: String
    public var rev: String
    public var body: [UInt8]
    public var isDeleted = false
    /// False for a document not yet written, which has no `_rev` (what
    /// `validate_doc_update` sees of a new document).
    public var includesRevision = true
    /// Members appended after the body, in order.
    public var trailer: [(String, JSONValue)] = []

    public init(id: String, rev: String, body: [UInt8]) {
        self.id = id
        self.rev = rev
        self.body = body
    }

    public mutating func append(_ key: String, _ value: JSONValue) { trailer.append((key, value)) }

    public func serialize() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 64)
        write(to: &out)
        return out
    }

    /// The body of a document response: the JSON and a newline, as CouchDB's
    /// `send_json` ends every JSON body.
    public func responseBody() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 65)
        write(to: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    public func write(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"_id":"#.utf8)
        JSONWriter.writeString(id, to: &out)
        if includesRevision {
            out.append(contentsOf: #","_rev":"#.utf8)
            JSONWriter.writeString(rev, to: &out)
        }
        // The stored body is a compact object: `{}` or `{...}`; splice its members.
        if body.count > 2 {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: body[1..<(body.count - 1)])
        }
        if isDeleted { out.append(contentsOf: #","_deleted":true"#.utf8) }
        for (key, value) in trailer {
            out.append(UInt8(ascii: ","))
            JSONWriter.writeString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONWriter.write(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The body spliced as a `JSONValue` (for responses that embed documents in larger JSON).
    public func jsonValue() throws -> JSONValue { try JSONReader.parse(serialize()) }
}
