import Foundation
@testable import SetteeServer
import SetteeHTTP
import SetteeJSON
import Testing

/// `SETTEE_ADMIN`'s admin: its PBKDF2 hash is derived when first needed, not at start, and
/// its own password logs in without one.
@Suite struct EnvironmentAdminTests {
    static let salt = PasswordHash.salt(for: "keeper", secret: "node secret")

    static func harness(_ admin: EnvironmentAdmin) throws -> RouterHarness {
        try RouterHarness { $0.environmentAdmins = ["keeper": admin] }
    }

    static func basic(_ password: String) -> String {
        "Basic " + Data("keeper:\(password)".utf8).base64EncodedString()
    }

    @Test func theGivenPasswordLogsInWithoutDerivingTheHash() async throws {
        let admin = EnvironmentAdmin(password: "given", salt: Self.salt, iterations: 1000)
        let harness = try Self.harness(admin)
        #expect(admin.knownHash == nil)
        for _ in 0..<2 {  // the second from the remembered header
            let reply = await harness.send("GET", "/_session", headers: ["Authorization": Self.basic("given")])
            #expect(reply.status == 200)
            #expect(reply.json["userCtx"]?["name"] == "keeper")
            #expect(reply.json["userCtx"]?["roles"] == ["_admin"])
        }
        #expect(admin.knownHash == nil)
    }

    @Test func aWrongPasswordIsCheckedAgainstTheDerivedHash() async throws {
        let admin = EnvironmentAdmin(password: "given", salt: Self.salt, iterations: 1000)
        let harness = try Self.harness(admin)
        let reply = await harness.send("GET", "/_session", headers: ["Authorization": Self.basic("wrong")])
        #expect(reply.status == 401)
        #expect(admin.knownHash == PasswordHash.hash(password: "given", salt: Self.salt, iterations: 1000))
    }

    /// A session cookie is keyed by the hash (the same at every start: SessionRestartTests).
    @Test func aSessionIsKeyedByTheDerivedHash() async throws {
        let admin = EnvironmentAdmin(password: "given", salt: Self.salt, iterations: 1000)
        let harness = try Self.harness(admin)
        let login = await harness.send("POST", "/_session", json: ["name": "keeper", "password": "given"], admin: false)
        #expect(login.status == 200)
        let expected = PasswordHash.hash(password: "given", salt: Self.salt, iterations: 1000)
        #expect(admin.knownHash == expected)
        let cookie = try #require(login.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
        let session = await harness.send("GET", "/_session", headers: ["Cookie": cookie], admin: false)
        #expect(session.json["userCtx"]?["name"] == "keeper")
    }

    @Test func aHashGivenIsUsedAsItIs() async throws {
        let hash = PasswordHash.hash(password: "given", iterations: 1000)
        let admin = EnvironmentAdmin(hash: hash)
        #expect(admin.knownHash == hash && !admin.isGivenPassword("given"))
        let harness = try Self.harness(admin)
        #expect(await harness.send("GET", "/_session", headers: ["Authorization": Self.basic("given")]).json["userCtx"]?["name"] == "keeper")
        #expect(await harness.send("GET", "/_session", headers: ["Authorization": Self.basic("other")]).status == 401)
    }

    @Test func comparesThePasswordWhole() {
        let admin = EnvironmentAdmin(password: "given", salt: Self.salt, iterations: 1000)
        #expect(admin.isGivenPassword("given"))
        for other in ["", "give", "given ", "Given", "givenx"] { #expect(!admin.isGivenPassword(other)) }
    }
}
