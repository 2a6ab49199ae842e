@testable import SetteeStore
import Testing

@Suite struct DocumentRecordsTests {
    /// What one document read gives, as comparable values.
    struct Read: Equatable, Sendable {
        let rowID: Int64
        let sequence: Int64
        let winner: RevisionID?
        let isDeleted: Bool
        let nodes: Set<RevisionTree.Node>
        let winnerBody: [UInt8]?
        let hasAttachments: Bool?

        init(_ read: DocumentWithWinner) {
            rowID = read.record.rowID
            sequence = read.record.sequence
            winner = read.record.winner
            isDeleted = read.record.isDeleted
            nodes = Set(read.tree.nodes.values)
            winnerBody = read.winner?.body
            hasAttachments = read.winner?.hasAttachments
        }
    }

    /// A database of `count` documents "d0"…: every seventh in conflict, every fifth
    /// deleted on a branch, every eleventh with an attachment, the rest one revision.
    func database(_ store: TestStore, count: Int) async throws -> Database {
        let db = try store.directory.create("db")
        let attachment = try await db.storeAttachment(name: "a.bin", contentType: "application/octet-stream",
                                                      bytes: [1, 2, 3])
        for i in 0..<count {
            let id = "d\(i)"
            if i % 11 == 0 {
                _ = try await db.update([DocumentUpdate(id: id, body: bytes(#"{"a":\#(i)}"#), baseRevision: nil,
                                                        attachments: [.new(attachment)])], newEdits: true)[0].get()
            } else {
                _ = try await db.force(id, ["2-b\(i)", "1-a"], #"{"i":\#(i)}"#).get()
            }
            if i % 7 == 0 { _ = try await db.force(id, ["2-c\(i)", "1-a"], #"{"c":\#(i)}"#).get() }
            if i % 5 == 0 { _ = try await db.force(id, ["3-d\(i)", "2-b\(i)", "1-a"], deleted: true).get() }
        }
        return db
    }

    /// `documentsTreesAndWinners` and `documentsAndTrees` read many ids in a statement per
    /// 256 (padded with NULLs): each id must get what the one-document reads give it,
    /// across statements, for ids asked twice, and never an entry for an id never written.
    /// So must the grouping by `docs` row that a chunk whose rows came apart is read with.
    @Test(arguments: [0, 1, 3, 4, 5, 17, 256, 300, 600])
    func manyDocumentsReadAsEachAlone(asked: Int) async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try await database(store, count: 300)
        // Ids of written documents, never-written ones and repeats, in no order.
        let ids = (0..<asked).map { i in i % 9 == 4 ? "missing\(i)" : "d\((i * 37) % 320)" }
        let (many, manyTrees, alone, aloneTrees, grouped) = try await db.readers.read { connection in
            let many = try DocumentRecords.documentsTreesAndWinners(connection, ids: ids).mapValues(Read.init)
            let manyTrees = try DocumentRecords.documentsAndTrees(connection, ids: ids).mapValues(Read.init)
            var grouped: [String: DocumentWithWinner] = [:]
            for start in stride(from: 0, to: ids.count, by: DocumentRecords.idsPerStatement) {
                let chunk = ids[start..<min(ids.count, start + DocumentRecords.idsPerStatement)]
                try DocumentRecords.readChunkGrouped(connection, chunk, withWinner: true, into: &grouped)
            }
            var alone: [String: Read] = [:]
            var aloneTrees: [String: Read] = [:]
            for id in ids {
                alone[id] = try DocumentRecords.documentTreeAndWinner(connection, id: id).map(Read.init)
                aloneTrees[id] = try DocumentRecords.documentAndTree(connection, id: id)
                    .map { Read(DocumentWithWinner(record: $0.record, tree: $0.tree, winner: nil)) }
            }
            return (many, manyTrees, alone, aloneTrees, grouped.mapValues(Read.init))
        }
        #expect(many == alone)
        #expect(grouped == alone)
        #expect(manyTrees == aloneTrees)
        #expect(Set(many.keys) == Set(ids.filter { !$0.hasPrefix("missing") && (Int($0.dropFirst()) ?? 0) < 300 }))
        if asked >= 300 {
            // The shapes the database was made with all came back: conflicts, deletions, attachments.
            #expect(many.values.contains { $0.nodes.count == 4 })
            #expect(many.values.contains { $0.hasAttachments == true })
            #expect(many.values.contains { $0.isDeleted == false && $0.nodes.contains { $0.isDeleted } })
        }
    }
}
