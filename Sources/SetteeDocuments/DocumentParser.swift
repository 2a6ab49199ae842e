public import SetteeJSON
public import SetteeStore

/// Turns a document as a client sends it (a JSON object with `_` special
/// fields) into a `DocumentUpdate` for the store, validating everything
/// before anything is written (CouchDB `couch_doc:from_json_obj_validate`).
public struct DocumentParser {
    /// Special fields accepted on input; the read-only ones are dropped.
    public static let specialFields: Set<String> = [
        "_id", "_rev", "_attachments", "_deleted", "_revisions", "_revs_info", "_conflicts",
        "_deleted_conflicts", "_local_seq",
    ]

    /// Special members CouchDB keeps in the body (`couch_doc:transfer_fields`): the
    /// replicator's state on `_replicator` documents, and `_access`.
    public static let keptSpecialFields: Set<String> = [
        "_access", "_replication_state", "_replication_state_time", "_replication_state_reason",
        "_replication_id", "_replication_stats",
    ]

    public let maxDocumentSize: Int

    /// Makes the id of a document that comes without one (`[uuids] algorithm`).
    public var newID: @Sendable () -> String = UUIDs.random

    public init(maxDocumentSize: Int) { self.maxDocumentSize = maxDocumentSize }

    /// What was in the special fields, besides the body.
    public struct Parsed {
        public var update: DocumentUpdate
        /// `_attachments`, if any (handled by the attachment layer).
        public var attachments: JSONObject?
        /// `_rev` as given.
        public var rev: RevisionID?
    }

    /// Where `object`'s members were written in the request, when the caller has their spans.
    public struct RawMembers {
        /// The request's text, which `object` was parsed from.
        public var text: [UInt8]
        /// One span per member of `object`, in the same order.
        public var spans: [JSONMemberSpan]

        public init(text: [UInt8], spans: [JSONMemberSpan]) {
            self.text = text
            self.spans = spans
        }
    }

    /// Parses `object` as document `id` (nil: take `_id` from the object).
    /// With `raw`, compact members are copied from the request instead of serialized again.
    /// - Throws: `DocumentError` (400) for bad special members, revs and ids; 413 for size.
    public func parse(_ object: JSONObject, id pathID: String?, newEdits: Bool, raw: RawMembers? = nil) throws -> Parsed {
        let special = try Self.specialMembers(of: object)
        return try parse(special, id: pathID, newEdits: newEdits) { Self.body(of: object, raw: raw) }
    }

    /// The checks and the update, once the special members are found, in the order
    /// CouchDB makes them; `body` gives the stored bytes (the object without its specials).
    func parse(_ special: SpecialMembers, id pathID: String?, newEdits: Bool, body: () -> [UInt8]) throws -> Parsed {
        let id = try pathID ?? special.id.map(Self.idString) ?? newID()
        try Self.validate(id: id)
        // couch_doc:transfer_fields/3: `_revisions` sets the revisions whatever `_rev` says
        // (and wherever it stands); `_rev` counts only without it (or with no ids in it).
        // Read for replicated writes only: CouchDB's replicator PUTs its `_local` checkpoints
        // with `"_revisions":{"start":0,...}`, which a new edit must not trip over.
        let history = newEdits ? [] : try special.history ?? special.revisions.map(Self.history) ?? []
        let rev = try history.first ?? special.rev.map(Self.revision)
        let isDeleted: Bool
        switch special.deleted {
        case nil: isDeleted = false
        case .bool(let b)?: isDeleted = b
        // couch_doc:transfer_fields takes `_deleted` only as a boolean; anything else is an unknown member.
        default: throw DocumentError.badSpecialMember("_deleted")
        }
        let bytes = body()
        guard bytes.count <= maxDocumentSize else { throw DocumentError.tooLarge(id) }

        var update = DocumentUpdate(id: id, body: bytes, isDeleted: isDeleted)
        if newEdits {
            update.baseRevision = rev
        } else {
            guard let rev else {
                throw DocumentError.badRequest("When `new_edits: false`, the document needs `_rev` or `_revisions` specified")
            }
            update.history = history.isEmpty ? [rev] : history
        }
        let attachments = try special.attachments.map { value -> JSONObject in
            guard let attachments = value.objectValue else {
                // CouchDB 3.4.3 names the member as for any bad special member (couch_doc:transfer_fields/3).
                throw DocumentError.badSpecialMember("_attachments")
            }
            return attachments
        }
        return Parsed(update: update, attachments: attachments, rev: rev)
    }

