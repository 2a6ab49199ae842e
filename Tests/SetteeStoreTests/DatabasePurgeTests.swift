import Testing
@testable import SetteeStore

/// `_purge` in the store: leaves only, branches to where they join, the winner
/// chosen again, counts and seqs kept right, blobs gone at the next compaction.
@Suite struct DatabasePurgeTests {
    @Test func purgingALeafKeepsTheRestAndRechoosesTheWinner() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.force("d", ["2-bb", "1-aa"], #"{"v":"b"}"#).get()
        _ = try await db.force("d", ["2-cc", "1-aa"], #"{"v":"c"}"#).get()
        _ = try await db.force("d", ["3-dd", "2-cc", "1-aa"], #"{"v":"d"}"#).get()
        let seqBefore = try await db.updateSequence()
        let purged = try await db.purge([(id: "d", revisions: [rev("2-cc"), rev("3-dd")])])
        // 2-cc is no leaf (3-dd is its child), so only 3-dd is purged; its branch goes
        // with it down to where 2-bb's history joins (couch_key_tree:remove_leafs).
        #expect(purged == [Database.Purged(id: "d", revisions: [rev("3-dd")])])
        let document = try #require(try await db.document(id: "d", revisions: .winner))
        #expect(document.tree.leaves.map(\.rev) == [rev("2-bb")])
        #expect(Set(document.tree.nodes.keys) == [rev("2-bb"), rev("1-aa")])
        #expect(document.revisions.first?.body == bytes(#"{"v":"b"}"#))
        let change = try #require(try await db.changes(since: 0, limit: nil, descending: false).first)
        #expect(change.sequence == seqBefore + 1)
        #expect(try await db.info().purgeSeq == 1)
        #expect(try await db.info().docCount == 1)
    }

    @Test func purgingEveryLeafRemovesTheDocumentAndItsCounts() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"x":"0123456789"}"#).get()
        let deleted = try await db.put("gone", base: nil).get()
        _ = try await db.put("gone", base: deleted, deleted: true).get()
        let externalBefore = try await db.info().externalSize
        let purged = try await db.purge([(id: "a", revisions: [first]), (id: "nope", revisions: [rev("1-x")])])
        #expect(purged.map(\.revisions) == [[first], []])
        #expect(try await db.document(id: "a", revisions: .winner) == nil)
        let info = try await db.info()
        #expect(info.docCount == 0 && info.deletedDocCount == 1)
        #expect(info.externalSize < externalBefore)
        #expect(info.purgeSeq == 2)
        // The id can be written again as a new document.
        #expect((try? await db.put("a").get())?.generation == 1)
    }

    @Test func attachmentBlobsGoAtTheNextCompaction() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let stored = try await db.storeAttachment(name: "a.bin", contentType: "application/octet-stream", bytes: [1, 2, 3])
        let rev = try await db.update([DocumentUpdate(id: "d", body: bytes("{}"), attachments: [.new(stored)])],
                                      newEdits: true)[0].get()
        _ = try await db.purge([(id: "d", revisions: [rev])])
        #expect(try db.blobs.keys() == [stored.digest])
        try await db.compact()
        #expect(try db.blobs.keys().isEmpty)
    }

    @Test func theLogKeepsTheLimit() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try await db.setPurgedInfosLimit(2)
        for n in 0..<4 { _ = try await db.purge([(id: "d\(n)", revisions: [rev("1-x\(n)")])]) }
        #expect(try await db.purgedInfos().map(\.id) == ["d2", "d3"])
        #expect(try await db.purgedInfos().last?.revisions == ["1-x3"])
        #expect(try await db.info().purgeSeq == 4)
        await #expect(throws: StoreError.self) { try await db.setPurgedInfosLimit(0) }
    }
}
