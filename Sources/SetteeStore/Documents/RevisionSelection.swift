/// Which revisions' bodies a read loads.
public enum RevisionSelection: Sendable {
    /// The winning revision (even when deleted).
    case winner
    /// Exactly this revision.
    case revision(RevisionID)
    /// Every leaf.
    case allLeaves
    /// None: the tree only.
    case none
}
