import Foundation
import Testing
@testable import SetteeStore

/// The cap on open databases (`[couchdb] max_dbs_open`): least recently used idle ones
/// close, handles kept elsewhere keep working, busy ones stay open, names lock alone.
@Suite struct OpenDatabasesTests {
    /// Whether `db` holds no connection once the work queued on it has run.
    static func isClosed(_ db: Database) -> Bool {
        db.readers.openConnections() == 0 && !db.writer.hasConnection()
    }

    @Test func pastTheCapTheLeastRecentlyUsedCloseAndEveryDatabaseStaysReadable() async throws {
        let store = try TestStore(maxOpenDatabases: 3)
        defer { store.remove() }
        for i in 0..<12 {
            let db = try store.directory.create("db\(i)")
            _ = try await db.put("doc", #"{"i":\#(i)}"#).get()
            #expect(store.directory.openCount <= 3)
        }
        for i in (0..<12).reversed() {
            let db = try #require(try await store.directory.open("db\(i)"))
            let body = try await db.document(id: "doc", revisions: .winner)?.revisions.first?.body
            #expect(body == bytes(#"{"i":\#(i)}"#))
            #expect(store.directory.openCount <= 3)
        }
        #expect(try store.directory.names().count == 12)
    }

    /// System databases are neither counted nor closed (CouchDB's couch_server makes no room for a `sys_db`).
    @Test func systemDatabasesAreNotCounted() async throws {
        let store = try TestStore(maxOpenDatabases: 1)
        defer { store.remove() }
        let users = try store.directory.create("_users")
        _ = try store.directory.create("a")
        _ = try store.directory.create("b")
        #expect(store.directory.openCount == 2)
        #expect(!Self.isClosed(users))
        #expect(try store.directory.database(named: "_users") === users)
    }

    /// A handle kept across the close (a feed, a replication, a request in flight) goes
    /// on working: its connections open again, it is the same object a lookup returns,
    /// and it counts as open again.
    @Test func aHandleKeptElsewhereReopensTransparently() async throws {
        let store = try TestStore(maxOpenDatabases: 1)
        defer { store.remove() }
        let kept = try store.directory.create("kept")
        _ = try await kept.put("a").get()
        _ = try store.directory.create("other")
        #expect(Self.isClosed(kept))
        _ = try await kept.put("b").get()
        #expect(try await kept.document(id: "a", revisions: .winner) != nil)
        #expect(try store.directory.database(named: "kept") === kept)
        #expect(store.directory.openCount == 1)
        let other = try #require(try store.directory.database(named: "other"))
        #expect(try await other.updateSequence() == 0)
        #expect(store.directory.openCount == 1)
    }

    /// A `_changes` feed parked on a database the cap closed still hears the next write:
    /// the write goes through a lookup to the same object, whose notifier the feed waits on.
    @Test func aFeedOnAClosedDatabaseHearsTheNextWrite() async throws {
        let store = try TestStore(maxOpenDatabases: 1)
        defer { store.remove() }
        let watched = try store.directory.create("watched")
        let sequence = try await watched.updateSequence()
        _ = try store.directory.create("other")
        #expect(Self.isClosed(watched))
        async let heard = watched.changesNotifier.wait(after: sequence, timeout: .seconds(30))
        let again = try #require(try await store.directory.open("watched"))
        #expect(again === watched)
        _ = try await again.put("new").get()
        #expect(await heard == sequence + 1)
        #expect(try await watched.changes(since: sequence, limit: 10, descending: false).map(\.id) == ["new"])
    }

    /// With every open database busy (here: an index refresh holds it), another is
    /// not opened: `all_dbs_active`, until one is idle again.
    @Test func whenEveryOpenDatabaseIsBusyOpeningAnotherFails() async throws {
        let store = try TestStore(maxOpenDatabases: 1)
        defer { store.remove() }
        let busy = try store.directory.create("busy")
        await busy.indexRefreshes.hold(["index"])
        #expect(throws: StoreError.allDatabasesActive(limit: 1)) { try store.directory.create("next") }
        #expect(!FileManager.default.fileExists(atPath: store.directory.filePath("next")))
        busy.indexRefreshes.release(["index"])
        _ = try store.directory.create("next")
        #expect(Self.isClosed(busy))
    }

    /// A deleted database's kept handle never makes its file anew.
    @Test func aKeptHandleOfADeletedDatabaseFindsItGone() async throws {
        let store = try TestStore(maxOpenDatabases: 1)
        defer { store.remove() }
        let kept = try store.directory.create("gone")
        _ = try store.directory.create("other")
        try store.directory.delete("gone")
        await #expect(throws: StoreError.databaseNotFound("gone")) { try await kept.put("x").get() }
        await #expect(throws: StoreError.databaseNotFound("gone")) { try await kept.updateSequence() }
        #expect(!FileManager.default.fileExists(atPath: store.directory.filePath("gone")))
        #expect(try store.directory.names() == ["other"])
    }

    /// The I/O of one name happens under that name's lock only: another database opens
    /// meanwhile (with one lock for the whole directory, as before, this never returned).
    @Test func oneNameLockedDoesNotHoldUpAnother() async throws {
        let store = try TestStore()
        defer { store.remove() }
        _ = try store.directory.create("a")
        _ = try store.directory.create("b")
        store.directory.closeAll()
        let opened = try store.directory.underNameLock("a") { _ in try store.directory.database(named: "b") }
        #expect(opened?.name == "b")
    }

    /// `open`, again while every open database is busy (`all_dbs_active` is the answer
    /// then, and a client retries), within a deadline.
    static func openRetrying(_ name: String, in directory: DatabaseDirectory) async throws -> Database {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try #require(try await directory.open(name))
            } catch StoreError.allDatabasesActive where ContinuousClock.now < deadline {
                await Task.yield()
            }
        }
    }

    /// Many requests to a few databases, under a cap that keeps closing them: every
    /// answer is right, and every write is kept.
    @Test func concurrentUseAcrossClosesKeepsEveryAnswer() async throws {
        let store = try TestStore(maxOpenDatabases: 2)
        defer { store.remove() }
        for i in 0..<6 { _ = try await store.directory.create("c\(i)").put("doc", #"{"i":\#(i)}"#).get() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<300 {
                let i = round % 6
                group.addTask {
                    let db = try await Self.openRetrying("c\(i)", in: store.directory)
                    let body = try await db.document(id: "doc", revisions: .winner)?.revisions.first?.body
                    #expect(body == bytes(#"{"i":\#(i)}"#))
                    if round % 5 == 0 { _ = try await db.put("w\(round)").get() }
                }
            }
            try await group.waitForAll()
        }
        var total = 0
        for i in 0..<6 {
            let db = try #require(try store.directory.database(named: "c\(i)"))
            total += Int(try await db.updateSequence())
        }
        #expect(total == 6 + 60)
    }
}
