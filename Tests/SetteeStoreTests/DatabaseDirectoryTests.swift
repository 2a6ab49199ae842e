import Foundation
import Testing
@testable import SetteeStore

@Suite struct DatabaseDirectoryTests {
    @Test func createListDelete() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let directory = store.directory
        _ = try directory.create("b/c")
        _ = try directory.create("a$(x)+y")
        _ = try directory.create("a-b")
        #expect(try directory.names() == ["a$(x)+y", "a-b", "b/c"])
        #expect(throws: StoreError.databaseExists("a-b")) { try directory.create("a-b") }
        #expect(throws: StoreError.invalidDatabaseName("_userz")) { try directory.create("_userz") }
        #expect(throws: StoreError.invalidDatabaseName("Abc")) { try directory.create("Abc") }
        #expect(try directory.database(named: "b/c") === directory.database(named: "b/c"))
        #expect(try directory.database(named: "zz") == nil)
        try directory.delete("b/c")
        #expect(try directory.names() == ["a$(x)+y", "a-b"])
        #expect(throws: StoreError.databaseNotFound("b/c")) { try directory.delete("b/c") }
    }

    /// The async forms run the same rules off the caller's thread.
    @Test func createOpenAndDeleteFromAsyncCode() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let created = try await store.directory.create(named: "a")
        #expect(try await store.directory.open("a") === created)
        await #expect(throws: StoreError.databaseExists("a")) { _ = try await store.directory.create(named: "a") }
        try await store.directory.delete(named: "a")
        #expect(try await store.directory.open("a") == nil)
        await #expect(throws: StoreError.databaseNotFound("a")) { try await store.directory.delete(named: "a") }
    }

    /// CouchDB's rule (couch_db `validate_dbname`): the pattern, or a system database.
    @Test func namesAreCouchDBs() {
        for name in ["_users", "_replicator", "_global_changes", "_metadata", "_nodes", "_dbs", "app/_users",
                     "a", "a.1234567890", "a/b$()+-_9"] {
            #expect(DatabaseName.isValid(name), "\(name)")
        }
        for name in ["", "_userz", "_users/_users", "Foo/_users", "9a", "a.123", "a.", "a b", "é",
                     String(repeating: "a", count: 239)] {
            #expect(!DatabaseName.isValid(name), "\(name)")
        }
    }

    @Test func fileNamesRoundTrip() {
        for name in ["a", "a/b", "x$()+-_9"] {
            let file = DatabaseFileName.file(for: name)
            #expect(!file.contains("/"))
            #expect(DatabaseFileName.name(fromFile: file) == name)
        }
        #expect(DatabaseFileName.name(fromFile: "notes.txt") == nil)
    }

    /// Closing folds the WAL into the file: a stopped server leaves one file per database.
    @Test func closeAllCheckpointsAndReopens() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a", #"{"v":1}"#)
        _ = try await db.document(id: "a", revisions: .winner)
        let file = store.path + "/" + DatabaseFileName.file(for: "db")
        #expect(FileManager.default.fileExists(atPath: file + "-wal"))
        store.directory.closeAll()
        #expect(!FileManager.default.fileExists(atPath: file + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: file + "-shm"))
        let reopened = try #require(try store.directory.database(named: "db"))
        #expect(try await reopened.document(id: "a", revisions: .winner)?.revisions.first?.body == bytes(#"{"v":1}"#))
    }

    @Test func dataSurvivesReopen() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"kept":true}"#).get()
        _ = try await db.putLocal(id: "l", body: bytes("{}"), rev: nil, isDeleted: false)
        try await db.setRevsLimit(7)
        db.close()
        let reopened = try #require(try store.reopen().database(named: "db"))
        let document = try await reopened.document(id: "a", revisions: .winner)
        #expect(document?.revisions.first?.rev == first)
        #expect(document?.revisions.first?.body == bytes(#"{"kept":true}"#))
        #expect(try await reopened.localDocument(id: "l")?.rev == "0-1")
        #expect(try await reopened.revsLimit() == 7)
        #expect(try await reopened.updateSequence() == 1)
    }

    /// A file from a newer Settee (a schema version past ours) is refused, not written
    /// with code that does not know its columns.
    @Test func aFileOfANewerSchemaIsRefused() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        let newer = Schema.migrations.count + 1
        try await db.writer.withoutTransaction { try $0.execute("PRAGMA user_version = \(newer)") }
        db.close()
        #expect {
            _ = try store.reopen().database(named: "db")
        } throws: { error in
            guard case .newerSchema(_, let version, let supported) = error as? StoreError else { return false }
            return version == newer && supported == Schema.migrations.count
        }
    }
}
