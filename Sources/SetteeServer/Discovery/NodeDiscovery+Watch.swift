internal import FoundationEssentials
import Logging
import SetteeDiscovery
import Synchronization
import SetteeJSON
import SetteeReplicator

/*
 Peers that stop answering while still advertised. A device that walks out of the room
 (its radio drops, no DNS-SD goodbye) stays in every other daemon's cache until its
 records expire — avahi keeps a service's PTR record for 75 minutes — and its
 replications meanwhile retry with back-off growing to a minute: when it comes back it
 would wait for the next retry, and while away it would look like a failure. So every
 `tick`, each peer whose replications fail, or have heard nothing from it for longer than
 a longpoll lasts (`quietAfter`: a request hangs on a peer gone silent), is asked for `GET /` (2.5 s at most: one lost SYN is
 retransmitted after 1 s on a lossy radio):
 - it answers after not answering: its replications restart now (from their checkpoints);
 - it has not answered for `awayAfter`: its replications stop, it is listed as away (not
   failing), and it is asked again every tick until it answers (after `longAway`, every
   `slowEvery` ticks). A peer met while not answering is away from the start, and asked
   every other tick until it first answers.
 - a peer synced with whose every address now refuses the connection (the host answers,
   nothing listens): the server left, whether or not its DNS-SD goodbye was heard (under
   load avahi was seen to keep a departed service listed for minutes): away at once,
   listed as gone, asked again as above. One that never answered stays away.
 Each probe is acted on as soon as it ends, and an away peer that answers has the others
 away asked at once (the link that was down is likely back for them too).
 The probe carries our credentials: a peer that refuses them (401) or fails (500) counts
 as not answering, so that it too costs one probe a tick rather than two failing jobs.
 Each change is logged once.
 */
extension NodeDiscovery {
    static let tick: Duration = .seconds(2)
    static let awayAfter: TimeInterval = 15
    /// A continuous pull's longpoll answers every 10 s (ReplicationOptions.pollTimeout) even when idle.
    static let quietAfter: TimeInterval = 13
    static let longAway: TimeInterval = 60
    static let slowEvery = 5
    /// How long a probe waits: one SYN lost on a lossy radio is sent again after 1 s.
    static let probeWait: Duration = .milliseconds(2500)
    /// A peer already away is asked with less than a tick's wait, so that each tick asks it
    /// afresh (a probe still waiting blocks the next: with 2.5 s, a silent peer was asked every
    /// other tick, and one back on the link waited up to 4 s); a lost answer costs one tick.
    static let awayProbeWait: Duration = .milliseconds(1800)

