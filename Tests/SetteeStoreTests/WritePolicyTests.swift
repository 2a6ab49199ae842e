import Testing
@testable import SetteeStore

/// The write funnel's policy hook: a refused update stores nothing, the others
/// in its batch are written, and the rule sees the document as stored.
@Suite struct WritePolicyTests {
    /// Refuses ids starting with `x`, and any edit of a document whose stored body says `"locked":true`.
    struct Rule: WritePolicy {
        func review(_ update: DocumentUpdate, newEdits: Bool,
                    current: () throws -> StoredRevision?) throws(WriteRejection) {
            if update.id.hasPrefix("x") { throw .forbidden("no x") }
            let stored = try? current()
            if let body = stored?.body, String(decoding: body, as: UTF8.self).contains("\"locked\":true") {
                throw .unauthorized("locked")
            }
        }
    }

    @Test func refusedUpdatesStoreNothingAndTheRestAreWritten() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let results = try await db.update([
            DocumentUpdate(id: "a", body: bytes("{}")),
            DocumentUpdate(id: "xa", body: bytes("{}")),
            DocumentUpdate(id: "b", body: bytes("{}")),
        ], newEdits: true, policy: Rule())
        #expect(results.count == 3)
        #expect((try? results[0].get()) != nil)
        #expect(results[1] == .failure(.rejected(.forbidden("no x"))))
        #expect((try? results[2].get()) != nil)
        #expect(try await db.document(id: "xa", revisions: .winner) == nil)
        #expect(try await db.changes(since: 0, limit: nil, descending: false).map(\.id) == ["a", "b"])
        // Replicated writes go through the same funnel.
        let replicated = try await db.update([DocumentUpdate(id: "xr", body: bytes("{}"), history: [rev("1-abc")])],
                                             newEdits: false, policy: Rule())
        #expect(replicated == [.failure(.rejected(.forbidden("no x")))])
    }

    /// Refuses writers that are not database admins: reads `WriteContext.writer`.
    struct AdminsOnly: WritePolicy {
        func review(_ update: DocumentUpdate, newEdits: Bool,
                    current: () throws -> StoredRevision?) throws(WriteRejection) {
            if let writer = WriteContext.writer, !writer.isDatabaseAdmin { throw .forbidden("admins only") }
        }
    }

    /// The batch is committed by the database's writer, outside the request's task:
    /// the rule must still see who writes (an anonymous `_users` sign-up once slipped
    /// through as trusted because it did not).
    @Test func theRuleSeesTheWriterThoughTheBatchIsCommittedElsewhere() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let anonymous = WriterIdentity(name: nil, roles: [], isDatabaseAdmin: false)
        let refused = try await WriteContext.$writer.withValue(anonymous) {
            try await db.update([DocumentUpdate(id: "a", body: bytes("{}"))], newEdits: true, policy: AdminsOnly())
        }
        #expect(refused == [.failure(.rejected(.forbidden("admins only")))])
        let admin = WriterIdentity(name: "boss", roles: [], isDatabaseAdmin: true)
        let written = try await WriteContext.$writer.withValue(admin) {
            try await db.update([DocumentUpdate(id: "a", body: bytes("{}"))], newEdits: true, policy: AdminsOnly())
        }
        #expect((try? written[0].get()) != nil)
    }

    @Test func theRuleSeesTheStoredWinner() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("doc", #"{"locked":true}"#).get()
        let refused = try await db.update([DocumentUpdate(id: "doc", body: bytes("{}"), baseRevision: first)],
                                          newEdits: true, policy: Rule())
        #expect(refused == [.failure(.rejected(.unauthorized("locked")))])
        #expect(try await db.document(id: "doc", revisions: .winner)?.revisions.first?.rev == first)
        // Without a policy the same write goes through.
        #expect((try? await db.put("doc", "{}", base: first).get()) != nil)
    }
}

/// `_db_updates` is recorded by the store where databases change.
@Suite struct DatabaseEventsTests {
    @Test func createWriteAndDeleteAreRecordedWithoutHTTP() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let directory = store.directory
        let db = try directory.create("db")
        _ = try await db.put("a").get()
        // A write that changes nothing (a revision already stored) records no event.
        _ = try await db.update([DocumentUpdate(id: "r", body: bytes("{}"), history: [rev("1-abc")])], newEdits: false)
        let beforeNoop = directory.updates.sequence
        _ = try await db.update([DocumentUpdate(id: "r", body: bytes("{}"), history: [rev("1-abc")])], newEdits: false)
        #expect(directory.updates.sequence == beforeNoop)
        // A read records nothing.
        _ = try await db.document(id: "a", revisions: .winner)
        #expect(directory.updates.sequence == beforeNoop)
        try directory.delete("db")
        let kinds = directory.updates.updates(after: 0).updates.map { "\($0.kind.rawValue) \($0.databaseName)" }
        #expect(kinds == ["created db", "updated db", "updated db", "deleted db"])
    }
}
