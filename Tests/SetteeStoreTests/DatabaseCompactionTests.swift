import Testing
@testable import SetteeStore

@Suite struct DatabaseCompactionTests {
    @Test func compactionDropsNonLeafBodies() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"v":1}"#).get()
        let second = try await db.put("a", #"{"v":2}"#, base: first).get()
        try await db.compact()
        let old = try await db.document(id: "a", revisions: .revision(first))
        #expect(old?.revisions.first?.body == nil)
        #expect(old?.tree.node(first)?.hasBody == false)
        let current = try await db.document(id: "a", revisions: .winner)
        #expect(current?.revisions.first?.rev == second && current?.revisions.first?.body == bytes(#"{"v":2}"#))
    }

    @Test func backgroundCompactionFinishes() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        try await db.startCompaction()
        for _ in 0..<200 where try await db.info().isCompacting {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(try await db.info().isCompacting == false)
        _ = try await db.put("b")
        #expect(try await db.info().docCount == 2)
    }
}
