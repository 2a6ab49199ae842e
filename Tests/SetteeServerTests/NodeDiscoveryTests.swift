@testable import SetteeServer
import Testing

/// `[discovery] topology = hub`: which device is the hub, and who syncs with whom (issue 41).
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
}
