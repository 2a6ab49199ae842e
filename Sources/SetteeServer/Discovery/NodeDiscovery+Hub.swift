internal import FoundationEssentials
import SetteeDiscovery
import SetteeReplicator
import Synchronization

/*
 `[discovery] topology = hub`: instead of a full mesh (N(N-1) pairs of continuous
 replications in the room: 380 at N = 20, each write echoed between every pair), every
 device syncs with one elected device, the hub, and the hub with every device: 2(N-1)
 jobs in the room, and a write takes two hops. The hub is the device with the lowest
 server uuid among this server and the peers it sees that share a `sync` database and
 answer (not `away`): every device computes the same from the same room, without a
 vote. A hub that walks out goes quiet for its devices, who find it away after
 `awayAfter` and elect the next; one that comes back answers again and is elected
 again. Each tick, and on every arrival or departure, what the election asks for is
 started and what it no longer asks for stopped.
 */
extension NodeDiscovery {
    /// The elected hub's uuid in this server's view of the room.
    func hubUUID(_ s: State) -> String {
        Self.electHub(own: uuid, peers: s.seen.values.compactMap { seen in
            guard let profile = seen.peer.profile, let peerUUID = profile.uuid else { return nil }
            return (peerUUID, !s.away.contains(peerUUID) && !syncedDatabases(profile).isEmpty)
        })
    }

    /// The hub: the lowest uuid among this server's and its eligible peers' (present, answering,
    /// sharing a `sync` database).
    static func electHub(own: String, peers: [(uuid: String, eligible: Bool)]) -> String {
        peers.filter(\.eligible).map(\.uuid).reduce(own) { min($0, $1) }
    }

    /// Whether this server syncs with `peerUUID` in its topology.
    func syncsWith(_ peerUUID: String, _ s: State) -> Bool {
        guard configuration.topology == .hub else { return true }
        return Self.hubSyncs(own: uuid, peer: peerUUID, hub: hubUUID(s))
    }

    /// In a hub room: the hub syncs with every device, every other device with the hub only.
    static func hubSyncs(own: String, peer: String, hub: String) -> Bool { own == hub || peer == hub }

    /// Hub topology: starts what the election asks for and stops what it no longer does. A
    /// peer away stays listed (with no jobs) so that PeerWatch keeps asking whether it is back.
    func rebalance() {
        guard configuration.topology == .hub else { return }
        let (start, stop) = state.withLock { s -> ([(DiscoveredPeer, Int)], [String]) in
            var start: [(DiscoveredPeer, Int)] = [], stop: [String] = []
            var peers: [String: DiscoveredPeer] = [:]
            for seen in s.seen.values { if let peerUUID = seen.peer.profile?.uuid { peers[peerUUID] = seen.peer } }
            for (peerUUID, peer) in peers {
                let away = s.away.contains(peerUUID)
                if syncsWith(peerUUID, s) {
                    if !away && (s.syncing[peerUUID]?.jobs.isEmpty ?? true) && !s.meeting.contains(peerUUID) {
                        start.append((peer, Self.beginMeeting(&s, peerUUID)))
                    }
                } else if away {
                    stop += s.syncing[peerUUID]?.jobs ?? []
                    s.syncing[peerUUID]?.jobs = []
                } else if let sync = s.syncing.removeValue(forKey: peerUUID) {
                    stop += sync.jobs
                    s.unanswered[peerUUID] = nil
                }
            }
            return (start, stop)
        }
        for id in stop { _ = replications.cancel(id: id) }
        for (peer, meeting) in start {
            guard let peerUUID = peer.profile?.uuid else { continue }
            Task { await self.meet(peer, uuid: peerUUID, meeting: meeting) }
        }
    }
}
