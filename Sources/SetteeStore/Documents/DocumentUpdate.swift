/// One document write, already validated by the caller: `body` is the JSON
/// object without its `_`-prefixed special fields.
public struct DocumentUpdate: Sendable {
    public var id: String
    /// Serialized JSON object with no `_` fields; what reads splice `_id`/`_rev` around.
    public var body: [UInt8]
    public var isDeleted: Bool
    /// `new_edits=true`: the revision this edit replaces (`_rev`), nil for a new document.
    public var baseRevision: RevisionID?
    /// `new_edits=false`: the revision to store first, then its ancestors, newest first
    /// (from `_revisions`, or just `[_rev]`).
    public var history: [RevisionID]
    /// The new revision's attachments, exactly: new ones and stubs to keep. An
    /// attachment of the base revision not listed here is dropped, as in CouchDB.
    public var attachments: [AttachmentUpdate]

    public init(id: String, body: [UInt8], isDeleted: Bool = false, baseRevision: RevisionID? = nil,
                history: [RevisionID] = [], attachments: [AttachmentUpdate] = []) {
        self.id = id
        self.body = body
        self.isDeleted = isDeleted
        self.baseRevision = baseRevision
        self.history = history
        self.attachments = attachments
    }
}
