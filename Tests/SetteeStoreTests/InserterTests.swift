@testable import SetteeStore
import Testing

/// `Inserter.create` (a new id in two statements, a run of them in two multi-row
/// statements) and `Inserter.Job`'s sequence count.
@Suite struct InserterTests {
    /// Runs `updates` as one job on the writer and returns the results and the SQL it issued;
    /// `asRuns`: through the job-wide `edit` that batches runs of new ids, else one by one.
    func traced(_ db: Database, _ updates: [DocumentUpdate],
                asRuns: Bool = false) async throws -> ([Result<RevisionID, StoreError>], [String]) {
        try await tracedJob(db) { connection, job in
            asRuns ? try Inserter.edit(connection, updates, job: &job)
                   : try updates.map { try Inserter.edit(connection, $0, job: &job) }
        }
    }

    @Test func newDocumentIsTwoInsertsAndNoRead() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let (results, sql) = try await traced(db, (0..<3).map { DocumentUpdate(id: "d\($0)", body: bytes("{}")) })
        #expect(results.allSatisfy { (try? $0.get())?.generation == 1 })
        // Once per job: revs_limit and the sequence count are read, the totals updated.
        let perDocument = sql.filter { !$0.contains(" info ") && !$0.contains("sqlite_sequence") }
        #expect(perDocument.count == 6)
        #expect(perDocument.allSatisfy { $0.hasPrefix("INSERT INTO docs") || $0.hasPrefix("INSERT INTO revs") })
        #expect(try await db.updateSequence() == 3)
        let changes = try await db.changes(since: 0, limit: nil, descending: false)
        #expect(changes.map(\.id) == ["d0", "d1", "d2"] && changes.map(\.sequence) == [1, 2, 3])
    }

    @Test func runsOfNewDocumentsAreOneInsertPerTable() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let count = Inserter.runLength * 2 + 3
        let updates = (0..<count).map { DocumentUpdate(id: "d\($0)", body: bytes(#"{"i":\#($0)}"#)) }
        let (results, sql) = try await traced(db, updates, asRuns: true)
        #expect(results.allSatisfy { (try? $0.get())?.generation == 1 })
        let perRun = sql.filter { !$0.contains(" info ") && !$0.contains("sqlite_sequence") }
        // Each of the three runs: the largest row id, then one INSERT into docs and one into revs.
        #expect(perRun.count == 9)
        #expect(perRun.filter { $0.hasPrefix("INSERT INTO docs") }.count == 3)
        #expect(perRun.filter { $0.hasPrefix("INSERT INTO revs") }.count == 3)
        let changes = try await db.changes(since: 0, limit: nil, descending: false)
        #expect(changes.map(\.id) == updates.map(\.id))
        #expect(changes.map(\.sequence) == (1...Int64(count)).map { $0 })
        let document = try #require(try await db.document(id: "d52", revisions: .winner))
        #expect(document.revisions.first?.body == bytes(#"{"i":52}"#))
        let totals = try await db.readers.read { (try DocumentCounts.totals($0), try DocumentCounts.recount($0)) }
        #expect(totals.0 == totals.1 && totals.0.live == count)
    }

    @Test func runWithAnExistingOrRepeatedIdGoesOneByOneInOrder() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let x = try await db.put("x").get()
        let results = try await db.update([
            DocumentUpdate(id: "a", body: bytes("{}")),
            DocumentUpdate(id: "x", body: bytes("{}")),  // exists: conflict
            DocumentUpdate(id: "b", body: bytes("{}")),
            DocumentUpdate(id: "b", body: bytes(#"{"again":1}"#)),  // twice in the run: conflict
            DocumentUpdate(id: "x", body: bytes(#"{"v":2}"#), baseRevision: x),  // ends the run
            DocumentUpdate(id: "c", body: bytes("{}")),
        ], newEdits: true)
        #expect(results.map { (try? $0.get())?.generation } == [1, nil, 1, nil, 2, 1])
        #expect(results[1] == .failure(.conflict) && results[3] == .failure(.conflict))
        let changes = try await db.changes(since: 0, limit: nil, descending: false)
        #expect(changes.map(\.id) == ["a", "b", "x", "c"] && changes.map(\.sequence) == [2, 3, 4, 5])
        for id in ["a", "b", "c", "x"] {
            let stored = try await db.readers.read { try DocumentRecords.documentAndTree($0, id: id) }
            let (record, tree) = try #require(stored)
            #expect(record.sequence == tree.nodes.values.map(\.sequence).max() && record.winner == tree.winner?.rev)
        }
        let totals = try await db.readers.read { (try DocumentCounts.totals($0), try DocumentCounts.recount($0)) }
        #expect(totals.0 == totals.1 && totals.0.live == 4)
    }

    @Test func existingIdTakesTheGeneralPath() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a").get()
        // Live document, no `_rev`: a conflict, and no sequence is used up by the attempt.
        let (results, sql) = try await traced(db, [DocumentUpdate(id: "a", body: bytes(#"{"x":1}"#))])
        #expect(results[0] == .failure(.conflict))
        #expect(sql.contains { $0.contains("LEFT JOIN revs") })
        let deleted = try await db.put("a", base: first, deleted: true).get()
        // Deleting it again without a `_rev` is a conflict, as in CouchDB 3.4.3.
        #expect(try await db.put("a", deleted: true) == .failure(.conflict))
        // Deleted document, no `_rev`: the edit continues the tombstone (generation 3).
        let recreated = try await db.put("a", #"{"y":2}"#).get()
        #expect(deleted.generation == 2 && recreated.generation == 3)
        #expect(try await db.updateSequence() == 3)
        #expect(try await db.info().docCount == 1)
    }

    @Test func sameNewIdTwiceInOneBatchIsOneDocumentAndAConflict() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let results = try await db.update([DocumentUpdate(id: "a", body: bytes("{}")),
                                           DocumentUpdate(id: "a", body: bytes(#"{"x":1}"#))], newEdits: true)
        #expect((try? results[0].get()) != nil && results[1] == .failure(.conflict))
        #expect(try await db.updateSequence() == 1)
    }

    @Test func newDocumentWithAStubIsMissingStubAndWritesNothing() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let update = DocumentUpdate(id: "a", body: bytes("{}"), attachments: [.stub(name: "x", digest: nil)])
        let results = try await db.update([update], newEdits: true)
        #expect(results[0] == .failure(.missingStub(document: "a", attachment: "x")))
        #expect(try await db.document(id: "a", revisions: .none) == nil)
        #expect(try await db.updateSequence() == 0)
    }

    @Test func sequenceCountResumesAfterARolledBackJob() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            _ = try await db.writer.write { connection in
                var job = try Inserter.Job(connection)
                _ = try Inserter.edit(connection, DocumentUpdate(id: "lost", body: bytes("{}")), job: &job)
                #expect(job.lastSequence == 2)
                throw Boom()
            }
        }
        _ = try await db.put("b")
        let changes = try await db.changes(since: 0, limit: nil, descending: false)
        #expect(changes.map(\.id) == ["a", "b"] && changes.map(\.sequence) == [1, 2])
    }
}
