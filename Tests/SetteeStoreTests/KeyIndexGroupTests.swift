import SetteeJSON
import Synchronization
import Testing
@testable import SetteeStore

/// `KeyIndexGroup`: indexes refreshed together from one cursor are mapped by one call a
/// batch (a design document's views, one JavaScript call for all of them); a member
/// refreshed alone, or from another cursor, is asked alone.
@Suite struct KeyIndexGroupTests {
    /// A group of two members that records the members each call asks for: member 0 keys
    /// documents by id, member 1 by `k` + id.
    final class Calls: Sendable {
        let members = Mutex<[[Int]]>([])
    }

    static func group(_ calls: Calls) -> (KeyIndex, KeyIndex) {
        let group = KeyIndexGroup { documents, members in
            calls.members.withLock { $0.append(members) }
            return members.map { member in
                documents.map { [KeyIndexEntry(key: Array(((member == 0 ? "" : "k") + $0.id).utf8), value: [])] }
            }
        }
        return (KeyIndex(signature: "9a01", group: group, member: 0), KeyIndex(signature: "9a02", group: group, member: 1))
    }

    static func keys(_ db: Database, _ index: KeyIndex) async throws -> [String] {
        try await db.indexPage(index, range: .all, descending: false, after: nil, limit: 1_000).map {
            String(decoding: $0.key, as: UTF8.self)
        }
    }

    @Test func membersAtOneCursorAreMappedByOneCallABatch() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try await BuildStagesTests.fill(db, 47)
        let calls = Calls()
        let (byID, byK) = Self.group(calls)
        try await db.refreshIndexes([byID, byK], batch: 5)
        #expect(calls.members.withLock { $0 } == Array(repeating: [0, 1], count: 10))
        let names = (0..<47).map { BuildStagesTests.name($0) }
        #expect(try await Self.keys(db, byID) == names)
        #expect(try await Self.keys(db, byK) == names.map { "k" + $0 })

        // Member 1 refreshed alone is asked alone; then the two stand at different
        // cursors, and each is asked for the documents it has not seen.
        for i in 47..<50 { _ = try await db.put(BuildStagesTests.name(i), "{}").get() }
        calls.members.withLock { $0 = [] }
        try await db.refreshIndex(byK, batch: 100)
        #expect(calls.members.withLock { $0 } == [[1]])
        _ = try await db.put("e000", "{}").get()
        calls.members.withLock { $0 = [] }
        try await db.refreshIndexes([byID, byK], batch: 100)
        #expect(calls.members.withLock { $0 } == [[0], [1]])
        #expect(try await Self.keys(db, byID) == (0..<50).map { BuildStagesTests.name($0) } + ["e000"])
        #expect(try await Self.keys(db, byK) == ((0..<50).map { BuildStagesTests.name($0) } + ["e000"]).map { "k" + $0 })
    }
}
