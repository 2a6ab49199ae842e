internal import FoundationEssentials
import Logging
import SetteeDiscovery
import SetteeReplicator
import Synchronization

/*
 Meeting a peer: asking whether it answers before starting replications with it. A host
 has several addresses (IPv4, and IPv6 link-local ones avahi publishes over IPv4 too) and
 a server may listen on some only (`0.0.0.0` takes no IPv6), so every address is asked
 at once and the first answering one in `PeerAddress.preferred` order is used. Reports
 of one peer come in bursts (its AAAA record, then its A record, then its TXT record) and
 a meeting takes up to a probe's timeout: each report that changes where the peer is
 reached begins a new meeting, and an older one that ends later changes nothing.
 */
extension NodeDiscovery {
    /// Numbers a new meeting with the peer (under the state lock).
    static func beginMeeting(_ s: inout State, _ peerUUID: String) -> Int {
        let number = (s.meetings[peerUUID] ?? 0) + 1
        s.meetings[peerUUID] = number
        s.meeting.insert(peerUUID)
        return number
    }

    /// A DNS-SD report of a peer (under the state lock): the meeting to begin with it, or nil
    /// when it is synced with and answering at an address the report still lists. Such a report
    /// also ends any meeting begun by an earlier one: a resolution reports its AAAA record
    /// before its A record, and a meeting begun on the IPv6 link-local address alone (where a
    /// server bound to 0.0.0.0 refuses) stopped replications that ran well at the IPv4 address
    /// listed a moment later; they came back only with `PeerWatch`, ten seconds on and from their
    /// checkpoints. In a room of 20, six devices stopped their pulls of one peer so mid-burst.
    static func reported(_ peer: DiscoveredPeer, uuid peerUUID: String, wanting wanted: [String],
                         in s: inout State, now: Date) -> Int? {
        s.seen[peer.instance] = Seen(peer: peer, since: s.seen[peer.instance]?.since ?? now, lastSeen: now)
        s.departed[peerUUID] = nil
        if let current = s.syncing[peerUUID], current.databases == wanted, !current.jobs.isEmpty,
           s.unanswered[peerUUID] == nil, let address = stillReached(current.peer, in: peer) {
            s.syncing[peerUUID]?.peer = peer.reached(at: address)
            if s.meeting.remove(peerUUID) != nil { s.meetings[peerUUID, default: 0] += 1 }
            return nil
        }
        return beginMeeting(&s, peerUUID)
    }

    /// Whether `meeting` (nil: not from a meeting) is the latest one begun with the peer.
    static func isLatest(_ meeting: Int?, _ peerUUID: String, _ s: State) -> Bool {
        meeting.map { s.meetings[peerUUID] == $0 } ?? true
    }

    /// `peer` with, after its own, the addresses of every other instance advertising the same
    /// server (uuid) on the same port and scheme. A server renamed on the network (`Settee on
    /// vm #3`) is advertised under both names for a while, each resolution with the addresses it
    /// found. Kept for `PeerWatch` when it does not answer, the record of the name met last
    /// alone would hide the others' addresses from every probe: once in DiscoveryFaultsTests,
    /// B met under `#3` at an IPv6 link-local address where it did not listen stayed away for
    /// the rest of the test while advertised at an IPv4 address that answered.
    static func withEveryAddress(_ peer: DiscoveredPeer, among seen: some Collection<Seen>) -> DiscoveredPeer {
        var merged = peer
        for other in seen where other.peer.profile?.uuid == peer.profile?.uuid && other.peer.port == peer.port
            && other.peer.profile?.usesTLS == peer.profile?.usesTLS {
            merged.addresses += other.peer.addresses.filter { !merged.addresses.contains($0) }
        }
        return merged
    }

    /// The address `current` is reached at, when the newer report still lists it.
    static func stillReached(_ current: DiscoveredPeer, in reported: DiscoveredPeer) -> String? {
        guard current.port == reported.port, current.profile?.usesTLS == reported.profile?.usesTLS,
              let address = current.addresses.first, reported.addresses.contains(address) else { return nil }
        return address
    }

    /// Syncs with a peer that answers; one that does not (an address out of reach, nothing
    /// listening, a refusal) is noted once and left to `PeerWatch`, which syncs when it answers:
    /// a flood of dead advertisements costs a probe each, not two replications each.
    func meet(_ peer: DiscoveredPeer, uuid peerUUID: String, meeting: Int) async {
        defer { state.withLock { s in if s.meetings[peerUUID] == meeting { s.meeting.remove(peerUUID) } } }
        guard let profile = peer.profile, !syncedDatabases(profile).isEmpty,
              !profile.usesTLS || configuration.trusts(advertised: profile.tlsFingerprint) else { return }
        let (reached, refusal) = await reach(peer)
        if let reached { return sync(with: reached, uuid: peerUUID, meeting: meeting) }
        var stale: [String] = []
        let first = state.withLock { s -> Bool in
            guard s.seen.values.contains(where: { $0.peer.profile?.uuid == peerUUID }),
                  Self.isLatest(meeting, peerUUID, s) else { return false }
            stale = s.syncing[peerUUID]?.jobs ?? []
            if s.syncing[peerUUID] == nil { s.neverAnswered.insert(peerUUID) }  // first met, and not answering
            let kept = Self.withEveryAddress(peer, among: s.seen.values)
            s.syncing[peerUUID] = Sync(peer: kept, url: peerURL(kept), databases: syncedDatabases(profile), jobs: [])
            s.unanswered[peerUUID] = s.unanswered[peerUUID] ?? Date()
            return s.away.insert(peerUUID).inserted
        }
        for id in stale { _ = replications.cancel(id: id) }  // they went to its former address
        guard first else { return }
        logger.info("discovery: peer does not answer (\(refusal.reason)); syncing when it does",
                    metadata: ["instance": "\(peer.instance)", "url": "\(peer.baseURL)"])
    }

    /// The peer at the most preferred of its addresses that answers (every address is asked
    /// at once; a preferred one's answer is awaited before a later one is taken), or nil and
    /// why not: its first address's refusal, `closed` only when every address refuses the connection.
    /// With `firstAddressOnly`, only the address it is reached at now is asked; `wait`: how long each is waited for.
    func reach(_ peer: DiscoveredPeer, firstAddressOnly: Bool = false,
               wait: Duration = probeWait) async -> (DiscoveredPeer?, Refusal) {
        let addresses = firstAddressOnly ? Array(peer.addresses.prefix(1)) : peer.addresses
        guard !addresses.isEmpty else {
            return (nil, await refusal(peer.baseURL, wait: wait) ?? Refusal(reason: "no address", closed: false))
        }
        return await withTaskGroup(of: (Int, Refusal?).self) { group in
            for (index, address) in addresses.enumerated() {
                group.addTask { (index, await self.refusal(peer.baseURL(at: address), wait: wait)) }
            }
            var answers = [Refusal??](repeating: nil, count: addresses.count)
            for await (index, refusal) in group {
                answers[index] = .some(refusal)
                // The first address not known to refuse: taken if it answered, else wait for it.
                guard let next = answers.firstIndex(where: { $0 == nil || $0! == nil }), answers[next] != nil else { continue }
                group.cancelAll()
                return (peer.reached(at: addresses[next]), Refusal(reason: "", closed: false))
            }
            let refusals = answers.compactMap { $0 ?? nil }
            let first = refusals.first ?? Refusal(reason: "no answer", closed: false)
            return (nil, Refusal(reason: first.reason, closed: refusals.allSatisfy(\.closed)))
        }
    }
}
