import Foundation
import Glibc
import SetteeJSON
import SetteeTestSupport
import Testing

/// `_replicator` opened to users (an empty `_security`): each sees their own
/// replication documents whole and others' without credentials. Every answer below is
/// what Apache CouchDB 3.4.3 gave for the same requests on this machine (2026-11-25):
/// userinfo cut from URLs, `headers` dropped from endpoint objects, listings 401.
@Suite(.serialized) struct ReplicatorReadRuleTests {
    @Test func othersReplicationDocumentsAreShownWithoutCredentials() throws {
        let dir = try TempDirectory(prefix: "replicator-read")
        let settee = try SetteeProcess.start(dataDirectory: dir.path)
        defer { settee.kill(SIGKILL) }
        let admin = SetteeProcess.defaultAdmin
        let asAdmin = (admin.name, admin.password)
        let call = { (method: String, path: String, user: (String, String)?, json: String?) in
            try UsersSignupTests.call(settee, method, path, user: user, json: json)
        }
        #expect(try call("PUT", "/_users/org.couchdb.user:ruth", asAdmin,
                         #"{"name":"ruth","password":"apple","roles":[],"type":"user"}"#).status == 201)
        #expect(try call("PUT", "/_replicator/_security", asAdmin,
                         #"{"admins":{"names":[],"roles":[]},"members":{"names":[],"roles":[]}}"#).status == 200)
        let secret = "http://u:secret@127.0.0.1:1/a"
        #expect(try call("PUT", "/_replicator/mine", ("ruth", "apple"),
                         #"{"source":"\#(secret)","target":"\#(secret)"}"#).status == 201)
        #expect(try call("PUT", "/_replicator/admins", asAdmin,
                         #"{"source":"\#(secret)","target":{"url":"http://127.0.0.1:1/b","headers":{"Authorization":"Basic eHl6"}}}"#).status == 201)

        let own = try call("GET", "/_replicator/mine", ("ruth", "apple"), nil).json
        #expect(own?["source"]?.stringValue == secret)
        #expect(own?["owner"]?.stringValue == "ruth")
        for reader in [("ruth", "apple"), nil] as [(String, String)?] {
            let other = try call("GET", "/_replicator/admins", reader, nil).json
            #expect(other?["source"]?.stringValue == "http://127.0.0.1:1/a")
            #expect(other?["target"]?["url"]?.stringValue == "http://127.0.0.1:1/b")
            #expect(other?["target"]?["headers"] == nil)
            let bulk = try call("POST", "/_replicator/_bulk_get", reader, #"{"docs":[{"id":"admins"}]}"#).json
            let entry = bulk?["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["ok"]
            #expect(entry?["source"]?.stringValue == "http://127.0.0.1:1/a")
            #expect(entry?["target"]?["headers"] == nil)
            for path in ["/_replicator/_all_docs", "/_replicator/_changes"] {
                let listing = try call("GET", path, reader, nil)
                #expect(listing.status == 401 && listing.json?["reason"]?.stringValue == "You are not a server admin.")
            }
        }
        // Names of this server's databases would bypass every access check: server admins only.
        let local = try call("PUT", "/_replicator/local", ("ruth", "apple"), #"{"source":"_users","target":"stolen"}"#)
        #expect(local.status == 403)
        #expect(try call("PUT", "/_replicator/local", asAdmin, #"{"source":"a","target":"b"}"#).status == 201)
        // The server admin sees everything whole.
        let whole = try call("GET", "/_replicator/admins", asAdmin, nil).json
        #expect(whole?["source"]?.stringValue == secret && whole?["target"]?["headers"] != nil)
    }
}
