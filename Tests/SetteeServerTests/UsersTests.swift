import Foundation
@testable import SetteeServer
import SetteeHTTP
import SetteeJSON
import SetteeStore
import Testing

/// `_users`: the document rules and hashing (`UsersDatabasePolicy`), user
/// documents as credentials (`UserDirectory`), and logins through the router.
@Suite struct UsersTests {
    /// Written by Apache CouchDB 3.4.3 for alice / "wonderland" (PUT by an admin).
    static let couchDBAlice: JSONValue = [
        "password_scheme": "pbkdf2", "pbkdf2_prf": "sha256", "salt": "3eda589240c3b71f7e468be4198fc3bd",
        "iterations": 600000, "derived_key": "c95aed9ce53e423c7887f19fa53976b02a242922e4545399b82a8f57b73f1bfc",
        "name": "alice", "roles": [], "type": "user",
    ]

    private func revision(_ body: JSONValue) -> StoredRevision {
        StoredRevision(rev: RevisionID("1-a")!, isDeleted: false, sequence: 1, body: JSONWriter.serialize(body))
    }

    @Test func aUserDocumentWrittenByCouchDBLogsIn() throws {
        let credentials = try #require(UserDirectory.credentials(revision(Self.couchDBAlice)))
        #expect(PasswordHash.verify(password: "wonderland", against: credentials.hash))
        #expect(!PasswordHash.verify(password: "Wonderland", against: credentials.hash))
    }

    @Test func olderSchemesAreRead() throws {
        // CouchDB ≤ 3.3 wrote no pbkdf2_prf (SHA-1); 1.x "simple" was sha1(password ++ salt).
        let sha1Key = try #require(PasswordHash.derive(password: "pw", salt: "salt", prf: .sha, iterations: 10))
        let old: JSONValue = ["password_scheme": "pbkdf2", "salt": "salt", "iterations": 10, "derived_key": .string(sha1Key),
                              "name": "o", "roles": ["r"], "type": "user"]
        let credentials = try #require(UserDirectory.credentials(revision(old)))
        #expect(PasswordHash.verify(password: "pw", against: credentials.hash) && credentials.roles == ["r"])
        #expect(UserDirectory.credentials(revision(["name": "x", "roles": [], "type": "other"])) == nil)
    }

    @Test func aPasswordIsHashedBeforeTheWrite() throws {
        let update = DocumentUpdate(id: "org.couchdb.user:bob",
                                    body: JSONWriter.serialize(["name": "bob", "password": "pw", "roles": [], "type": "user"]))
        let prepared = try UsersDatabasePolicy().prepare(update, newEdits: true)
        let doc = try #require(try JSONReader.parse(prepared.body).objectValue)
        #expect(doc["password"] == nil && doc["pbkdf2_prf"] == "sha256" && doc["iterations"] == 600000)
        #expect(doc.keys.prefix(5) == ["password_scheme", "pbkdf2_prf", "salt", "iterations", "derived_key"])
        let credentials = try #require(UserDirectory.credentials(revision(.object(doc))))
        #expect(PasswordHash.verify(password: "pw", against: credentials.hash))
    }

