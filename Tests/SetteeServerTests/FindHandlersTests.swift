import Foundation
import SetteeJSON
@testable import SetteeStore
import Testing
@testable import SetteeServer

/// `POST /{db}/_find` through the router when its index cannot be brought up to date.
@Suite struct FindHandlersTests {
    /// A refresh that fails (here a trigger on the index's table refuses every new entry,
    /// as a full disk would) answers 500 `index_update_failed` with the cause and the
    /// seq the index stays at, and the next `_find` tries again: once the cause is gone
    /// it answers every document (#47 item 1: not "could not be accessed" for good).
    @Test func aFailedIndexUpdateIsNamedAndRetried() async throws {
        let harness = try RouterHarness()
        #expect(await harness.send("PUT", "/db").status == 201)
        let docs: JSONValue = ["docs": .array((0..<5).map { ["_id": .string("d\($0)"), "n": .int($0)] })]
        #expect(await harness.send("POST", "/db/_bulk_docs", json: docs).status == 201)
        let index: JSONValue = ["index": ["fields": ["n"]], "ddoc": "a", "name": "by-n"]
        #expect(await harness.send("POST", "/db/_index", json: index).status == 200)
        let find: JSONValue = ["selector": ["n": ["$gte": 0]]]
        #expect(await harness.send("POST", "/db/_find", json: find).json["docs"]?.arrayValue?.count == 5)

        let file = harness.directoryURL.appendingPathComponent(DatabaseFileName.file(for: "db")).path
        let connection = try Connection(path: file)
        defer { connection.close() }
        var tables: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE name LIKE 'key_index_%' AND type = 'table'") { row in
            if let name = row.text(0) { tables.append(name) }
        }
        let table = try #require(tables.first)
        try connection.execute("CREATE TRIGGER refuse BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, 'no room'); END")
        #expect(await harness.send("PUT", "/db/d5", json: ["n": 5]).status == 201)  // seq 7; the design document took 6
        let failed = await harness.send("POST", "/db/_find", json: find)
        #expect(failed.status == 500)
        #expect(failed.json["error"] == "index_update_failed")
        let reason = failed.json["reason"]?.stringValue ?? ""
        #expect(reason.contains("_design/a/by-n") && reason.contains("no room") && reason.contains("update seq 6"), "\(reason)")

        try connection.execute("DROP TRIGGER refuse")
        let retried = await harness.send("POST", "/db/_find", json: find)
        #expect(retried.status == 200)
        #expect(retried.json["docs"]?.arrayValue?.count == 6)
    }
}
