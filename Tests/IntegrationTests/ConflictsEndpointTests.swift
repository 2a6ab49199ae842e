import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// `GET /{db}/_conflicts` on the real binary: the documents in conflict as replicated
/// writes make them and edits resolve them, for database admins only; and
/// `settee conflicts` printing the same list.
@Suite(.serialized) struct ConflictsEndpointTests {
    static func call(_ settee: SetteeProcess, _ method: String, _ path: String, user: (String, String)?,
                     json: String? = nil) throws -> TestResponse {
        try UsersSignupTests.call(settee, method, path, user: user, json: json)
    }

    @Test func listsConflictsUntilResolvedForAdminsOnly() throws {
        let dir = try TempDirectory(prefix: "conflicts")
        let settee = try SetteeProcess.start(dataDirectory: dir.appending("data"))
        defer { settee.kill(SIGKILL) }
        let admin = (SetteeProcess.defaultAdmin.name, SetteeProcess.defaultAdmin.password)
        #expect(try Self.call(settee, "PUT", "/db", user: admin).status == 201)
        #expect(try Self.call(settee, "PUT", "/_users/org.couchdb.user:mia", user: admin,
                              json: #"{"name":"mia","password":"pw","roles":[],"type":"user"}"#).status == 201)
        #expect(try Self.call(settee, "PUT", "/db/_security", user: admin,
                              json: #"{"members":{"names":["mia"]}}"#).status == 200)
        let docs = (0..<5).map { #"{"_id":"d\#($0)","_rev":"1-\#(String(repeating: "a", count: 32))","side":"a"}"# }
            + (0..<3).map { #"{"_id":"d\#($0)","_rev":"1-\#(String(repeating: "b", count: 32))","side":"b"}"# }
        #expect(try Self.call(settee, "POST", "/db/_bulk_docs", user: admin,
                              json: #"{"new_edits":false,"docs":[\#(docs.joined(separator: ","))]}"#).status == 201)
        let listed = try Self.call(settee, "GET", "/db/_conflicts", user: admin)
        #expect(listed.status == 200)
        #expect(listed.json?["total_rows"]?.intValue == 3)
        let rows = listed.json?["rows"]?.arrayValue ?? []
        #expect(rows.compactMap { $0["id"]?.stringValue } == ["d0", "d1", "d2"])
        #expect(rows.first?["rev"]?.stringValue == "1-" + String(repeating: "b", count: 32))
        #expect(rows.first?["conflicts"]?.arrayValue?.compactMap(\.stringValue) == ["1-" + String(repeating: "a", count: 32)])
        let page = try Self.call(settee, "GET", "/db/_conflicts?startkey=%22d1%22&limit=1", user: admin)
        #expect(page.json?["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["d1"])
        // Resolving d0 (deleting its losing leaf) takes it off the list.
        let loser = "1-" + String(repeating: "a", count: 32)
        #expect(try Self.call(settee, "DELETE", "/db/d0?rev=\(loser)", user: admin).status == 200)
        let after = try Self.call(settee, "GET", "/db/_conflicts", user: admin)
        #expect(after.json?["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["d1", "d2"])
        // A member may read the documents but not list the conflicts; nobody anonymous either.
        #expect(try Self.call(settee, "GET", "/db/d1", user: ("mia", "pw")).status == 200)
        #expect(try Self.call(settee, "GET", "/db/_conflicts", user: ("mia", "pw")).status == 403)
        #expect(try Self.call(settee, "GET", "/db/_conflicts", user: nil).status == 401)

        // `settee conflicts`: the same list from the running server, then from the file.
        var url = URLComponents(url: settee.baseURL, resolvingAgainstBaseURL: false)!
        (url.user, url.password, url.path) = (admin.0, admin.1, "/db")
        let expected = ["d1", "d2"].map { "\($0) 1-\(String(repeating: "b", count: 32)) \(loser)" }
        let fromServer = try PairingTests.settee(["conflicts", url.string!])
        #expect(fromServer.status == 0, "\(fromServer.errors)")
        #expect(fromServer.output.split(separator: "\n").map(String.init) == expected)
        settee.kill(SIGKILL)
        _ = try settee.waitForExit()
        let fromFile = try PairingTests.settee(["conflicts", "db", "--data-dir", dir.appending("data")])
        #expect(fromFile.status == 0, "\(fromFile.errors)")
        #expect(fromFile.output.split(separator: "\n").map(String.init) == expected)
    }
}
