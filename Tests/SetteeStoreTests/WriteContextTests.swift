@testable import SetteeStore
import Testing

/// Design documents are written by database admins only, whichever write path
/// they come by (CouchDB's couch_db check); a write that declares no writer is anonymous.
@Suite struct WriteContextTests {
    @Test func designDocumentsNeedADatabaseAdmin() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let updates = [DocumentUpdate(id: "_design/app", body: bytes("{}")), DocumentUpdate(id: "plain", body: bytes("{}"))]
        let member = WriterIdentity(name: "mem", roles: [], isDatabaseAdmin: false)
        let results = try await WriteContext.$writer.withValue(member) { try await db.update(updates, newEdits: true) }
        #expect(results[0] == .failure(.rejected(.forbidden("You are not a db or server admin."))))
        #expect((try? results[1].get()) != nil)
        let anonymous = WriterIdentity(name: nil, roles: [], isDatabaseAdmin: false)
        let anonymousResult = try await WriteContext.$writer.withValue(anonymous) {
            try await db.update([updates[0]], newEdits: false)
        }
        #expect(anonymousResult[0] == .failure(.rejected(.unauthorized("You are not a db or server admin."))))
        let admin = WriterIdentity(name: "boss", roles: [], isDatabaseAdmin: true)
        #expect((try? (try await WriteContext.$writer.withValue(admin) { try await db.update([updates[0]], newEdits: true) })[0].get()) != nil)
        // A write that declares no writer is anonymous's, never an admin's (issue 43, item 6).
        let undeclared = try await db.update([DocumentUpdate(id: "_design/other", body: bytes("{}"))], newEdits: true)
        #expect(undeclared[0] == .failure(.rejected(.unauthorized("You are not a db or server admin."))))
        let system = try await WriteContext.$writer.withValue(.system) {
            try await db.update([DocumentUpdate(id: "_design/other", body: bytes("{}"))], newEdits: true)
        }
        #expect((try? system[0].get()) != nil)
    }
}
