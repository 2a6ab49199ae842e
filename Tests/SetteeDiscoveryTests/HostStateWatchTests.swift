@testable import SetteeDiscovery
import Testing

/// `HostStateWatch`: when `HostNameGuard` renames, and when the daemon counts as settled under
/// the name it gave (the services register again then), from avahi's client states in order.
@Suite struct HostStateWatchTests {
    enum Event { case collision, registering, running, renameAsked }

    /// Feeds `events` to a fresh watch; the answer of each collision (rename now?) and each
    /// running (settled?), in order.
    static func answers(_ events: [Event]) -> [Bool] {
        var watch = HostStateWatch()
        var answers: [Bool] = []
        for event in events {
            switch event {
            case .collision: answers.append(watch.collided())
            case .running: answers.append(watch.running() != nil)
            case .registering: watch.registering()
            case .renameAsked: watch.renameAsked()
            }
        }
        return answers
    }

    @Test func twoCollisionsInARowAskForARename() {
        // Counting starts over after a rename was asked for, and after the daemon ran.
        #expect(Self.answers([.collision, .collision, .collision, .running, .collision]) == [false, true, false, true, false])
    }

    @Test func aDaemonThatSettlesAfterOneCollisionIsSettled() {
        // A later RUNNING with no collision between is not a settling.
        #expect(Self.answers([.collision, .registering, .running, .running]) == [false, true, false])
    }

    /// The RUNNING of the name the daemon had, read only after the rename was asked, is not the
    /// settling: the one after the rename's REGISTERING is (taking the first for it registered
    /// the services while the daemon withdrew that name, and left the device unheard).
    @Test func theOldNamesRunningReadAfterTheRenameIsNotTheSettling() {
        #expect(Self.answers([.collision, .collision, .renameAsked, .running, .registering, .running, .running])
                == [false, true, false, true, false])
    }

    /// The new name met another host: the daemon collides, takes avahi's `-2` of it, registers
    /// and runs: that is the settling.
    @Test func aSettlingIsSaidToFollowTheGuardsRenameOrCollisions() {
        var watch = HostStateWatch()
        _ = watch.collided()
        watch.registering()
        let afterOne = watch.running()
        #expect(afterOne == .afterCollisions)
        _ = watch.collided()
        _ = watch.collided()
        watch.renameAsked()
        watch.registering()
        let afterRename = watch.running()
        #expect(afterRename == .afterRename)
    }

    @Test func aRenameThatCollidesAgainSettlesOnItsAlternative() {
        #expect(Self.answers([.collision, .collision, .renameAsked, .registering, .collision, .registering, .running])
                == [false, true, false, true])
    }
}
