import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// Conflict policies (issue 42, items 3 and 4) between real `settee` processes that
/// replicate: the PeerPlot story, three peers resolving one conflict at once, and
/// policies that fail.
@Suite(.serialized) struct ConflictPolicyReplicationTests {
    typealias Peers = ConflictPeers
    static let storyPolicy = #"{"conflicts":{"policy":"_merge","key":"id","order":"at"}}"#

    /// Appends one entry to the story on `peer` (read, append, write: what the app does).
    static func append(_ peer: SetteeProcess, id: String, at: String, text: String) throws {
        let story = try #require(try Peers.call(peer, "GET", "/story/tale").json?.objectValue)
        var document = story
        var entries = story["entries"]?.arrayValue ?? []
        entries.append(["id": .string(id), "at": .string(at), "text": .string(text)])
        document["entries"] = .array(entries)
        #expect(try Peers.call(peer, "PUT", "/story/tale", JSONWriter.string(.object(document))).status == 201)
    }

    /// PeerPlot: two Settees apart each append to one story document; reconnected, every
    /// entry of both sides is in the story on both peers, in time order, at the same
    /// revision, with no conflict left, and replicating again writes nothing.
    @Test func peerPlotStoryKeepsEveryEntryOfBothSides() throws {
        let peers = try Peers(2, prefix: "peerplot")
        defer { peers.stop() }
        let (ana, ben) = (peers.peers[0], peers.peers[1])
        for peer in [ana, ben] {
            #expect(try Peers.call(peer, "PUT", "/story").status == 201)
            #expect(try Peers.call(peer, "PUT", "/story/_design/plot", Self.storyPolicy).status == 201)
        }
        let first = #"{"title":"The Lighthouse","entries":[{"id":"e0","at":"2026-11-27T06:00:00Z","text":"It was dark."}]}"#
        #expect(try Peers.call(ana, "PUT", "/story/tale", first).status == 201)
        #expect(try Peers.replicate("story", from: ana, to: ben).status == 200)
        // Apart: three entries each, interleaved in time.
        for minute in 1...3 {
            try Self.append(ana, id: "ana\(minute)", at: "2026-11-27T06:0\(minute):00Z", text: "Ana \(minute)")
            try Self.append(ben, id: "ben\(minute)", at: "2026-11-27T06:0\(minute):30Z", text: "Ben \(minute)")
        }
        // Reconnected: both pull at once, so each resolves what it receives on its own.
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            _ = try? Peers.replicate("story", from: peers.peers[1 - index], to: peers.peers[index])
        }
        let converged = try Peers.eventually {
            try Peers.replicate("story", from: ana, to: ben)
            try Peers.replicate("story", from: ben, to: ana)
            let (a, b) = (try Peers.winner(ana, "story", "tale"), try Peers.winner(ben, "story", "tale"))
            let counts = [try Peers.conflictCount(ana, "story"), try Peers.conflictCount(ben, "story")]
            let trees = [try Peers.leaves(ana, "story", "tale"), try Peers.leaves(ben, "story", "tale")]
            // Converged: the same tree (tombstones too), the same winner, nothing in conflict.
            return a.rev != nil && a.rev == b.rev && a.conflicts.isEmpty && b.conflicts.isEmpty && counts == [0, 0]
                && trees[0] == trees[1]
        }
        #expect(converged)
        let expected = ["e0", "ana1", "ben1", "ana2", "ben2", "ana3", "ben3"]
        for peer in [ana, ben] {
            let entries = try Peers.winner(peer, "story", "tale").body?["entries"]?.arrayValue ?? []
            #expect(entries.compactMap { $0["id"]?.stringValue } == expected)
        }
        #expect(try Peers.leaves(ana, "story", "tale") == (try Peers.leaves(ben, "story", "tale")))
        // Converged: nothing left to send either way, and no resolution after (no ping-pong).
        let settled = try Peers.winner(ana, "story", "tale").rev
        let before = [try Peers.leaves(ana, "story", "tale"), try Peers.leaves(ben, "story", "tale")]
        let there = try Peers.replicate("story", from: ana, to: ben)
        let between = [try Peers.leaves(ana, "story", "tale"), try Peers.leaves(ben, "story", "tale")]
        #expect(Peers.docsWritten(there) ?? 0 == 0, "\(there.text) \(before) \(between)")
        let back = try Peers.replicate("story", from: ben, to: ana)
        let after = [try Peers.leaves(ana, "story", "tale"), try Peers.leaves(ben, "story", "tale")]
        #expect(Peers.docsWritten(back) ?? 0 == 0, "\(back.text) \(after)")
        #expect(try Peers.winner(ana, "story", "tale").rev == settled)
        #expect(try Peers.winner(ben, "story", "tale").rev == settled)
    }

    /// The same conflict arrives at three peers at once and each resolves it alone: they
    /// write identical revisions, so replicating between every pair writes nothing and
    /// leaves no conflict anywhere.
    @Test func threePeersResolvingOneConflictAtOnceMakeNoNewConflict() throws {
        let peers = try Peers(3, prefix: "threepeers")
        defer { peers.stop() }
        for peer in peers.peers {
            #expect(try Peers.call(peer, "PUT", "/db").status == 201)
            #expect(try Peers.call(peer, "PUT", "/db/_design/p", Self.storyPolicy).status == 201)
        }
        let root = String(repeating: "1", count: 32)
        let leaves = [("a", "ana"), ("b", "ben"), ("c", "cleo")].map { suffix, who in
            #"{"_id":"q","_rev":"2-\#(String(repeating: suffix, count: 32))","_revisions":{"start":2,"ids":["\#(String(repeating: suffix, count: 32))","\#(root)"]},"entries":[{"id":"\#(who)","at":"\#(who)"}],"by":"\#(who)"}"#
        }
        let batch = #"{"new_edits":false,"docs":[\#(leaves.joined(separator: ","))]}"#
        DispatchQueue.concurrentPerform(iterations: 3) { index in
            _ = try? Peers.call(peers.peers[index], "POST", "/db/_bulk_docs", batch)
        }
        for peer in peers.peers {
            #expect(try Peers.eventually { try Peers.conflictCount(peer, "db") == 0 })
        }
        let revs = try peers.peers.map { try Peers.winner($0, "db", "q").rev }
        #expect(revs[0] != nil && Set(revs).count == 1)
        #expect(revs[0]?.hasPrefix("3-") == true)
        let trees = try peers.peers.map { try Peers.leaves($0, "db", "q") }
        #expect(Set(trees).count == 1)
        for (from, to) in [(0, 1), (1, 2), (2, 0), (1, 0), (2, 1), (0, 2)] {
            let written = Peers.docsWritten(try Peers.replicate("db", from: peers.peers[from], to: peers.peers[to]))
            #expect(written ?? 0 == 0)
            #expect(try Peers.conflictCount(peers.peers[to], "db") == 0)
        }
        let merged = try Peers.winner(peers.peers[0], "db", "q").body
        #expect(merged?["entries"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["ana", "ben", "cleo"])
        // The winner's scalar ("c…" is the highest rev of generation 2).
        #expect(merged?["by"]?.stringValue == "cleo")
    }

    /// Without a policy conflicts stay, as in CouchDB; a policy saved later resolves the
    /// conflicts already stored, and later replicated ones as they come.
    @Test func aPolicySavedLaterResolvesTheConflictsAlreadyStored() throws {
        let peers = try Peers(1, prefix: "laterpolicy")
        defer { peers.stop() }
        let peer = peers.peers[0]
        #expect(try Peers.call(peer, "PUT", "/db").status == 201)
        let leaves = (0..<3).map { n in ["a", "b"].map { side in
            #"{"_id":"d\#(n)","_rev":"1-\#(String(repeating: side, count: 32))","entries":[{"id":"\#(side)","at":"\#(side)"}]}"#
        }.joined(separator: ",") }.joined(separator: ",")
        #expect(try Peers.call(peer, "POST", "/db/_bulk_docs", #"{"new_edits":false,"docs":[\#(leaves)]}"#).status == 201)
        #expect(try UsersSignupTests.call(peer, "POST", "/db/_resolve_conflicts").status == 401)
        let asked = try Peers.call(peer, "POST", "/db/_resolve_conflicts")
        #expect(asked.status == 400)
        #expect(asked.json?["error"]?.stringValue == "bad_request")
        #expect(try Peers.conflictCount(peer, "db") == 3)
        #expect(try Peers.call(peer, "PUT", "/db/_design/p", Self.storyPolicy).status == 201)
        #expect(try Peers.eventually { try Peers.conflictCount(peer, "db") == 0 })
        let merged = try Peers.winner(peer, "db", "d1").body?["entries"]?.arrayValue
        #expect(merged?.compactMap { $0["id"]?.stringValue } == ["a", "b"])
        let late = ["c", "d"].map { #"{"_id":"late","_rev":"1-\#(String(repeating: $0, count: 32))","n":1}"# }
        #expect(try Peers.call(peer, "POST", "/db/_bulk_docs", #"{"new_edits":false,"docs":[\#(late.joined(separator: ","))]}"#).status == 201)
        #expect(try Peers.eventually { try Peers.conflictCount(peer, "db") == 0 })
    }
}
