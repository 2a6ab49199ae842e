import Dispatch
import SetteeJSON
import Synchronization
import Testing
@testable import SetteeStore

/// `Database.refreshIndexes` under concurrent writes: an index must reflect every
/// change up to the sequence it reports (storage-correctness issue #47, item 2).
@Suite struct DatabaseKeyIndexesTests {
    /// Each live document's id as its key and its stored body as the value: an index
    /// whose content can be checked against the documents themselves.
    static func byID(_ signature: String) -> KeyIndex {
        KeyIndex(signature: signature, batchEntries: { documents in
            documents.map { [KeyIndexEntry(key: Array($0.id.utf8), value: $0.body)] }
        })
    }

    /// Every entry of `index`, in key order.
    static func content(_ db: Database, _ index: KeyIndex) async throws -> [(key: [UInt8], value: [UInt8])] {
        try await db.indexEntries(index, range: .all, descending: false, after: nil, limit: 1_000_000)
            .map { ($0.key, $0.value) }
    }

    /// Set once to end a concurrent writer.
    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    /// Updates, adds and deletes documents, one write at a time, until `stop` is set.
    static func churn(_ db: Database, documents: Int, stop: StopFlag) async throws -> Int {
        var writes = 0
        var next = documents
        while !stop.isSet {
            writes += 1
            var updates: [DocumentUpdate] = []
            for k in 0..<20 {
                let id = "d\(((writes * 20 + k) * 7_919) % next)"
                guard !updates.contains(where: { $0.id == id }) else { continue }
                let base = try await db.winner(id: id)
                let isDeleted = (writes + k) % 11 == 0 && base?.isDeleted == false
                updates.append(DocumentUpdate(id: id, body: bytes(#"{"n":\#(writes)}"#), isDeleted: isDeleted,
                                              baseRevision: base?.rev))
            }
            for _ in 0..<5 {
                updates.append(DocumentUpdate(id: "d\(next)", body: bytes(#"{"n":\#(writes),"new":true}"#)))
                next += 1
            }
            _ = try await db.update(updates, newEdits: true)
        }
        return writes
    }

    /// A document's body at `sequence`: its winner among the revisions written by then
    /// (a revision's row sequence is the seq that wrote it); nil when it was not live.
    static func body(at sequence: Int64, _ db: Database, id: String) async throws -> [UInt8]? {
        guard let tree = try await db.document(id: id, revisions: .none)?.tree,
              let winner = RevisionTree(nodes: tree.nodes.values.filter { $0.sequence <= sequence }).winner,
              !winner.isDeleted else { return nil }
        return try await db.document(id: id, revisions: .revision(winner.rev))?.revisions.first?.body
    }

    /// An index built in small batches while another task updates, adds and deletes
    /// documents holds, at the sequence it reports, exactly what a build from nothing at
    /// that sequence holds: each document live then, as it was then (no document left
    /// out, none as an older or a later version). Caught up once the writes stop, it
    /// equals a rebuild from nothing at the same sequence.
    @Test(arguments: [0, 1, 2])
    func buildUnderConcurrentWrites(round: Int) async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let documents = 1_500
        for start in stride(from: 0, to: documents, by: 500) {
            _ = try await db.update((start..<start + 500).map {
                DocumentUpdate(id: "d\($0)", body: bytes(#"{"n":0}"#))
            }, newEdits: true)
        }
        let index = Self.byID("0a0\(round)")
        let stop = StopFlag()
        let writer = Task { try await Self.churn(db, documents: documents, stop: stop) }
        try await db.refreshIndex(index, batch: 16)
        stop.set()
        let writes = try await writer.value
        #expect(writes > 0)

        let reported = try await db.indexSequence(index.signature)
        let stored = try await Self.content(db, index)
        var expected: [(key: [UInt8], value: [UInt8])] = []
        for change in try await db.changes(since: 0, limit: nil, descending: false) {
            if let body = try await Self.body(at: reported, db, id: change.id) { expected.append((Array(change.id.utf8), body)) }
        }
        expected.sort { $0.key.lexicographicallyPrecedes($1.key) }
        let differing = Set(stored.map { String(decoding: $0.key + [0] + $0.value, as: UTF8.self) })
            .symmetricDifference(expected.map { String(decoding: $0.key + [0] + $0.value, as: UTF8.self) })
        #expect(differing.count == 0, "entries differ at seq \(reported) after \(writes) writes: \(differing.sorted().prefix(3))")
        #expect(expected.count >= documents * 9 / 10)

        try await db.refreshIndex(index)
        let rebuilt = Self.byID("0b0\(round)")
        try await db.refreshIndex(rebuilt)
        let caughtUp = try await Self.content(db, index), fresh = try await Self.content(db, rebuilt)
        #expect(caughtUp.count == fresh.count)
        #expect(caughtUp.elementsEqual(fresh) { $0.key == $1.key && $0.value == $1.value })
    }

    struct MapStopped: Error {}

    /// A failed catch-up step (a map function stopped) leaves the index at the last batch
    /// it wrote, is recorded for the index until it catches up, and sticks to nothing: the
    /// next refresh carries on from there and clears it.
    @Test func aFailedStepIsRecordedAndRetried() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<10 { _ = try await db.put("d\(i)", #"{"n":\#(i)}"#).get() }
        let failing = Mutex(true)
        let index = KeyIndex(signature: "0f0f", batchEntries: { documents in
            if documents.contains(where: { $0.id == "d6" }), failing.withLock({ $0 }) { throw MapStopped() }
            return documents.map { [KeyIndexEntry(key: Array($0.id.utf8), value: [])] }
        })
        await #expect(throws: MapStopped.self) { try await db.refreshIndex(index, batch: 3) }
        let failure = try #require(db.indexFailure(index.signature))
        #expect(failure.error is MapStopped)
        #expect(failure.sequence == 6)  // two batches of three written, the third refused
        #expect(try await db.indexSequence(index.signature) == 6)
        #expect(try await Self.content(db, index).count == 6)
        #expect(!db.isCurrent(index))
        // `_active_tasks` keeps the failed indexer task with its error.
        #expect(db.tasks.all.contains { $0.error != nil && $0.database == "db" }, "\(db.tasks.all)")

        failing.withLock { $0 = false }
        try await db.refreshIndex(index, batch: 3)
        #expect(db.indexFailure(index.signature) == nil)
        #expect(db.tasks.all.allSatisfy { $0.error == nil }, "a build that succeeded leaves no failed task")
        #expect(try await Self.content(db, index).count == 10)
        #expect(db.isCurrent(index))
    }

    /// Waits for `semaphore` off the cooperative pool; false after `seconds`.
    static func wait(_ semaphore: DispatchSemaphore, seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success) }
        }
    }

    /// No map function runs inside the writer's transaction (#46 item 8), not even when a
    /// document of its batch is written while it maps: each call here waits for such a
    /// write to finish, which a call made inside the writer would wait for in vain.
    @Test func mapFunctionsNeverRunInsideTheWriter() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<6 { _ = try await db.put("d\(i)", #"{"n":\#(i)}"#).get() }
        let mapping = DispatchSemaphore(value: 0), written = DispatchSemaphore(value: 0)
        let mapped = Mutex<[String]>([]), waits = Mutex<[Bool]>([])
        let index = KeyIndex(signature: "0e0e", batchEntries: { documents in
            mapped.withLock { $0 = documents.map(\.id) }
            mapping.signal()
            let wrote = written.wait(timeout: .now() + 5) == .success
            waits.withLock { $0.append(wrote) }
            return documents.map { [KeyIndexEntry(key: Array($0.id.utf8), value: $0.body)] }
        })
        let stop = StopFlag()
        let driver = Task {
            while !stop.isSet {
                guard await Self.wait(mapping, seconds: 0.05) else { continue }
                // A document of the batch being mapped moves past the refresh's target.
                if let id = mapped.withLock({ $0.first }), let rev = try await db.winner(id: id)?.rev {
                    _ = try await db.put(id, #"{"n":-1}"#, base: rev)
                }
                written.signal()
            }
        }
        try await db.refreshIndex(index, batch: 2)
        stop.set()
        try await driver.value
        let calls = waits.withLock { $0 }
        #expect(calls.count >= 3 && calls.allSatisfy { $0 }, "\(calls)")
        // Each document as it stood when the refresh began.
        let values = try await Self.content(db, index).map { String(decoding: $0.value, as: UTF8.self) }
        #expect(values == (0..<6).map { #"{"n":\#($0)}"# })
    }

    /// A document purged away (every leaf, so its `docs` row goes) leaves no entry behind:
    /// not in a page, and not in what a reduce reads (`indexEntries`), which does not join
    /// the documents; a new document that gets its row id is not found by the old key.
    @Test func aPurgedDocumentLeavesNoEntry() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for id in ["a", "b", "c"] { _ = try await db.put(id, #"{"n":1}"#).get() }
        let index = Self.byID("0d0d")
        try await db.refreshIndex(index)
        let rev = try #require(try await db.winner(id: "c")?.rev)
        _ = try await db.purge([(id: "c", revisions: [rev])])
        try await db.refreshIndex(index)
        #expect(try await Self.content(db, index).map { String(decoding: $0.key, as: UTF8.self) } == ["a", "b"])
        _ = try await db.put("d", #"{"n":2}"#).get()
        try await db.refreshIndex(index)
        let rows = try await db.indexPage(index, range: .all, descending: false, after: nil, limit: 10)
        #expect(rows.map(\.id) == ["a", "b", "d"])
        #expect(rows.map { String(decoding: $0.key, as: UTF8.self) } == ["a", "b", "d"])
    }

    /// The same when the purge comes while the document's batch is being mapped: its
    /// entries, made from what was read before, are not written after the purge.
    @Test func aDocumentPurgedWhileItsBatchMapsLeavesNoEntry() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for id in ["a", "b", "c"] { _ = try await db.put(id, #"{"n":1}"#).get() }
        let mapping = DispatchSemaphore(value: 0), purged = DispatchSemaphore(value: 0)
        let index = KeyIndex(signature: "0d1d", batchEntries: { documents in
            mapping.signal()
            _ = purged.wait(timeout: .now() + 5)
            return documents.map { [KeyIndexEntry(key: Array($0.id.utf8), value: [])] }
        })
        let build = Task { try await db.refreshIndex(index) }
        #expect(await Self.wait(mapping, seconds: 5))
        let rev = try #require(try await db.winner(id: "b")?.rev)
        _ = try await db.purge([(id: "b", revisions: [rev])])
        purged.signal()
        try await build.value
        #expect(try await Self.content(db, index).map { String(decoding: $0.key, as: UTF8.self) } == ["a", "c"])
    }

    /// A document written while the build runs, whose version at the target was stemmed
    /// away since (`_revs_limit` 1), is indexed as it is now rather than left out.
    @Test func aDocumentWhoseOldRevisionWasStemmedIsStillIndexed() async throws {
        let store = try TestStore(revsLimit: 1)
        defer { store.remove() }
        let db = try store.directory.create("db")
        for id in ["a", "b", "c"] { _ = try await db.put(id, #"{"n":1}"#).get() }
        let mapping = DispatchSemaphore(value: 0), written = DispatchSemaphore(value: 0)
        let first = Mutex(true)
        let index = KeyIndex(signature: "0c1c", batchEntries: { documents in
            if first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) {
                mapping.signal()
                _ = written.wait(timeout: .now() + 5)
            }
            return documents.map { [KeyIndexEntry(key: Array($0.id.utf8), value: $0.body)] }
        })
        let build = Task { try await db.refreshIndex(index, batch: 1) }
        #expect(await Self.wait(mapping, seconds: 5))
        let rev = try #require(try await db.winner(id: "c")?.rev)
        _ = try await db.put("c", #"{"n":2}"#, base: rev).get()
        #expect(try await db.document(id: "c", revisions: .none)?.tree.nodes.count == 1)  // 1-… stemmed
        written.signal()
        try await build.value
        let entries = try await Self.content(db, index).map { String(decoding: $0.key + [0x3D] + $0.value, as: UTF8.self) }
        #expect(entries == [#"a={"n":1}"#, #"b={"n":1}"#, #"c={"n":2}"#])
    }

    /// What a view's map function is given beside the body (couch_index_updater): the
    /// document's other live and deleted leaves, and its update sequence.
    @Test func documentsComeWithTheirConflictsAndSequence() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.force("a", ["1-aa"]).get()
        _ = try await db.force("a", ["1-bb"]).get()
        _ = try await db.force("a", ["1-cc"], deleted: true).get()
        _ = try await db.put("b").get()
        let seen = Mutex<[String: KeyIndexDocument]>([:])
        let index = KeyIndex(signature: "0e0e", batchEntries: { documents in
            seen.withLock { for document in documents { $0[document.id] = document } }
            return documents.map { _ in [] }
        })
        try await db.refreshIndex(index)
        let a = try #require(seen.withLock { $0["a"] })
        #expect(a.rev.description == "1-bb" && a.conflicts.map(\.description) == ["1-aa"])
        #expect(a.deletedConflicts.map(\.description) == ["1-cc"] && a.seq == 3)
        let b = try #require(seen.withLock { $0["b"] })
        #expect(b.conflicts.isEmpty && b.deletedConflicts.isEmpty && b.attachments.isEmpty && b.seq == 4)
    }

    /// Compaction rewrites an index that lost half its entries into fewer pages, same content.
    @Test func compactionPacksAnIndex() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let padding = String(repeating: "x", count: 200)
        for n in 0..<300 { _ = try await db.put("d\(1000 + n)", #"{"p":"\#(padding)"}"#).get() }
        let index = Self.byID("0f0f")
        try await db.refreshIndex(index)
        for n in stride(from: 0, to: 300, by: 2) {
            let rev = try #require(try await db.winner(id: "d\(1000 + n)")?.rev)
            _ = try await db.put("d\(1000 + n)", base: rev, deleted: true).get()
        }
        try await db.refreshIndex(index)
        let content = try await Self.content(db, index).map(\.key)
        let before = try await db.indexSizes(["0f0f"])
        try await db.compactIndexes(["0f0f"])
        let after = try await db.indexSizes(["0f0f"])
        #expect(before.file > 0 && after.file < before.file && after.external == before.external)
        #expect(try await Self.content(db, index).map(\.key) == content && content.count == 150)
    }
}
