internal import FoundationEssentials
public import SetteeJSON
public import SetteeStore

/// A revision's `_attachments` object as CouchDB writes it (`couch_att:to_json`):
/// `content_type`, `revpos`, `digest`, then `length` + `stub` (or `follows`), or
/// `data`; then `encoding` + `encoded_length` when asked for (`att_encoding_info`,
/// and always beside `follows` so a replicator stores gzip'd parts as they come).
public enum AttachmentJSON {
    /// How one attachment appears.
    public enum Form {
        case stub
        /// Inline base64 of the identity bytes (`?attachments=true`).
        case data([UInt8])
        /// In a following multipart part.
        case follows
    }

    public static func object(_ attachments: [StoredAttachment], forms: [String: Form], showEncoding: Bool) -> JSONValue {
        var object = JSONObject()
        for a in attachments {
            var entry: JSONObject = ["content_type": .string(a.contentType), "revpos": .int(a.revpos),
                                     "digest": .string(a.digest.couchDigest)]
            switch forms[a.name] ?? .stub {
            case .stub:
                entry["length"] = .number(JSONNumber(a.length))
                entry["stub"] = true
            case .follows:
                entry["length"] = .number(JSONNumber(a.length))
                entry["follows"] = true
            case .data(let bytes):
                entry["data"] = .string(Data(bytes).base64EncodedString())
            }
            let isFollowing = if case .follows = forms[a.name] { true } else { false }
            if (showEncoding || isFollowing), let encoding = a.encoding {
                entry["encoding"] = .string(encoding)
                entry["encoded_length"] = .number(JSONNumber(a.encodedLength))
            }
            object.append(a.name, .object(entry))
        }
        return .object(object)
    }

    /// The generation after which attachments are sent, for `atts_since`: that of the
    /// newest revision in `revision`'s history among `attsSince`, else 0 (CouchDB
    /// `couch_db:find_ancestor_rev_pos`).
    public static func sinceGeneration(_ tree: RevisionTree, revision: RevisionID, attsSince: [RevisionID]) -> Int {
        guard !attsSince.isEmpty else { return 0 }
        return tree.history(of: revision).first { attsSince.contains($0) }?.generation ?? 0
    }

    /// The attachments to send (not stub) under `attsSince`; `tree` may be nil when `attsSince` is empty.
    public static func toSend(_ tree: RevisionTree?, _ revision: StoredRevision,
                       attsSince: [RevisionID]) -> [StoredAttachment] {
        precondition(tree != nil || attsSince.isEmpty, "atts_since needs the revision tree")
        let since = sinceGeneration(tree ?? RevisionTree(), revision: revision.rev, attsSince: attsSince)
        return revision.attachments.filter { $0.revpos > since }
    }

    /// Inline forms for `?attachments=true`: decoded bytes of each attachment to send.
    public static func inlineForms(_ database: Database, _ tree: RevisionTree?, _ revision: StoredRevision,
                            attsSince: [RevisionID]) async throws -> [String: Form] {
        var forms: [String: Form] = [:]
        for attachment in toSend(tree, revision, attsSince: attsSince) {
            forms[attachment.name] = .data(try await database.attachmentData(attachment))
        }
        return forms
    }

    /// `atts_since=["1-abc",...]` (the parameter's JSON, nil when absent); unparsable entries are ignored.
    public static func attsSince(_ parameter: JSONValue?) -> [RevisionID] {
        guard let list = parameter?.arrayValue else { return [] }
        return list.compactMap { $0.stringValue.flatMap(RevisionID.init) }
    }
}
