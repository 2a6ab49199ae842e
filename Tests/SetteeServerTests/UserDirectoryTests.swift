import Foundation
import Logging
import SetteeJSON
@testable import SetteeServer
import SetteeStore
import Testing

/// `UserDirectory`: the synchronous cache lookup never opens `_users` (a document GET is
/// authenticated on the event loop's thread, which must not wait for a file to open); the
/// async lookup opens it off the caller's thread.
@Suite struct UserDirectoryTests {
    @Test func theCacheLookupNeverOpensTheUsersDatabase() async throws {
        let path = NSTemporaryDirectory() + "settee-user-directory-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = StoreConfiguration(path: path)
        configuration.readerCount = 1
        let first = try DatabaseDirectory(configuration: configuration, logger: Logger(label: "test"))
        let users = try first.create("_users")
        let body = JSONWriter.serialize(["name": "bob", "roles": ["r"], "type": "user", "password_scheme": "simple",
                                         "salt": "s", "password_sha": "x"])
        _ = try await users.update([DocumentUpdate(id: "org.couchdb.user:bob", body: body)], newEdits: true)
        first.closeAll()

        // A directory over the same files, `_users` on disk and not opened yet.
        let directory = try DatabaseDirectory(configuration: configuration, logger: Logger(label: "test"))
        defer { directory.closeAll() }
        let userDirectory = UserDirectory(directory: directory)
        #expect(userDirectory.cached("bob") == nil)
        #expect(directory.openedDatabase(named: "_users") == nil)
        #expect(await userDirectory.credentials("bob")?.roles == ["r"])
        #expect(directory.openedDatabase(named: "_users") != nil)
        #expect(userDirectory.cached("bob")?.roles == ["r"])
    }
}
