import Testing
@testable import SetteeStore

@Suite struct DatabaseLocalDocumentsTests {
    @Test func localRevisionsCountUpWithoutChecks() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        #expect(try await db.putLocal(id: "cp", body: bytes("{}"), rev: nil, isDeleted: false) == "0-1")
        #expect(try await db.putLocal(id: "cp", body: bytes(#"{"s":1}"#), rev: "0-1", isDeleted: false) == "0-2")
        #expect(try await db.putLocal(id: "cp", body: bytes(#"{"s":2}"#), rev: nil, isDeleted: false) == "0-1")
        let document = try #require(try await db.localDocument(id: "cp"))
        #expect(document.rev == "0-1" && document.body == bytes(#"{"s":2}"#))
        #expect(try await db.changes(since: 0, limit: nil, descending: false).isEmpty)
        #expect(try await db.allDocs(AllDocsQuery()).totalRows == 0)
        #expect(try await db.putLocal(id: "cp", body: [], rev: "0-1", isDeleted: true) == "0-0")
        #expect(try await db.localDocument(id: "cp") == nil)
        await #expect(throws: StoreError.documentNotFound(reason: "missing")) {
            try await db.putLocal(id: "cp", body: [], rev: nil, isDeleted: true)
        }
    }

    @Test func localDocumentRanges() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for id in ["b", "a", "c"] { _ = try await db.putLocal(id: id, body: bytes("{}"), rev: nil, isDeleted: false) }
        var query = AllDocsQuery()
        query.startKey = "b"
        #expect(try await db.localDocuments(query).map(\.id) == ["b", "c"])
        query = AllDocsQuery()
        query.keys = ["c", "x", "a"]
        #expect(try await db.localDocuments(query).map(\.id) == ["c", "a"])
    }
}
