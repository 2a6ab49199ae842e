internal import FoundationEssentials
public import SetteeJSON
public import SetteeStore

/// Reads a document's `_attachments` (CouchDB `couch_att:from_json`): each entry is
/// inline `data` (base64), a `stub` to keep, or `follows` (bytes in a later
/// multipart part). Everything is validated before any blob is written, so a bad
/// entry stores nothing.
public enum AttachmentParser {
    /// One `_attachments` entry, validated.
    public enum Entry {
        case inline(name: String, contentType: String, bytes: [UInt8], revpos: Int?)
        /// `revpos`, when given, must be the kept attachment's (couch_att:merge_stubs/2).
        case stub(name: String, digest: AttachmentDigest?, revpos: Int?)
        case follows(Follows)
    }

    /// A `"follows": true` entry: what its multipart part must contain.
    public struct Follows {
        public let name: String
        public let contentType: String
        /// Identity length (`length`).
        public let length: Int64?
        /// `"gzip"` when the part arrives encoded; its byte count is then `encodedLength`.
        public let encoding: String?
        public let encodedLength: Int64?
        public let digest: AttachmentDigest?
        public let revpos: Int?

        /// The byte count the part must have, when declared.
        public var partLength: Int64? { encoding == nil ? length : encodedLength }
    }

    public static let defaultContentType = "application/octet-stream"

    /// CouchDB's `validate_attachment_name`: no leading `_`. An empty name is allowed, as
    /// there (inline, or `PUT /{db}/{doc}/`): a document holding one must replicate in.
    public static func validate(name: String) throws {
        if name.hasPrefix("_") {
            throw DocumentError.badRequest("Attachment name '\(name)' starts with prohibited character '_'")
        }
    }

    public static func entries(_ object: JSONObject?) throws -> [Entry] {
        guard let object else { return [] }
        // CouchDB 3.4.3 skips a member that is not an object (the document is stored without it).
        return try object.filter { $0.value.objectValue != nil }.map { member in try entry(name: member.key, member.value) }
    }

    private static func entry(name: String, _ value: JSONValue) throws -> Entry {
        try validate(name: name)
        guard let props = value.objectValue else { throw DocumentError.badRequest("Bad attachment \(name)") }
        let contentType = props["content_type"]?.stringValue ?? defaultContentType
        let digest = props["digest"]?.stringValue.flatMap(AttachmentDigest.init(couchDigest:))
        let revpos = props["revpos"]?.intValue
        if props["stub"]?.boolValue == true { return .stub(name: name, digest: digest, revpos: revpos) }
        if props["follows"]?.boolValue == true {
            let encoding = props["encoding"]?.stringValue.flatMap { $0 == "identity" ? nil : $0 }
            if let encoding, encoding != "gzip" {
                throw DocumentError.unsupportedAttachmentEncoding(encoding)
            }
            return .follows(Follows(name: name, contentType: contentType, length: int64(props["length"]),
                                    encoding: encoding, encodedLength: int64(props["encoded_length"]),
                                    digest: digest, revpos: revpos))
        }
        guard let text = props["data"]?.stringValue, let bytes = StrictBase64.decode(text) else {
            throw DocumentError.badRequest("Invalid attachment data for \(name)")
        }
        return .inline(name: name, contentType: contentType, bytes: bytes, revpos: revpos)
    }

    private static func int64(_ value: JSONValue?) -> Int64? { value?.intValue.map(Int64.init) }

    /// Stores the inline entries and turns every entry into an `AttachmentUpdate`;
    /// `follows` entries take the uploaded attachment of the same name from `followed`.
    /// - Throws: 400 for a `follows` entry with no uploaded part.
    /// `newEdits == false` keeps the given `revpos` (a replicated revision's); otherwise
    /// new attachments get the new revision's generation, as CouchDB does.
    public static func updates(_ entries: [Entry], _ database: Database, newEdits: Bool,
                        followed: [String: StoredAttachment] = [:]) async throws -> [AttachmentUpdate] {
        var updates: [AttachmentUpdate] = []
        for entry in entries {
            switch entry {
            case .stub(let name, let digest, let revpos):
                updates.append(.stub(name: name, digest: digest, revpos: revpos))
            case .inline(let name, let contentType, let bytes, let revpos):
                var stored = try await database.storeAttachment(name: name, contentType: contentType, bytes: bytes)
                stored.revpos = newEdits ? 0 : revpos ?? 0
                updates.append(.new(stored))
            case .follows(let follows):
                guard var stored = followed[follows.name] else {
                    throw DocumentError.badRequest("Attachment \(follows.name) follows but the request is not multipart")
                }
                stored.revpos = newEdits ? 0 : follows.revpos ?? 0
                updates.append(.new(stored))
            }
        }
        return updates
    }
}