    @Test(arguments: [
        (["name": "bob", "roles": [], "type": "admin"], "doc.type must be user"),
        (["roles": [], "type": "user"], "doc.name is required"),
        (["name": "bob", "type": "user"], "doc.roles must exist"),
        (["name": "bob", "roles": [1], "type": "user"], "doc.roles can only contain strings"),
        (["name": "eve", "roles": [], "type": "user"], "Doc ID must be of the form org.couchdb.user:name"),
    ] as [(JSONValue, String)])
    func userDocumentsAreChecked(body: JSONValue, reason: String) {
        let update = DocumentUpdate(id: "org.couchdb.user:bob", body: JSONWriter.serialize(body))
        #expect(throws: WriteRejection.forbidden(reason)) {
            try UsersDatabasePolicy().review(update, newEdits: true) { nil }
        }
    }

    /// CouchDB 3.4.3 answers these (checked on it): a password that is not a string is 403
    /// with Erlang's rendering of it; null is no password at all.
    @Test(arguments: [(JSONValue(integerLiteral: 123), "123"), (true, "true"), (["a", 1], #"[<<"a">>,1]"#),
                      (["k": 1], #"{[{<<"k">>,1}]}"#)] as [(JSONValue, String)])
    func aPasswordThatIsNotAStringIsRefused(password: JSONValue, shown: String) {
        let update = DocumentUpdate(id: "org.couchdb.user:bob", body: JSONWriter.serialize(
            ["name": "bob", "password": password, "roles": [], "type": "user"]))
        #expect(throws: WriteRejection.forbidden("Password value of '\(shown)' is invalid.")) {
            _ = try UsersDatabasePolicy().prepare(update, newEdits: true)
        }
        let unset = DocumentUpdate(id: "org.couchdb.user:bob", body: JSONWriter.serialize(
            ["name": "bob", "password": nil, "roles": [], "type": "user"]))
        #expect((try? UsersDatabasePolicy().prepare(unset, newEdits: true))?.body == unset.body)
    }

    @Test func passwordRequirementsApplyToNewPasswords() throws {
        let requirements = PasswordRequirements()
        requirements.set(#"[{".{6,}", "Six at least."}]"#)
        let policy = UsersDatabasePolicy(iterations: 10, requirements: requirements)
        func update(_ password: String) -> DocumentUpdate {
            DocumentUpdate(id: "org.couchdb.user:bob", body: JSONWriter.serialize(
                ["name": "bob", "password": .string(password), "roles": [], "type": "user"]))
        }
        _ = try policy.prepare(update("longer"), newEdits: true)
        #expect(throws: WriteRejection.refused(status: 400, error: "bad_request",
                                               reason: "Password does not conform to requirements. Six at least.")) {
            _ = try policy.prepare(update("short"), newEdits: true)
        }
    }

    /// CouchDB's function compares the id with `'org.couchdb.user:' + newDoc.name` first,
    /// then fails on a name that is not a string (500 TypeError there; 403 here).
    @Test(arguments: [
        ("org.couchdb.user:bob", JSONValue(integerLiteral: 1), "Doc ID must be of the form org.couchdb.user:name"),
        ("org.couchdb.user:1", 1, "doc.name must be a string"),
        ("org.couchdb.user:a,b", ["a", "b"], "doc.name must be a string"),
        ("org.couchdb.user:0", 0, "doc.name is required"),
    ] as [(String, JSONValue, String)])
    func namesThatAreNotStringsAreRefused(id: String, name: JSONValue, reason: String) {
        let update = DocumentUpdate(id: id, body: JSONWriter.serialize(["name": name, "roles": [], "type": "user"]))
        #expect(throws: WriteRejection.forbidden(reason)) {
            try UsersDatabasePolicy().review(update, newEdits: true) { nil }
        }
    }

    /// What a user may do to user documents where `_users` admits them (not by default).
    @Test func nonAdminsChangeOnlyTheirOwnDocumentAndNeverItsRoles() throws {
        let policy = UsersDatabasePolicy()
        let dave = WriterIdentity(name: "dave", roles: [], isDatabaseAdmin: false)
        func update(_ name: String, roles: [JSONValue], deleted: Bool = false) -> DocumentUpdate {
            DocumentUpdate(id: "org.couchdb.user:\(name)", body: JSONWriter.serialize([
                "name": .string(name), "roles": .array(roles), "type": "user"]), isDeleted: deleted)
        }
        func stored(_ name: String, roles: [JSONValue]) -> StoredRevision {
            revision(["name": .string(name), "roles": .array(roles), "type": "user"])
        }
        func review(_ u: DocumentUpdate, old: StoredRevision?) throws {
            try WriteContext.$writer.withValue(dave) { try policy.review(u, newEdits: true) { old } }
        }
        #expect(throws: WriteRejection.forbidden("Only _admin may set roles")) {
            try review(update("dave", roles: ["boss"]), old: nil)
        }
        try review(update("dave", roles: []), old: nil)  // signing up, where allowed
        #expect(throws: WriteRejection.forbidden("Only _admin may edit roles")) {
            try review(update("dave", roles: ["boss"]), old: stored("dave", roles: []))
        }
        try review(update("dave", roles: ["b", "a"]), old: stored("dave", roles: ["a", "b"]))
        #expect(throws: WriteRejection.forbidden("You may only update your own user document.")) {
            try review(update("erin", roles: []), old: stored("erin", roles: []))
        }
        #expect(throws: WriteRejection.forbidden("Only admins may delete other user docs.")) {
            try review(update("erin", roles: [], deleted: true), old: stored("erin", roles: []))
        }
        try review(update("dave", roles: [], deleted: true), old: stored("dave", roles: []))
    }

    /// `settee_pairing` opens a database whatever its `_security` says: only a server admin
    /// (or the server's own write, `.system`) may add, change or drop it (issue 46, item 1).
    @Test func onlyServerAdminsWriteAPairingGrant() throws {
        let policy = UsersDatabasePolicy()
        let grant: JSONValue = ["db": "secret", "expires": 9999999999, "uses": 100, "write_only": false]
        func update(_ pairing: JSONValue?) -> DocumentUpdate {
            var body: JSONObject = ["name": "mallory", "roles": [], "type": "user"]
            if let pairing { body.append("settee_pairing", pairing) }
            return DocumentUpdate(id: "org.couchdb.user:mallory", body: JSONWriter.serialize(.object(body)))
        }
        let stored = revision(["name": "mallory", "roles": [], "type": "user", "settee_pairing": grant])
        func review(_ writer: WriterIdentity?, _ u: DocumentUpdate, old: StoredRevision?, newEdits: Bool = true) throws {
            try WriteContext.$writer.withValue(writer) { try policy.review(u, newEdits: newEdits) { old } }
        }
        let mallory = WriterIdentity(name: "mallory", roles: [], isDatabaseAdmin: false)
        let anonymous = WriterIdentity(name: nil, roles: [], isDatabaseAdmin: false)
        let usersAdmin = WriterIdentity(name: "dba", roles: ["ops"], isDatabaseAdmin: true)
        let refusal = WriteRejection.forbidden("Only _admin may set settee_pairing")
        #expect(throws: refusal) { try review(anonymous, update(grant), old: nil) }
        #expect(throws: refusal) { try review(mallory, update(grant), old: revision(["name": "mallory", "roles": [], "type": "user"])) }
        #expect(throws: refusal) { try review(mallory, update(grant), old: nil, newEdits: false) }
        #expect(throws: refusal) { try review(usersAdmin, update(grant), old: nil) }
        #expect(throws: refusal) { try review(mallory, update(["db": "other", "expires": 1, "uses": 1]), old: stored) }
        // Dropping it would make a pairing user an unrestricted one.
        #expect(throws: refusal) { try review(mallory, update(nil), old: stored) }
        try review(mallory, update(grant), old: stored)  // kept as it is
        try review(WriterIdentity(name: "admin", roles: ["_admin"], isDatabaseAdmin: true), update(grant), old: nil)
        try review(.system, update(grant), old: nil)  // the node's own write
        #expect(throws: refusal) { try review(nil, update(grant), old: nil) }  // undeclared: anonymous
    }

    /// A user may not store a hash costlier to check than the server's own: each wrong
    /// password tried against it would cost the server that much.
    @Test func usersCannotMakeTheirHashCostlier() throws {
        let policy = UsersDatabasePolicy(iterations: 1000)
        func update(_ iterations: JSONValue) -> DocumentUpdate {
            DocumentUpdate(id: "org.couchdb.user:ned", body: JSONWriter.serialize([
                "name": "ned", "roles": [], "type": "user", "password_scheme": "pbkdf2", "salt": "s",
                "derived_key": "00", "iterations": iterations]))
        }
        func review(_ writer: WriterIdentity, _ u: DocumentUpdate, old: StoredRevision? = nil) throws {
            try WriteContext.$writer.withValue(writer) { try policy.review(u, newEdits: true) { old } }
        }
        let ned = WriterIdentity(name: "ned", roles: [], isDatabaseAdmin: false)
        for count in [1001, 10_000_000, 1e12] as [JSONValue] {
            #expect(throws: WriteRejection.forbidden("Iteration count is too high for this server")) {
                try review(ned, update(count))
            }
        }
        try review(ned, update(1000))
        try review(WriterIdentity(name: "admin", roles: ["_admin"], isDatabaseAdmin: true), update(50_000))
        // Kept as an admin wrote it.
        let stored = revision(["name": "ned", "roles": [], "type": "user", "password_scheme": "pbkdf2", "salt": "s",
                               "derived_key": "00", "iterations": 50_000])
        try review(ned, update(50_000), old: stored)
    }

    @Test func aNewPasswordEndsTheOldCookies() async throws {
        let harness = try RouterHarness()
        #expect(await harness.send("PUT", "/_users").status == 201)
        let key = try #require(PasswordHash.derive(password: "first", salt: "s1", prf: .sha256, iterations: 10))
        let doc: JSONValue = ["name": "carol", "roles": ["editor"], "type": "user", "password_scheme": "pbkdf2",
                              "pbkdf2_prf": "sha256", "salt": "s1", "iterations": 10, "derived_key": .string(key)]
        let created = await harness.send("PUT", "/_users/org.couchdb.user:carol", json: doc)
        #expect(created.status == 201)
        let login = await harness.send("POST", "/_session", json: ["name": "carol", "password": "first"], admin: false)
        #expect(login.status == 200 && login.json["roles"] == ["editor"])
        let cookie = try #require(login.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
        let before = await harness.send("GET", "/_session", headers: ["Cookie": cookie], admin: false)
        #expect(before.json["userCtx"]?["name"] == "carol" && before.json["userCtx"]?["roles"] == ["editor"])
        // An admin sets a new password: a new salt and key, and the cookie no longer verifies.
        var changed = try #require(doc.objectValue)
        changed["salt"] = "s2"
        changed["derived_key"] = .string(try #require(PasswordHash.derive(password: "second", salt: "s2", prf: .sha256,
                                                                          iterations: 10)))
        changed["_rev"] = created.json["rev"]
        #expect(await harness.send("PUT", "/_users/org.couchdb.user:carol", json: .object(changed)).status == 201)
        let after = await harness.send("GET", "/_session", headers: ["Cookie": cookie], admin: false)
        #expect(after.json["userCtx"]?["name"] == .null)
        let basic = "Basic " + Data("carol:second".utf8).base64EncodedString()
        #expect(await harness.send("GET", "/_session", headers: ["Authorization": basic], admin: false)
            .json["userCtx"]?["name"] == "carol")
        let wrong = "Basic " + Data("carol:first".utf8).base64EncodedString()
        #expect(await harness.send("GET", "/_session", headers: ["Authorization": wrong], admin: false).status == 401)
    }
}

