@testable import SetteeServer
import SetteeDiscovery
import SetteeJSON
import FoundationEssentials
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

    /// A peer kept while it does not answer carries every address its server is advertised at
    /// under any name (on the same port and scheme), its own first: a renamed server's other
    /// record may be the one that answers.
    @Test func aPeerNotAnsweringIsKeptWithEveryAddressOfItsServer() {
        func peer(_ instance: String, _ uuid: String, port: Int = 5984, _ addresses: [String]) -> DiscoveredPeer {
            DiscoveredPeer(instance: instance, host: "vm.local.", port: port, addresses: addresses, interfaceIndex: 2,
                           record: TXTRecord([(key: "txtvers", value: "1"), (key: "uuid", value: uuid)]))
        }
        let now = Date()
        let met = peer("Settee on vm #3", "b", ["fe80::1%eth0"])
        let seen = [peer("Settee on vm", "b", ["198.18.0.2", "fe80::1%eth0"]), peer("Settee on pi", "c", ["198.18.0.3"]),
                    peer("Settee on vm (other port)", "b", port: 6984, ["198.18.0.9"]), met]
            .map { NodeDiscovery.Seen(peer: $0, since: now, lastSeen: now) }
        #expect(NodeDiscovery.withEveryAddress(met, among: seen).addresses == ["fe80::1%eth0", "198.18.0.2"])
        #expect(NodeDiscovery.withEveryAddress(met, among: seen).baseURL == met.baseURL)
        // Alone: unchanged.
        #expect(NodeDiscovery.withEveryAddress(met, among: []).addresses == met.addresses)
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

    /// `PeerWatch`: a peer synced with is silent since its last answer, whether its pull now
    /// fails (a request timed out) or is only quiet, so it is away `awayAfter` after it went,
    /// not after the failure (a 30 s absence ended before such a peer was stopped).
    @Test func aPeerIsSilentSinceItsLastAnswerWhetherItsPullFailsOrIsQuiet() throws {
        let now = Date()
        let lastHeard = now.addingTimeInterval(-11)
        let failing = try #require(NodeDiscovery.silentSince(failing: true, lastHeard: lastHeard, now: now))
        #expect(failing == lastHeard)
        #expect(now.addingTimeInterval(4).timeIntervalSince(failing) >= NodeDiscovery.awayAfter)
        let quiet = now.addingTimeInterval(-(NodeDiscovery.quietAfter + 1))
        #expect(NodeDiscovery.silentSince(failing: false, lastHeard: quiet, now: now) == quiet)
        #expect(NodeDiscovery.silentSince(failing: false, lastHeard: lastHeard, now: now) == nil)
        let future = now.addingTimeInterval(1)  // a clock step: never silent from the future
        #expect(NodeDiscovery.silentSince(failing: true, lastHeard: future, now: now) == now)
    }

    /// A report that still lists the address a peer is synced at ends the meeting an earlier,
    /// partial report began (its AAAA record alone): that meeting, refused at the IPv6
    /// link-local address, must not stop the replications running at the IPv4 one.
    @Test func aReportStillListingThePeersAddressEndsAMeetingBegunOnAPartialOne() throws {
        func peer(_ addresses: [String]) -> DiscoveredPeer {
            DiscoveredPeer(instance: "Settee d12", host: "device12.local.", port: 5984, addresses: addresses,
                           interfaceIndex: 2, record: TXTRecord([(key: "txtvers", value: "1"), (key: "uuid", value: "b")]))
        }
        var s = NodeDiscovery.State()
        let synced = peer(["198.18.0.22"])
        s.syncing["b"] = NodeDiscovery.Sync(peer: synced, url: synced.baseURL, databases: ["room"],
                                            jobs: ["discovery+b+room+pull"])
        let now = Date()
        let partial = try #require(NodeDiscovery.reported(peer(["fe80::2%eth0"]), uuid: "b", wanting: ["room"],
                                                          in: &s, now: now))
        #expect(NodeDiscovery.isLatest(partial, "b", s))
        #expect(NodeDiscovery.reported(peer(["198.18.0.22", "fe80::2%eth0"]), uuid: "b", wanting: ["room"],
                                       in: &s, now: now) == nil)
        #expect(!NodeDiscovery.isLatest(partial, "b", s), "the partial report's meeting would stop the replications")
        #expect(!s.meeting.contains("b"))
        #expect(s.syncing["b"]?.jobs == ["discovery+b+room+pull"])
    }
}