    /// The members not named `_...`, as `JSONWriter` writes them. A member whose text in
    /// the request is already exactly that (`JSONMemberSpan.isCompact`) is copied as it
    /// was sent: serializing every body again was 15 % of the server's CPU in `_bulk_docs`.
    public static func body(of object: JSONObject, raw: RawMembers?) -> [UInt8] {
        guard let raw, raw.spans.count == object.members.count else {
            var body = JSONObject()
            for member in object where isBodyMember(member.key) { body.append(member.key, member.value) }
            return JSONWriter.serialize(.object(body))
        }
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(raw.spans.reduce(2) { $0 + $1.range.count + 1 })
        raw.text.withUnsafeBufferPointer { text in
            for (member, span) in zip(object.members, raw.spans) where Self.isBodyMember(member.key) {
                if out.count > 1 { out.append(UInt8(ascii: ",")) }
                if span.isCompact {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: text[span.range]))
                } else {
                    JSONWriter.writeString(member.key, to: &out)
                    out.append(UInt8(ascii: ":"))
                    JSONWriter.write(member.value, to: &out)
                }
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The first value of each special member this parser reads.
    public struct SpecialMembers {
        public var id, rev, deleted, revisions, attachments: JSONValue?
        /// `_revisions` already read as `history(_:)` reads it (`compactHistory`), instead of `revisions`.
        public var history: [RevisionID]?
    }

    /// The special members, in one pass instead of a lookup each: only keys starting
    /// with `_` are compared. The first member with a name wins, as `object[name]` does.
    /// - Throws: 400 `doc_validation` for the first unknown `_` member.
    public static func specialMembers(of object: JSONObject) throws -> SpecialMembers {
        var special = SpecialMembers()
        for member in object where isSpecial(member.key) {
            switch member.key {
            case "_id": if special.id == nil { special.id = member.value }
            case "_rev": if special.rev == nil { special.rev = member.value }
            case "_deleted": if special.deleted == nil { special.deleted = member.value }
            case "_revisions": if special.revisions == nil { special.revisions = member.value }
            case "_attachments": if special.attachments == nil { special.attachments = member.value }
            case let key where specialFields.contains(key) || keptSpecialFields.contains(key): break
            default: throw DocumentError.badSpecialMember(member.key)
            }
        }
        return special
    }

    /// Whether a member is stored in the body: every ordinary one, and the kept specials.
    static func isBodyMember(_ key: String) -> Bool { !isSpecial(key) || keptSpecialFields.contains(key) }

    /// Whether `key` names a special member: its first *byte* is `_`, as CouchDB matches
    /// `<<"_", _/binary>>` (couch_doc:transfer_fields/3) — so `"_\u{301}"` (`_` and a
    /// combining accent, one character to Swift) is special too, and refused unless known.
    public static func isSpecial(_ key: String) -> Bool { key.utf8.first == UInt8(ascii: "_") }

    public static func idString(_ value: JSONValue) throws -> String {
        guard let id = value.stringValue else { throw DocumentError.invalidDocumentID("Document id must be a string") }
        return id
    }

    /// CouchDB's id rules (`couch_doc:validate_docid`).
    public static func validate(id: String) throws {
        guard !id.isEmpty else { throw DocumentError.invalidDocumentID("Document id must not be empty") }
        // Bytes, not characters, as CouchDB compares binaries: "_\u{301}x" starts with "_" too.
        if id.utf8.first == UInt8(ascii: "_") && !id.utf8.starts(with: "_design/".utf8)
            && !id.utf8.starts(with: "_local/".utf8) {
            throw DocumentError.invalidDocumentID("Only reserved document ids may start with underscore.")
        }
        if id == "_design/" || id == "_local/" {
            throw DocumentError.invalidDocumentID("Illegal document id `\(id)`")
        }
    }

    public static func revision(_ value: JSONValue) throws -> RevisionID {
        guard let text = value.stringValue, let rev = RevisionID(text) else {
            throw DocumentError.invalidRevision
        }
        return rev
    }

    /// `_revisions: {"start": N, "ids": [sig_N, sig_N-1, ...]}` → revisions, newest first,
    /// refused in couch_doc:transfer_fields/3's words. An `ids` longer than `start` would
    /// reach generation 0, which Settee does not store (CouchDB 3.4.3 accepts it).
    public static func history(_ value: JSONValue) throws -> [RevisionID] {
        guard let members = value.objectValue else { throw DocumentError.badSpecialMember("_revisions") }
        guard let start = members["start"]?.intValue else {
            throw DocumentError.invalidMember("_revisions.start isn't an integer.")
        }
        guard let ids = members["ids"]?.arrayValue else { throw DocumentError.invalidMember("_revisions.ids isn't a array.") }
        guard start >= ids.count else { throw DocumentError.invalidMember("_revisions member is invalid") }
        var history: [RevisionID] = []
        for (i, id) in ids.enumerated() {
            guard let suffix = id.stringValue else { throw DocumentError.invalidMember("RevId isn't a string") }
            guard let parsed = RevisionID(generation: start - i, validating: suffix) else {
                throw DocumentError.invalidRevision
            }
            history.append(parsed)
        }
        return history
    }
}
