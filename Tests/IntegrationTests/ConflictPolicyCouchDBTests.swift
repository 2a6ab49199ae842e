import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// An Apache CouchDB in the loop (it has no conflict policies): two Settees that sync only
/// through it each resolve the story's conflict on their own, and CouchDB ends with the
/// resolved tree too — the same winner, no conflict. Needs `COUCHDB_URL` (admin
/// credentials in it, e.g. http://admin:admin@127.0.0.1:15984); skipped without it.
@Suite(.serialized) struct ConflictPolicyCouchDBTests {
    typealias Peers = ConflictPeers
    static let couch = ProcessInfo.processInfo.environment["COUCHDB_URL"].map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }

    static func couchRequest(_ method: String, _ path: String, _ json: String? = nil) throws -> TestResponse {
        let base = try #require(couch)
        let url = try #require(URL(string: base + path))
        var headers: [(String, String)] = [("Accept", "application/json")]
        if let user = url.user, let password = url.password {
            headers.append(("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()))
        }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        var plain = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        (plain.user, plain.password) = (nil, nil)
        return try TestHTTPClient.request(method, plain.url!, headers: headers, body: json.map { Array($0.utf8) } ?? [])
    }

    @Test(.enabled(if: couch != nil)) func couchDBBetweenTwoSetteesEndsWithTheResolvedTree() throws {
        let couch = try #require(Self.couch)
        let hub = "settee_conflicts_" + UUID().uuidString.lowercased().prefix(8)
        let hubURL = couch + "/" + hub
        #expect(try Self.couchRequest("PUT", "/\(hub)").status == 201)
        defer { _ = try? Self.couchRequest("DELETE", "/\(hub)") }
        let peers = try Peers(2, prefix: "couchloop")
        defer { peers.stop() }
        let (ana, ben) = (peers.peers[0], peers.peers[1])
        #expect(try Peers.call(ana, "PUT", "/story").status == 201)
        #expect(try Peers.call(ben, "PUT", "/story").status == 201)
        #expect(try Peers.call(ana, "PUT", "/story/_design/plot", ConflictPolicyReplicationTests.storyPolicy).status == 201)
        let first = #"{"title":"Harbour","entries":[{"id":"e0","at":"2026-11-27T07:00:00Z"}]}"#
        #expect(try Peers.call(ana, "PUT", "/story/tale", first).status == 201)
        let push = { (peer: SetteeProcess) in try Peers.replicate(on: peer, from: Peers.url(peer, "story"), to: hubURL) }
        let pull = { (peer: SetteeProcess) in try Peers.replicate(on: peer, from: hubURL, to: Peers.url(peer, "story")) }
        #expect(try push(ana).status == 200)
        #expect(try pull(ben).status == 200)
        for minute in 1...2 {
            try ConflictPolicyReplicationTests.append(ana, id: "ana\(minute)", at: "2026-11-27T07:0\(minute):00Z", text: "A")
            try ConflictPolicyReplicationTests.append(ben, id: "ben\(minute)", at: "2026-11-27T07:0\(minute):30Z", text: "B")
        }
        // Both push their branch into CouchDB (a conflict there), then each pulls the other's.
        #expect(try push(ana).status == 200)
        #expect(try push(ben).status == 200)
        let converged = try Peers.eventually(60) {
            for peer in [ana, ben] {
                _ = try pull(peer)
                _ = try push(peer)
            }
            let tale = try Self.couchRequest("GET", "/\(hub)/tale?conflicts=true").json
            let (a, b) = (try Peers.winner(ana, "story", "tale"), try Peers.winner(ben, "story", "tale"))
            return tale?["_conflicts"] == nil && tale?["_rev"]?.stringValue == a.rev && a.rev == b.rev
                && a.conflicts.isEmpty && b.conflicts.isEmpty
        }
        #expect(converged)
        let tale = try Self.couchRequest("GET", "/\(hub)/tale").json
        #expect(tale?["entries"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["e0", "ana1", "ben1", "ana2", "ben2"])
        let leaves = try Self.couchRequest("GET", "/\(hub)/tale?open_revs=all").json?.arrayValue ?? []
        #expect(leaves.count == (try Peers.leaves(ana, "story", "tale")).count)
    }
}