    /// Ticks at a fixed cadence, each probe acted on as soon as it ends: a round used to wait
    /// for its slowest probe (2.5 s for a peer still silent) before restarting the peers that
    /// had answered, and the next tick came 2 s after that (a peer back on the link waited up
    /// to 4.5 s, 8 s in a loaded room of 20).
    func watchPeers() async {
        let clock = ContinuousClock()
        var next = clock.now + Self.tick
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                do { try await Task.sleep(until: next, clock: clock) } catch { return }
                next = max(next + Self.tick, clock.now)
                for peer in peersToProbe() { group.addTask { await self.probe(peer) } }
                rebalance()
            }
        }
    }

    /// Asks one peer whether it answers, and acts on the answer at once.
    func probe(_ peer: Probe) async {
        defer { state.withLock { _ = $0.probing.remove(peer.uuid) } }
        let (reached, refusal) = await reach(peer.sync.peer, firstAddressOnly: !peer.everyAddress, wait: peer.wait)
        if let reached { answered(peer.uuid, peer.sync, at: reached) } else { unanswered(peer, closed: refusal.closed) }
        rebalance()
    }

    /// A peer away answers again: the link that was down (this device's radio, or the room's)
    /// is likely back for the others away too, so they are asked now, not at their next tick.
    /// At most once a tick (a flood of dead adverts stays cheap).
    private func probeAwayNow() {
        let now = Date(), every = Double(Self.tick.components.seconds)
        let due = state.withLock { s -> Bool in
            if let last = s.lastEarlyRound, now.timeIntervalSince(last) < every { return false }
            s.lastEarlyRound = now
            return true
        }
        guard due else { return }
        for peer in peersToProbe(awayOnly: true) { Task { await self.probe(peer) } }
    }

    /// A peer to ask, and since when it has been silent if it does not answer.
    struct Probe {
        let uuid: String
        let sync: Sync
        let silentSince: Date
        /// Ask each of its addresses, not only the one it is synced at: a peer still synced
        /// with may answer elsewhere; for a peer away that is every `slowEvery` ticks only
        /// (a flood of dead adverts with two addresses each would cost twice the probes).
        var everyAddress = true
        var wait = probeWait
    }

    /// Peers to ask: those with failing or quiet replications, and those away; with `awayOnly`,
    /// those away for less than `longAway` (out of the tick count). None already being asked.
    private func peersToProbe(awayOnly: Bool = false) -> [Probe] {
        let (syncing, away, unanswered, neverAnswered, tick) = state.withLock { s in
            if !awayOnly { s.ticks += 1 }
            return (s.syncing.filter { !s.probing.contains($0.key) }, s.away, s.unanswered, s.neverAnswered, s.ticks)
        }
        let now = Date()
        let jobs = Dictionary(replications.jobs.compactMap { job in job.status.id.map { ($0, job) } }) { a, _ in a }
        var probe: [Probe] = []
        for (peerUUID, sync) in syncing {
            let mine = sync.jobs.compactMap { jobs[$0] }
            let failing = mine.contains { job in
                job.replication.progress.lastError != nil || [.crashing, .pending, .error].contains(job.status.state)
            }
            // Quiet: no answer within a longpoll's timeout and more (a request hangs on a peer gone
            // silent). Only a pull's answers count when there is one: an idle push's step is a
            // longpoll on this node's own changes, which answers whether or not the peer does (an
            // idle pair took 55 s, a pull's request timing out, to notice a peer gone silent).
            let pulls = mine.filter { $0.status.id?.hasSuffix("+pull") == true }
            let heard = (pulls.isEmpty ? mine : pulls).compactMap { $0.replication.progress.lastAnswer ?? $0.startTime }.max() ?? now
            let silentSince = Self.silentSince(failing: failing, lastHeard: heard, now: now)
            if away.contains(peerUUID) {
                // Away for long: asked every `slowEvery` ticks only (a flood of dead adverts stays cheap).
                let long = now.timeIntervalSince(unanswered[peerUUID] ?? now) > Self.longAway
                let slowTick = tick % Self.slowEvery == 0 && !awayOnly
                // One never synced with is asked every other tick, as before the fixed cadence (200
                // dead adverts asked every tick cost an idle node up to 21 % of a core, 2 % before);
                // one that answered before, every tick.
                let skipped = neverAnswered.contains(peerUUID) && tick % 2 == 1 && !awayOnly
                if (!long && !skipped) || slowTick {
                    probe.append(Probe(uuid: peerUUID, sync: sync, silentSince: now, everyAddress: slowTick,
                                       wait: Self.awayProbeWait))
                }
            } else if awayOnly {
                continue
            } else if let silentSince {
                probe.append(Probe(uuid: peerUUID, sync: sync, silentSince: silentSince))
            } else {
                state.withLock { _ = $0.unanswered.removeValue(forKey: peerUUID) }
            }
        }
        return state.withLock { s in probe.filter { s.probing.insert($0.uuid).inserted } }
    }

    /// Since when a peer synced with has been silent, or nil when it is not to be asked (its
    /// replications run and it answered within `quietAfter`). Its last answer, whether its pull
    /// now fails or is only quiet: a pull whose request timed out 11 s into the silence used to
    /// count it from that failure, so the peer was stopped 26-30 s after it went, as it came
    /// back from a 30 s absence (the 1-3 of 75 pairs of the room's churn still holding jobs for
    /// departed peers, and each of them restarted once more on the return).
    static func silentSince(failing: Bool, lastHeard: Date, now: Date) -> Date? {
        guard failing || now.timeIntervalSince(lastHeard) > quietAfter else { return nil }
        return min(lastHeard, now)
    }

    /// It answers: at the address it is synced with, or at another of its addresses (the
    /// replications move there).
    private func answered(_ peerUUID: String, _ sync: Sync, at reached: DiscoveredPeer) {
        let (wasUnanswered, wasAway) = state.withLock { s -> (Bool, Bool) in
            if let instance = s.seen.first(where: { $0.value.peer.profile?.uuid == peerUUID })?.key {
                s.seen[instance]?.lastSeen = Date()
            }
            return (s.unanswered.removeValue(forKey: peerUUID) != nil, s.away.contains(peerUUID))
        }
        let moved = reached.addresses.first != sync.peer.addresses.first
        guard wasUnanswered || moved else { return }
        logger.info("discovery: peer answers again; replications restarted",
                    metadata: ["instance": "\(sync.peer.instance)", "url": "\(reached.baseURL)"])
        self.sync(with: reached, uuid: peerUUID)
        if wasAway { probeAwayNow() }
    }

    /// Not answering: away after `awayAfter`, or at once when every address refuses the
    /// connection (`closed`: the server is not there; listed as gone).
    private func unanswered(_ peer: Probe, closed: Bool) {
        let now = Date(), peerUUID = peer.uuid, sync = peer.sync
        let (stop, newlyClosed) = state.withLock { s -> (Bool, Bool) in
            let since = s.unanswered[peerUUID] ?? peer.silentSince
            s.unanswered[peerUUID] = since
            // Closed after answering (it was synced with): it left. One that never answered stays away.
            let newlyClosed = closed && !s.away.contains(peerUUID) && s.closed.insert(peerUUID).inserted
            if newlyClosed { s.syncing[peerUUID]?.jobs = [] }
            guard !s.away.contains(peerUUID), closed || now.timeIntervalSince(since) >= Self.awayAfter else {
                return (newlyClosed, newlyClosed)
            }
            s.away.insert(peerUUID)
            return (true, newlyClosed)
        }
        guard stop else { return }
        let why = newlyClosed ? "refuses connections on every address (it left)"
                              : "has not answered for \(Int(Self.awayAfter)) s"
        logger.info("discovery: peer \(why); its replications stop until it answers",
                    metadata: ["instance": "\(sync.peer.instance)", "url": "\(sync.peer.baseURL)"])
        for id in sync.jobs { _ = replications.cancel(id: id) }
    }

    /// Why a probe got no welcome; `closed` when the connection was refused (libcurl's
    /// CURLE_COULDNT_CONNECT: a reset or "no route" answer, not silence).
    struct Refusal: Sendable, Equatable {
        var reason: String
        var closed: Bool
    }

    /// Whether `GET base/` (with our credentials) answers with CouchDB's welcome within 2.5 s.
    func answers(_ base: String) async -> Bool { await refusal(base, wait: Self.probeWait) == nil }

    /// Why `GET base/` (with our credentials) is not CouchDB's welcome within `wait`, or nil when it is.
    func refusal(_ base: String, wait: Duration) async -> Refusal? {
        var headers: [(String, String)] = []
        if let (name, password) = configuration.peerCredentials {
            headers.append(("Authorization", "Basic " + Data("\(name):\(password)".utf8).base64EncodedString()))
        }
        let response: RemoteResponse
        do {
            response = try await probes.send(RemoteRequest(method: "GET", url: base + "/", headers: headers, timeout: wait))
        } catch RemoteError.transport(let code, let message) where code == 7 {
            return Refusal(reason: message, closed: true)
        } catch {
            let ms = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
            return Refusal(reason: "no answer in \(Double(ms) / 1000) s", closed: false)
        }
        guard response.status == 200 else { return Refusal(reason: "HTTP \(response.status)", closed: false) }
        return (try? JSONReader.parse(response.body))?["couchdb"] != nil ? nil : Refusal(reason: "not a CouchDB welcome", closed: false)
    }
}
