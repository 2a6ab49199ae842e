import Testing
@testable import SetteeStore

@Suite struct DatabaseInsertionTests {
    @Test func newDocumentThenConflicts() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"x":1}"#).get()
        #expect(first.generation == 1 && first.suffix.utf8.count == 32)
        #expect(try await db.put("a", #"{"x":2}"#) == .failure(.conflict))
        let second = try await db.put("a", #"{"x":2}"#, base: first).get()
        #expect(second.generation == 2)
        #expect(try await db.put("a", #"{"x":3}"#, base: first) == .failure(.conflict))
        #expect(try await db.put("missing", "{}", base: first) == .failure(.conflict))
    }

    @Test func revisionsAreDeterministic() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let one = try store.directory.create("one"), two = try store.directory.create("two")
        #expect(try await one.put("a", #"{"x":1}"#) == two.put("a", #"{"x":1}"#))
    }

    @Test func deleteAndRecreate() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a").get()
        let deleted = try await db.put("a", base: first, deleted: true).get()
        let document = try #require(try await db.document(id: "a", revisions: .winner))
        #expect(document.tree.winner?.rev == deleted && document.tree.winner?.isDeleted == true)
        let recreated = try await db.put("a", #"{"back":true}"#).get()
        #expect(recreated.generation == 3)
        let info = try await db.info()
        #expect(info.docCount == 1 && info.deletedDocCount == 0)
    }

    @Test func batchReportsPerDocumentErrors() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("b")
        let results = try await db.update([DocumentUpdate(id: "a", body: bytes("{}")),
                                           DocumentUpdate(id: "b", body: bytes("{}")),
                                           DocumentUpdate(id: "c", body: bytes("{}"))], newEdits: true)
        #expect(results.map { (try? $0.get()) != nil } == [true, false, true])
        #expect(try await db.info().docCount == 3)
    }

    @Test func replicatedMergeMakesConflictsAndIsIdempotent() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        #expect(try await db.force("a", ["2-b", "1-a"]) == .success(rev("2-b")))
        let seq = try await db.updateSequence()
        #expect(try await db.force("a", ["2-b", "1-a"]) == .success(rev("2-b")))
        #expect(try await db.updateSequence() == seq)
        _ = try await db.force("a", ["3-d", "2-c", "1-a"])
        let document = try #require(try await db.document(id: "a", revisions: .allLeaves))
        #expect(document.tree.winner?.rev == rev("3-d"))
        #expect(document.tree.conflicts == [rev("2-b")])
        #expect(document.tree.node(rev("2-c"))?.hasBody == false)
        #expect(document.revisions.map(\.rev) == [rev("3-d"), rev("2-b")])
        #expect(try await db.force("a", ["5-x", "3-y"]) == .failure(.invalidRevision("_revisions do not match _rev: 3-y")))
    }

    @Test func stemsToRevsLimit() async throws {
        let store = try TestStore(revsLimit: 3)
        defer { store.remove() }
        let db = try store.directory.create("db")
        var current = try await db.put("a").get()
        for index in 0..<6 { current = try await db.put("a", #"{"i":\#(index)}"#, base: current).get() }
        let document = try #require(try await db.document(id: "a", revisions: .winner))
        #expect(document.tree.nodes.count == 3)
        #expect(document.tree.history(of: current).count == 3)
        try await db.setRevsLimit(2)
        #expect(try await db.revsLimit() == 2)
        current = try await db.put("a", base: current).get()
        #expect(try await db.document(id: "a", revisions: .none)?.tree.nodes.count == 2)
    }

    @Test func failedWriteJobRollsBackAlone() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await db.writer.write { connection in
                var job = try Inserter.Job(connection)
                _ = try Inserter.edit(connection, DocumentUpdate(id: "lost", body: bytes("{}")), job: &job)
                try DocumentCounts.add(connection, job.counts)
                throw Boom()
            }
        }
        _ = try await db.put("kept")
        #expect(try await db.document(id: "lost", revisions: .none) == nil)
        #expect(try await db.document(id: "kept", revisions: .none) != nil)
        #expect(try await db.info().docCount == 1)
        // The rolled-back job's change to the document totals went with it.
        let totals = try await db.readers.read { (try DocumentCounts.totals($0), try DocumentCounts.recount($0)) }
        #expect(totals.0 == totals.1)
    }

    @Test func batchIsOneTransaction() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let before = db.writer.commitCount
        let updates = (0..<10).map { DocumentUpdate(id: "d\($0)", body: bytes("{}")) }
        _ = try await db.update(updates, newEdits: true)
        #expect(db.writer.commitCount == before + 1)
    }

    @Test func concurrentWritesAllCommit() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 { group.addTask { _ = try await db.put("doc\(index)").get() } }
            try await group.waitForAll()
        }
        #expect(try await db.info().docCount == 50)
        #expect(try await db.updateSequence() == 50)
        // Group commit: writes that queue up while a transaction runs share the next one.
        #expect(db.writer.commitCount <= 50)
    }
}

/// The `docs` row caches a document's seq and winner: the seq must equal the sequence
/// of the revision row written last, on every write path, including stemmed ones.
@Suite struct NewDocumentRowTests {
    @Test func docsRowHoldsTheLastRevisionsSequenceAndWinner() async throws {
        let store = try TestStore(revsLimit: 2)
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a", #"{"x":1}"#)
        _ = try await db.update([DocumentUpdate(id: "b", body: bytes("{}")),
                                 DocumentUpdate(id: "c", body: bytes("{}"), isDeleted: true),
                                 DocumentUpdate(id: "b", body: bytes("{}"))], newEdits: true)
        _ = try await db.force("d", ["3-c", "2-b", "1-a"], #"{"y":2}"#)  // stemmed to 2
        _ = try await db.force("e", ["1-z"], "{}", deleted: true)
        for id in ["a", "b", "c", "d", "e"] {
            let stored = try await db.readers.read { try DocumentRecords.documentAndTree($0, id: id) }
            let (record, tree) = try #require(stored)
            let winner = try #require(tree.winner)
            #expect(record.sequence == tree.nodes.values.map(\.sequence).max(), "\(id)")
            #expect(record.winner == winner.rev && record.isDeleted == winner.isDeleted, "\(id)")
        }
        let changes = try await db.changes(since: 0, limit: nil, descending: false)
        #expect(changes.map(\.id) == ["a", "b", "c", "d", "e"])  // the second "b" is a conflict
        #expect(changes.map(\.sequence) == changes.map(\.sequence).sorted())
    }
}