/// `_replicate` by a user who is not a server admin.
@Suite struct ReplicateAccessTests {
    /// Creates `_users` and the user `rita` (password `pw`, no roles). - Returns: her Basic `Authorization`.
    static func addRita(_ harness: RouterHarness) async throws -> String {
        #expect(await harness.send("PUT", "/_users").status == 201)
        let key = try #require(PasswordHash.derive(password: "pw", salt: "s", prf: .sha256, iterations: 10))
        let doc: JSONValue = ["name": "rita", "roles": [], "type": "user", "password_scheme": "pbkdf2",
                              "pbkdf2_prf": "sha256", "salt": "s", "iterations": 10, "derived_key": .string(key)]
        #expect(await harness.send("PUT", "/_users/org.couchdb.user:rita", json: doc).status == 201)
        return "Basic " + Data("rita:pw".utf8).base64EncodedString()
    }

    @Test func localNamesAreForServerAdmins() async throws {
        let harness = try RouterHarness()
        let rita = try await Self.addRita(harness)
        #expect(await harness.send("PUT", "/secret").status == 201)
        let refused = await harness.send("POST", "/_replicate", json: ["source": "secret", "target": "mine"],
                                         headers: ["Authorization": rita, "Content-Type": "application/json"], admin: false)
        #expect(refused.status == 403 && refused.json["error"] == "forbidden")
        #expect(await harness.send("GET", "/mine").status == 404)
    }

    /// A `file://` endpoint (sneakernet) would open a directory of the server's machine.
    @Test func fileEndpointsAreForServerAdmins() async throws {
        let harness = try RouterHarness()
        let rita = try await Self.addRita(harness)
        let refused = await harness.send("POST", "/_replicate",
                                         json: ["source": "file:///tmp/settee-never-made/db", "target": "http://127.0.0.1:9/mine"],
                                         headers: ["Authorization": rita, "Content-Type": "application/json"], admin: false)
        #expect(refused.status == 403 && refused.json["error"] == "forbidden")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/settee-never-made"))
    }
}
