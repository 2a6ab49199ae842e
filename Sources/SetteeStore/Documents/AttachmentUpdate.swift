/// One entry of a write's `_attachments`.
public enum AttachmentUpdate: Sendable, Equatable {
    /// A new attachment whose blob is already stored (`AttachmentUpload.finish`).
    /// `revpos == 0` means "the new revision's generation" (new_edits=true always uses that).
    case new(StoredAttachment)
    /// Keep an existing attachment (`"stub": true`): resolved against the base revision,
    /// or for `new_edits=false` against the nearest ancestor having it, then any
    /// attachment of the document with `digest`. Unresolvable: `.missingStub`. A `revpos`
    /// must be the base revision's attachment's, as couch_att:merge_stubs/2 matches
    /// `{name, revpos}` (nil matches any).
    case stub(name: String, digest: AttachmentDigest?, revpos: Int? = nil)

    /// The attachment's name.
    public var name: String {
        switch self {
        case .new(let attachment): attachment.name
        case .stub(let name, _, _): name
        }
    }
}
