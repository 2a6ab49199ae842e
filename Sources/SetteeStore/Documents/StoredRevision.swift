/// One stored revision of a document, with its body when it is still available.
public struct StoredRevision: Sendable {
    public let rev: RevisionID
    public let isDeleted: Bool
    /// The update sequence of the write that stored this revision.
    public let sequence: Int64
    /// The stored JSON object (no `_` fields); nil when compacted away or never received.
    public let body: [UInt8]?
    /// Its attachments, in stored order (empty once compaction dropped the body).
    public let attachments: [StoredAttachment]

    public init(rev: RevisionID, isDeleted: Bool, sequence: Int64, body: [UInt8]?,
                attachments: [StoredAttachment] = []) {
        self.rev = rev
        self.isDeleted = isDeleted
        self.sequence = sequence
        self.body = body
        self.attachments = attachments
    }
}
