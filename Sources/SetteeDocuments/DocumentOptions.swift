public import SetteeStore

/// The read flags of a document request. CouchDB turns a flag on only for
/// exactly `true`; `meta=true` means conflicts, deleted_conflicts, revs_info and local_seq.
public struct DocumentOptions: Sendable {
    public var revs = false
    public var revsInfo = false
    public var conflicts = false
    public var deletedConflicts = false
    public var localSeq = false
    /// `attachments=true`: send attachment bytes (inline, or multipart parts).
    public var attachments = false
    public var attEncodingInfo = false
    /// `atts_since`: send only attachments newer than these revisions.
    public var attsSince: [RevisionID] = []
    /// The database's `_revs_limit`: `_revisions` lists at most this many ids, as CouchDB
    /// cuts a revision's path when it reads it (couch_db:make_doc/5), so a lowered limit
    /// shows at once, before any write or compaction stems the tree. `_revs_info` is not cut.
    public var revsLimit = Int.max

    public init() {}

    /// Whether these options read the revision tree (history, leaves, `atts_since`);
    /// without them the winner can be read alone.
    public var needsTree: Bool { revs || revsInfo || conflicts || deletedConflicts || !attsSince.isEmpty }
}
