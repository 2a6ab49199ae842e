import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// `[discovery] topology = pull` (issue 41): each server only pulls from its peer, so a pair
/// is synced by its two pulls, one on each side: half the jobs of a mesh. Writes on either
/// side reach the other, each server runs one job per peer (no push), and `/_peers` still says
/// something true for each way: this server's pull, and the peer's pull of this server as its
/// checkpoint here shows it (`run_by` "peer").
@Suite(.serialized) struct DiscoveryPullTopologyTests {
    /// A's row for the peer `uuid` in its `/_peers`, or nil.
    static func row(of uuid: String, on netns: String, _ base: String) throws -> JSONValue? {
        try DiscoveryTests.call(netns, "GET", base + "/_peers?reachable=false")["peers"]?.arrayValue?
            .first { $0["uuid"]?.stringValue == uuid }
    }

    /// The `discovery+` jobs a server runs.
    static func discoveryJobs(on netns: String, _ base: String) throws -> [String] {
        (try DiscoveryTests.call(netns, "GET", base + "/_scheduler/jobs")["jobs"]?.arrayValue ?? [])
            .compactMap { $0["id"]?.stringValue }.filter { $0.hasPrefix("discovery+") }
    }

    @Test(.enabled(if: DiscoveryTests.unavailable == nil, "\(DiscoveryTests.unavailable ?? "")"), .timeLimit(.minutes(3)))
    func aPairThatOnlyPullsSyncsBothWaysAndShowsBoth() throws {
        let pair = try DiscoveryTests.Pair("pulls", topology: "pull")
        defer { pair.stop() }
        let (hosts, baseA, baseB) = (pair.hosts, pair.baseA, pair.baseB)
        let uuidB = try DiscoveryReturnTests.createShared(pair)
        let uuidA = try DiscoveryTests.call(hosts.a, "GET", baseA + "/")["uuid"]?.stringValue ?? "?"

        // Writes on each side arrive on the other: each by the other's pull.
        #expect(try DiscoveryTests.call(hosts.a, "PUT", baseA + "/shared/from-a", #"{"side":"a"}"#)["ok"] == true)
        #expect(try DiscoveryTests.call(hosts.b, "PUT", baseB + "/shared/from-b", #"{"side":"b"}"#)["ok"] == true)
        #expect(try DiscoveryTests.waitForDocument(hosts.b, baseB, "from-a", seconds: 30))
        #expect(try DiscoveryTests.waitForDocument(hosts.a, baseA, "from-b", seconds: 30))

        // One job per peer on each side: the pull, no push.
        #expect(try Self.discoveryJobs(on: hosts.a, baseA) == ["discovery+\(uuidB)+shared+pull"])
        #expect(try Self.discoveryJobs(on: hosts.b, baseB) == ["discovery+\(uuidA)+shared+pull"])

        // A's row for B: syncing, both ways listed; the way out is B's pull of A, seen by its
        // checkpoint here, caught up once B holds A's write (polled: B checkpoints within 5 s).
        var seen: JSONValue?
        let caughtUp = try DiscoveryReturnTests.secondsUntil(30) {
            seen = try Self.row(of: uuidB, on: hosts.a, baseA)
            let out = seen?["replications"]?.arrayValue?.first { $0["run_by"] == "peer" }
            return seen?["state"] == "syncing" && out?["state"] == "peer pulls" && out?["caught_up"] == true
        }
        #expect(caughtUp != nil, "\(String(describing: seen))")
        let replications = seen?["replications"]?.arrayValue ?? []
        #expect(replications.map { $0["direction"] } == ["pull", "push"], "\(replications)")
        #expect(replications.map { $0["run_by"] } == ["this server", "peer"], "\(replications)")
        #expect(replications.first?["state"] == "running", "\(replications)")
        let out = replications.last
        #expect(out?["database"] == "shared" && out?["behind"] == 0, "\(String(describing: out))")
        #expect(out?["checkpointed_seq"].map { $0 != .null } == true, "\(String(describing: out))")
        #expect(out?["checkpointed_at"]?.stringValue?.hasSuffix(" GMT") == true, "\(String(describing: out))")

        // A later write on A: B's continuous pull brings it (nothing pushes it), and A's row
        // says B caught up again once B's pull checkpoints it.
        #expect(try DiscoveryTests.call(hosts.a, "PUT", baseA + "/shared/later-a", #"{"side":"a"}"#)["ok"] == true)
        #expect(try DiscoveryTests.waitForDocument(hosts.b, baseB, "later-a", seconds: 10))
        let again = try DiscoveryReturnTests.secondsUntil(30) {
            try Self.row(of: uuidB, on: hosts.a, baseA)?["replications"]?.arrayValue?.last?["caught_up"] == true
        }
        #expect(again != nil)
    }
}
