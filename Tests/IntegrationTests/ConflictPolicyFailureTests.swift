import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// A conflicts policy that fails — throws, returns a non-object, runs past the time
/// limit — leaves the conflict as it was, says why (`_conflicts`, `_active_tasks`, one
/// log line) and is not tried again by itself: nothing loops.
@Suite(.serialized) struct ConflictPolicyFailureTests {
    typealias Peers = ConflictPeers

    /// Two replicated leaves of `q` in `db`.
    static let leaves = """
        {"new_edits":false,"docs":[{"_id":"q","_rev":"1-\(String(repeating: "a", count: 32))","side":"a"},
        {"_id":"q","_rev":"1-\(String(repeating: "b", count: 32))","side":"b"}]}
        """

    static func ddoc(_ source: String) -> String {
        JSONWriter.string(["conflicts": ["policy": .string(source)]])
    }

    @Test func aThrowingPolicyLeavesTheConflictAndReportsItOnce() throws {
        let peers = try Peers(1, prefix: "throwing")
        defer { peers.stop() }
        let peer = peers.peers[0]
        #expect(try Peers.call(peer, "PUT", "/db").status == 201)
        let policy = Self.ddoc("function(leaves, winner) { throw new Error('cannot merge ' + winner._id); }")
        #expect(try Peers.call(peer, "PUT", "/db/_design/p", policy).status == 201)
        #expect(try Peers.call(peer, "POST", "/db/_bulk_docs", Self.leaves).status == 201)
        var row: JSONValue?
        #expect(try Peers.eventually {
            row = try Peers.call(peer, "GET", "/db/_conflicts").json?["rows"]?.arrayValue?.first
            return row?["policy_error"] != nil
        })
        #expect(row?["id"]?.stringValue == "q")
        #expect(row?["policy_error"]?.stringValue?.contains("cannot merge q") == true)
        var task: JSONValue?
        #expect(try Peers.eventually {
            task = try Peers.call(peer, "GET", "/_active_tasks").json?.arrayValue?
                .first { $0["type"]?.stringValue == "conflict_resolution" }
            return task?["error"] != nil
        })
        #expect(task?["database"]?.stringValue == "db")
        #expect(task?["error"]?.stringValue?.contains("cannot merge q") == true)
        let sequence = try Peers.call(peer, "GET", "/db").json?["update_seq"]
        // The same leaves replicated again, and an admin's request: no new revision, no new log line.
        #expect(try Peers.call(peer, "POST", "/db/_bulk_docs", Self.leaves).status == 201)
        let asked = try Peers.call(peer, "POST", "/db/_resolve_conflicts")
        #expect(asked.status == 200)
        #expect(asked.json?["resolved"]?.intValue == 0)
        #expect(asked.json?["remaining"]?.intValue == 1)
        #expect(asked.json?["failed"]?.arrayValue?.first?["id"]?.stringValue == "q")
        #expect(try Peers.call(peer, "GET", "/db").json?["update_seq"] == sequence)
        #expect(try Peers.winner(peer, "db", "q").conflicts.count == 1)
        // The log is read from the process's pipe on a thread of its own: wait for the line, then count.
        let logLines = { peer.output.components(separatedBy: "conflicts policy of _design/p failed").count - 1 }
        #expect(Peers.eventually { logLines() >= 1 })
        #expect(logLines() == 1)
    }

    @Test func aNonObjectOrTooSlowPolicyLeavesTheConflict() throws {
        let peers = try Peers(1, prefix: "badpolicy")
        defer { peers.stop() }
        let peer = peers.peers[0]
        #expect(try Peers.call(peer, "PUT", "/_node/_local/_config/couchdb/os_process_timeout", #""500""#).status == 200)
        let cases = [("number", "function(leaves, winner) { return 42; }", "returned number, not an object"),
                     ("slow", "function(leaves, winner) { while (true) {} }", "timed out")]
        for (db, source, reason) in cases {
            #expect(try Peers.call(peer, "PUT", "/\(db)").status == 201)
            #expect(try Peers.call(peer, "PUT", "/\(db)/_design/p", Self.ddoc(source)).status == 201)
            #expect(try Peers.call(peer, "POST", "/\(db)/_bulk_docs", Self.leaves).status == 201)
            let asked = try Peers.call(peer, "POST", "/\(db)/_resolve_conflicts")
            #expect(asked.json?["remaining"]?.intValue == 1, "\(db): \(asked.text)")
            let failure = asked.json?["failed"]?.arrayValue?.first?["reason"]?.stringValue ?? ""
            #expect(!failure.isEmpty && failure.contains(reason), "\(db): \(failure)")
            #expect(try Peers.winner(peer, db, "q").conflicts.count == 1)
        }
    }

    /// Malformed policies are refused when the design document is saved, as views are.
    @Test func malformedPoliciesAreRefusedAtSave() throws {
        let peers = try Peers(1, prefix: "malformed")
        defer { peers.stop() }
        let peer = peers.peers[0]
        #expect(try Peers.call(peer, "PUT", "/db").status == 201)
        let refused = [#"{"conflicts":"_merge"}"#, #"{"conflicts":{"policy":"_sum"}}"#,
                       #"{"conflicts":{"policy":"_max"}}"#, #"{"conflicts":{"policy":"_merge","order":"at"}}"#,
                       #"{"conflicts":{"policy":"_merge","key":""}}"#, #"{"conflicts":{"policy":"_winner","key":"id"}}"#,
                       #"{"conflicts":{"policy":7}}"#]
        for body in refused {
            let answer = try Peers.call(peer, "PUT", "/db/_design/p", body)
            #expect(answer.status == 400, "\(body)")
            #expect(answer.json?["error"]?.stringValue == "invalid_design_doc", "\(body)")
        }
        let syntax = try Peers.call(peer, "PUT", "/db/_design/p", ConflictPolicyFailureTests.ddoc("function(leaves) {"))
        #expect(syntax.status == 400)
        #expect(syntax.json?["error"]?.stringValue == "compilation_error")
        #expect(try Peers.call(peer, "GET", "/db/_design/p").status == 404)
    }
}
