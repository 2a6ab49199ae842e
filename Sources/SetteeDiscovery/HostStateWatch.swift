/*
 What `HostNameGuard` makes of the states avahi's client reports, one at a time, in the order
 the daemon sent them over D-Bus. Two decisions: when to rename (host-name collisions in a row),
 and when the daemon has settled under a name the guard gave it — the moment to register the
 services and browse again (their records point at the host name they were made under).

 A rename the guard asks for can cross a RUNNING the daemon sent for its previous name: the
 pause before renaming is long, but under load the signal may still be unread. That RUNNING is
 not the settling of the new name. The daemon answers the rename with REGISTERING (avahi-core
 `register_stuff`, inside the same D-Bus call, so after anything it sent before), and only the
 RUNNING after that REGISTERING counts. Taking the old name's RUNNING for it registered the
 services while the daemon was withdrawing that name: one device of 20 sharing a host name
 stayed unheard by all the others (1 room in 4 at N = 10–20).
 */
struct HostStateWatch {
    /// Host-name collisions in a row before the guard gives the daemon a name of its own.
    static let collisionsBeforeActing = 2
    /// How many times the daemon reached RUNNING (a pending rename is dropped if it did meanwhile).
    private(set) var settlings = 0
    private var collisions = 0
    private var collidedSinceRunning = false
    private var rename = Rename.none

    private enum Rename {
        case none
        /// Asked; the daemon's REGISTERING for it not read yet.
        case asked
        /// The daemon is probing the new name: its next RUNNING is the settling.
        case registering
    }

    /// The daemon collided on its host name: true when the guard should rename it.
    mutating func collided() -> Bool {
        collisions += 1
        collidedSinceRunning = true
        guard collisions >= Self.collisionsBeforeActing else { return false }
        collisions = 0
        return true
    }

    /// The guard asked the daemon for a new name (and the daemon accepted the call).
    mutating func renameAsked() {
        rename = .asked
    }

    /// The daemon is registering its host records (after a rename, or a collision's own rename).
    mutating func registering() {
        if rename == .asked { rename = .registering }
    }

    /// How the daemon came to run under its present name.
    enum Settling { case afterCollisions, afterRename }

    /// The daemon runs: whether it settled after collisions or after the guard's rename (then
    /// what was published registers again and browsing starts over), or nil.
    mutating func running() -> Settling? {
        collisions = 0
        settlings += 1
        defer { collidedSinceRunning = false }
        switch rename {
        case .asked: return nil  // the previous name's RUNNING, read after the rename was asked
        case .registering:
            rename = .none
            return .afterRename
        case .none: return collidedSinceRunning ? .afterCollisions : nil
        }
    }
}
