@testable import SetteeServer
import SetteeJSON
import Testing

/// `[discovery] topology`: which device is the hub, who syncs with whom, and which ways each
/// server runs (issue 41).
@Suite struct NodeDiscoveryTests {
    @Test func theLowestEligibleUUIDIsTheHub() {
        #expect(NodeDiscovery.electHub(own: "c", peers: [("b", true), ("d", true)]) == "b")
        // Away, or sharing no `sync` database: not a candidate.
        #expect(NodeDiscovery.electHub(own: "c", peers: [("a", false), ("b", true)]) == "b")
        // This server itself, when lowest; or alone.
        #expect(NodeDiscovery.electHub(own: "a", peers: [("b", true)]) == "a")
        #expect(NodeDiscovery.electHub(own: "z", peers: []) == "z")
    }

    @Test func theHubSyncsWithAllAndTheOthersWithTheHubOnly() {
        #expect(NodeDiscovery.hubSyncs(own: "a", peer: "b", hub: "a"))
        #expect(NodeDiscovery.hubSyncs(own: "a", peer: "c", hub: "a"))
        #expect(NodeDiscovery.hubSyncs(own: "b", peer: "a", hub: "a"))
        #expect(!NodeDiscovery.hubSyncs(own: "b", peer: "c", hub: "a"))
    }

    /// `mesh` and `hub` run both ways with a peer; `pull` its pull only (the peer pulls the other way).
    @Test func aPullRoomRunsThePullOnly() {
        var config = DiscoveryConfiguration()
        #expect(config.directions == [.pull, .push])
        config.topology = .hub
        #expect(config.directions == [.pull, .push])
        config.topology = .pull
        #expect(config.directions == [.pull])
    }

    /// A checkpoint's `source_last_seq` read as the update sequence it stands for: this server's
    /// `N-opaque` strings (as `_changes` gives them), or a bare number.
    @Test func aCheckpointedSequenceIsItsLeadingNumber() {
        #expect(NodeDiscovery.sequenceNumber(.string("2-U3RlZQAAAAAAAAAC")) == 2)
        #expect(NodeDiscovery.sequenceNumber(.int(42)) == 42)
        #expect(NodeDiscovery.sequenceNumber(.string("42")) == 42)
        #expect(NodeDiscovery.sequenceNumber(.string("x-42")) == nil)
        #expect(NodeDiscovery.sequenceNumber(.null) == nil)
    }
}
