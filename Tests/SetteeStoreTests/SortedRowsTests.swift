import SetteeJSON
import Testing
@testable import SetteeStore

/// `SortedRows`: a first build's entries inserted in key order hold exactly what inserting
/// them document by document holds: each key with its document and value, keys that are
/// prefixes of others, bytes above 0x7F, empty values.
@Suite struct SortedRowsTests {
    /// Entries of document `n`: keys out of document order, some a prefix of another.
    static func entries(_ document: KeyIndexDocument) -> [KeyIndexEntry] {
        let n = Int(document.id.dropFirst()) ?? 0
        let key: [UInt8] = [UInt8((n * 37) % 11), 0xF0 &+ UInt8(n % 3)] + Array(document.id.utf8)
        let value: [UInt8] = n % 4 == 0 ? [] : Array("v\(n)".utf8)
        return [KeyIndexEntry(key: key, value: value), KeyIndexEntry(key: Array(key.prefix(1)) + Array(document.id.utf8), value: value)]
    }

    static func rows(_ db: Database, _ index: KeyIndex) async throws -> [String] {
        try await db.indexPage(index, range: .all, descending: false, after: nil, limit: 1_000).map {
            "\($0.key) \($0.id) \($0.value)"
        }
    }

    @Test func aFirstBuildHoldsWhatDocumentByDocumentHolds() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let byDocument = KeyIndex(signature: "50a1", entries: Self.entries)
        for n in 0..<60 {
            _ = try await db.put("d\(n)", #"{"n":\#(n)}"#).get()
            try await db.refreshIndex(byDocument, batch: 1)  // an index with rows already: no SortedRows
        }
        let firstBuild = KeyIndex(signature: "50a2", entries: Self.entries)
        try await db.refreshIndex(firstBuild, batch: 7)
        let built = try await Self.rows(db, firstBuild)
        #expect(built.count == 120)
        #expect(built == (try await Self.rows(db, byDocument)))
    }

    @Test func rowsOfAGroupOfRunsAreSortedAsSQLiteComparesBlobs() {
        let documents = (0..<9).map { KeyIndexDocument(id: "d\($0)", rev: RevisionID(generation: 1, suffix: "a"), body: []) }
        let changes = documents.enumerated().map { KeyIndexBatch.Change(rowID: Int64($0.offset + 1), planned: Int64($0.offset + 1), document: $0.element) }
        let run = PreparedRun(batch: KeyIndexBatch(changes: changes, purgeSeq: 0), entries: [documents.map(Self.entries)])
        var rows = SortedRows()
        rows.add(run, 0, after: 0, skipping: [2])
        let keys = rows.keysInOrder
        #expect(keys.count == 16)
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(Set(keys) == Set(documents.enumerated().filter { $0.offset != 1 }.flatMap { Self.entries($0.element).map(\.key) }))
    }
}
