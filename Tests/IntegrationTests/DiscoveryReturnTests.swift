import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// A device whose link comes back (issue 41, churn): its peers sync with it again within a
/// tick of the link's return. Beside B, B's avahi advertises "Nowhere", a Settee profile at an
/// address nobody holds, so that A always has a peer away whose probe waits its whole timeout:
/// A used to restart a returning peer only once every probe of the round had ended (2.5 s for
/// that one), and began the next round 2 s later, so B waited 1.5 to 6 s after its link came
/// back; now each answer is acted on as it comes and a peer away is asked afresh every tick.
@Suite(.serialized) struct DiscoveryReturnTests {
    /// What B's namespace runs before B's settee: the dead advert, then the settee.
    static let nowhere = #"""
        set -u
        avahi-publish -a -R nowhere.local 198.18.0.77 >/dev/null 2>&1 &
        avahi-publish -s -H nowhere.local "Nowhere" _couchdb._tcp 5984 txtvers=1 uuid=nowhere path=/shared >/dev/null 2>&1 &
        "$@" &
        child=$!
        trap 'kill -TERM "$child" 2>/dev/null' TERM INT
        wait "$child"; status=$?
        kill -0 "$child" 2>/dev/null && { wait "$child"; status=$?; }
        kill $(jobs -p) 2>/dev/null
        exit "$status"
        """#

    /// B's row in A's `/_peers` (`.null` when A answers without it).
    static func stateOf(_ uuid: String, on netns: String, _ base: String) throws -> JSONValue? {
        try DiscoveryTests.call(netns, "GET", base + "/_peers?reachable=false")["peers"]?.arrayValue
            .map { peers in peers.first { $0["uuid"]?.stringValue == uuid }?["state"] ?? .null }
    }

    /// Creates `shared` on A, then on B (which may have it already, from its pull of A's);
    /// B's server uuid.
    static func createShared(_ pair: DiscoveryTests.Pair) throws -> String {
        for (netns, base) in [(pair.hosts.a, pair.baseA), (pair.hosts.b, pair.baseB)] {
            let created = try DiscoveryTests.call(netns, "PUT", base + "/shared")
            #expect(created["ok"] == true || created["error"] == "file_exists", "\(created)")
        }
        return try DiscoveryTests.call(pair.hosts.b, "GET", pair.baseB + "/")["uuid"]?.stringValue ?? "?"
    }

    /// Polls (every 0.1 s, up to `seconds`) until `done`; the seconds it took, or nil.
    static func secondsUntil(_ seconds: Double, _ done: () throws -> Bool) throws -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            if try done() { return Date().timeIntervalSince(start) }
            usleep(100_000)
        }
        return nil
    }

    @Test(.enabled(if: DiscoveryTests.unavailable == nil, "\(DiscoveryTests.unavailable ?? "")"), .timeLimit(.minutes(3)))
    func aPeerWhoseLinkReturnsIsSyncedWithAgainWithinATick() throws {
        let pair = try DiscoveryTests.Pair("return", aroundB: ["/bin/bash", "-c", Self.nowhere, "nowhere"])
        defer { pair.stop() }
        let (hosts, a, baseA) = (pair.hosts, pair.a, pair.baseA)
        let uuidB = try Self.createShared(pair)
        let syncing = { try Self.stateOf(uuidB, on: hosts.a, baseA) == "syncing" }
        #expect(try Self.secondsUntil(30, syncing) != nil)
        let discoveryLines = { a.output.split(separator: "\n").filter { $0.contains("iscovery") }.suffix(20).joined(separator: "\n") }

        // Twice: B's link drops while A writes (as in a room, where everyone does: an idle
        // pair notices a silent peer only when a longpoll times out, 40 s) until A lists B away
        // (or gone), then comes back.
        var delays: [Double] = []
        for round in 1...2 {
            try DiscoveryTests.run(["ip", "-n", hosts.b, "link", "set", hosts.linkB, "down"])
            #expect(try DiscoveryTests.call(hosts.a, "PUT", baseA + "/shared/while-away-\(round)", "{}")["ok"] == true)
            let departed = try Self.secondsUntil(45) {
                // Away or gone, or no longer listed (its record expired): never failing.
                [.null, "away", "gone"].contains(try Self.stateOf(uuidB, on: hosts.a, baseA))
            }
            let listed = try Self.stateOf(uuidB, on: hosts.a, baseA)
            #expect(departed != nil, "round \(round): B listed \(String(describing: listed))\n\(discoveryLines())")
            try DiscoveryTests.run(["ip", "-n", hosts.b, "link", "set", hosts.linkB, "up"])
            let back = try Self.secondsUntil(20, syncing)
            #expect(back != nil, "round \(round): A never synced with B again\n\(discoveryLines())")
            delays.append(back ?? 20)
        }
        print("A synced with B again \(delays.map { String(format: "%.2f", $0) }) s after B's link came back")
        // A tick is 2 s; a probe of a peer away waits 1.8 s and is answered within about 1 s of
        // the link's return (one ARP or SYN retransmission): 2 s leaves room for a loaded machine.
        #expect(delays.allSatisfy { $0 < 2.0 }, "\(delays)\n\(discoveryLines())")
    }

    /// An idle pair (no writes anywhere) notices a peer gone silent within a quiet period and a
    /// probe: A's push to B answered from A's own changes every 10 s whatever B did, so only the
    /// pull's request timing out ended it (about 55 s).
    @Test(.enabled(if: DiscoveryTests.unavailable == nil, "\(DiscoveryTests.unavailable ?? "")"), .timeLimit(.minutes(3)))
    func anIdlePeerGoneSilentIsAwayWithinAQuietPeriod() throws {
        let pair = try DiscoveryTests.Pair("idle")
        defer { pair.stop() }
        let (hosts, a, baseA) = (pair.hosts, pair.a, pair.baseA)
        let uuidB = try Self.createShared(pair)
        #expect(try Self.secondsUntil(30) { try Self.stateOf(uuidB, on: hosts.a, baseA) == "syncing" } != nil)
        try DiscoveryTests.run(["ip", "-n", hosts.b, "link", "set", hosts.linkB, "down"])
        // Quiet after 13 s without a pull's answer, then a probe of 2.5 s within a 2 s tick.
        let departed = try Self.secondsUntil(30) { [.null, "away", "gone"].contains(try Self.stateOf(uuidB, on: hosts.a, baseA)) }
        #expect(departed != nil, "\(a.output.split(separator: "\n").filter { $0.contains("iscovery") }.suffix(20).joined(separator: "\n"))")
    }
}
