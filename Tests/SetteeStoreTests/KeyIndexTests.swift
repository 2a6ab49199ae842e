import Dispatch
import Synchronization
import SetteeJSON
import Testing
@testable import SetteeStore

/// Key indexes: caught up on demand, in batches, following edits, deletions,
/// purges and conflicts; read in key order a page at a time.
@Suite struct KeyIndexTests {
    /// Keys documents by their `n` member's bytes (documents without `n` are left out).
    static let byN = KeyIndex(signature: "0a1b") { document in
        guard let value = try? JSONReader.parse(document.body)["n"] else { return nil }
        var key = IndexKeyEncoding.encode(value)
        IndexKeyEncoding.append(.string(document.id), to: &key)
        return key
    }

    func ids(_ db: Database, _ range: KeyRange = .all, descending: Bool = false, after: [UInt8]? = nil,
             limit: Int = 100) async throws -> [String] {
        try await db.indexPage(Self.byN, range: range, descending: descending, after: after, limit: limit).map(\.id)
    }

    @Test func followsWritesInBatches() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<25 { _ = try await db.put("d\(i)", #"{"n":\#((i * 7) % 25)}"#).get() }
        _ = try await db.put("none", #"{"m":1}"#).get()
        #expect(try await ids(db).isEmpty)  // nothing until refreshed
        try await db.refreshIndex(Self.byN, batch: 4)
        let ordered = try await ids(db)
        #expect(ordered.count == 25)
        #expect(ordered.first == "d0" && ordered.last == "d7")  // n = 0 (d0) ... 24 (d7: 49 % 25)
        #expect(try await ids(db, descending: true).first == "d7")

        // Edits move a document; deletions remove it.
        let rev = try #require(try await db.winner(id: "d0")?.rev)
        _ = try await db.put("d0", #"{"n":100}"#, base: rev).get()
        let rev1 = try #require(try await db.winner(id: "d1")?.rev)
        _ = try await db.put("d1", "{}", base: rev1, deleted: true).get()
        try await db.refreshIndex(Self.byN, batch: 1)
        let after = try await ids(db)
        #expect(after.count == 24 && after.last == "d0" && !after.contains("d1"))
    }

    /// Keys documents by their `m` member, a batch at a time (as a view's map runs).
    static let byM = KeyIndex(signature: "0c2d", batchEntries: { documents in
        documents.map { document -> [KeyIndexEntry] in
            guard let value = try? JSONReader.parse(document.body)["m"] else { return [] }
            var key = IndexKeyEncoding.encode(value)
            IndexKeyEncoding.append(.string(document.id), to: &key)
            return [KeyIndexEntry(key: key, value: [])]
        }
    })

    /// Indexes refreshed together (a design document's views) each end up as if built
    /// alone, whatever sequence each started from; a first build's documents changed
    /// while it runs are not left twice.
    @Test func indexesRefreshedTogetherFromDifferentSequences() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<10 { _ = try await db.put("d\(i)", #"{"n":\#(i),"m":\#(9 - i)}"#).get() }
        try await db.refreshIndex(Self.byN, batch: 3)  // byN is ahead, byM empty
        for i in 10..<14 { _ = try await db.put("d\(i)", #"{"n":\#(i),"m":\#(20 - i)}"#).get() }
        let rev = try #require(try await db.winner(id: "d0")?.rev)
        _ = try await db.put("d0", #"{"n":50,"m":50}"#, base: rev).get()
        try await db.refreshIndexes([Self.byN, Self.byM], batch: 4)
        let byN = try await ids(db)
        #expect(byN.count == 14 && byN.last == "d0")
        let byM = try await db.indexPage(Self.byM, range: .all, descending: false, after: nil, limit: 100).map(\.id)
        #expect(byM.count == 14 && byM.first == "d9" && byM.last == "d0")
        #expect(Set(byM).count == 14)
    }

    /// The map work of a catch-up runs outside the writer: a write to the database
    /// finishes while an index's entries are still being made (were they made inside the
    /// writer, the write would wait for them, and they for it, until the 10 s timeout).
    @Test func makingEntriesHoldsUpNoWrite() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<5 { _ = try await db.put("d\(i)", #"{"n":\#(i)}"#).get() }
        let started = DispatchSemaphore(value: 0), written = DispatchSemaphore(value: 0)
        let sawWrite = Mutex<Bool?>(nil)
        let index = KeyIndex(signature: "0e3f", batchEntries: { documents in
            if sawWrite.withLock({ $0 }) == nil {
                started.signal()
                let finished = written.wait(timeout: .now() + 10) == .success
                sawWrite.withLock { $0 = finished }
            }
            return documents.map { _ in [] }
        })
        let refresh = Task { try await db.refreshIndex(index) }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                started.wait()
                continuation.resume()
            }
        }
        _ = try await db.put("other", "{}").get()
        written.signal()
        try await refresh.value
        #expect(sawWrite.withLock { $0 } == true)
    }

    @Test func pagesResumeAfterAKeyWithinARange() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<10 { _ = try await db.put("d\(i)", #"{"n":\#(i)}"#).get() }
        try await db.refreshIndex(Self.byN)
        let range = KeyRange(lower: IndexKeyEncoding.encode(3), upper: IndexKeyEncoding.encode(8))
        let first = try await db.indexPage(Self.byN, range: range, descending: false, after: nil, limit: 2)
        #expect(first.map(\.id) == ["d3", "d4"])
        let next = try await ids(db, range, after: first.last?.key, limit: 10)
        #expect(next == ["d5", "d6", "d7"])
    }

    @Test func conflictsIndexTheWinnerAndPurgesDropDocuments() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.force("c", ["1-aa"], #"{"n":1}"#).get()
        _ = try await db.force("c", ["1-bb"], #"{"n":2}"#).get()  // the winner: higher rev id
        _ = try await db.force("p", ["1-aa"], #"{"n":3}"#).get()
        try await db.refreshIndex(Self.byN)
        let rows = try await db.indexPage(Self.byN, range: .all, descending: false, after: nil, limit: 10)
        #expect(rows.map(\.id) == ["c", "p"])
        #expect(rows.first?.body == bytes(#"{"n":2}"#))
        _ = try await db.purge([(id: "p", revisions: [rev("1-aa")])])
        try await db.refreshIndex(Self.byN)
        #expect(try await ids(db) == ["c"])
        // A new document with the purged id indexes again.
        _ = try await db.put("p", #"{"n":0}"#).get()
        try await db.refreshIndex(Self.byN)
        #expect(try await ids(db) == ["p", "c"])
    }

    @Test func allDocumentsPagesSkipDesignDocumentsAndDeletions() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for id in ["a", "b", "_design/x", "c"] { _ = try await db.put(id).get() }
        let rev = try #require(try await db.winner(id: "b")?.rev)
        _ = try await db.put("b", "{}", base: rev, deleted: true).get()
        let all = try await db.indexPage(nil, range: .all, descending: false, after: nil, limit: 10)
        #expect(all.map(\.id) == ["a", "c"])
        let bounded = try await db.indexPage(nil, range: KeyRange(lower: bytes("b"), upper: bytes("c") + [0]),
                                             descending: true, after: nil, limit: 10)
        #expect(bounded.map(\.id) == ["c"])
    }

    @Test func droppingUnusedIndexes() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a", #"{"n":1}"#).get()
        try await db.refreshIndex(Self.byN)
        try await db.dropIndexes(keeping: [])
        #expect(try await ids(db).isEmpty)
        try await db.refreshIndex(Self.byN)  // rebuilt from the start
        #expect(try await ids(db) == ["a"])
    }

    /// Sixty thousand compound Mango keys in batches of 2,000: the catch-up once failed
    /// with SQLITE_FULL past 50,000 rows when it wrote with INSERT OR REPLACE.
    @Test func tensOfThousandsOfDocuments() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for start in stride(from: 0, to: 60_000, by: 1_000) {
            let updates = (start..<start + 1_000).map {
                DocumentUpdate(id: "p\($0)", body: bytes(#"{"type":"t\#($0 % 10)","age":\#($0 % 97)}"#))
            }
            _ = try await db.update(updates, newEdits: true)
        }
        let index = try MangoIndex(ddoc: "_design/x", name: "x",
                                   fields: MangoSort(fields: ["type", "age"], isDescending: false), partialFilter: nil)
        let keyIndex = KeyIndex(signature: index.signature) { document in
            guard let body = try? JSONReader.parse(document.body) else { return nil }
            return index.key(id: document.id, rev: document.rev.description, body: body)
        }
        try await db.refreshIndex(keyIndex, batch: 2_000)
        let range = KeyRange(lower: IndexKeyEncoding.encode("t3"), upper: IndexKeyEncoding.upperBound(IndexKeyEncoding.encode("t3")))
        let rows = try await db.indexPage(keyIndex, range: range, descending: false, after: nil, limit: 10_000)
        #expect(rows.count == 6_000)
    }

    /// A build longer than one write job is listed in the directory's tasks (for
    /// `_active_tasks`) while it runs, with its progress, and is gone when it ends.
    @Test func aLongBuildIsAnActiveTask() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for i in 0..<10 { _ = try await db.put("d\(i)", #"{"n":\#(i)}"#).get() }
        let gate = DispatchSemaphore(value: 0)
        let slow = KeyIndex(signature: "0bad", label: "_design/slow") { document in
            if document.id == "d5" { gate.wait() }  // holds the third job until the task was seen
            return bytes(document.id)
        }
        let build = Task { try await db.refreshIndex(slow, batch: 2) }
        while store.directory.tasks.all.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        let task = try #require(store.directory.tasks.all.first)
        #expect(task.kind == .indexing(label: "_design/slow"))
        #expect(task.database == "db" && task.totalChanges == 10)
        #expect(task.changesDone >= 2 && task.progress >= 20 && task.progress < 100)
        gate.signal()
        try await build.value
        #expect(store.directory.tasks.all.isEmpty)
        #expect(try await ids(db, .all).isEmpty)  // keyed by id bytes, not Mango keys: read back below
        #expect(try await db.indexPage(slow, range: .all, descending: false, after: nil, limit: 20).count == 10)
    }

    /// `indexCounts`: the total and the rank of any bound, from the rank sample, equal
    /// to counting; a write makes a new sample.
    @Test func ranksMatchCounting() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let updates = (0..<1_500).map { DocumentUpdate(id: "d\($0)", body: bytes(#"{"n":\#(($0 * 37) % 1_500)}"#)) }
        _ = try await db.update(updates, newEdits: true)
        try await db.refreshIndex(Self.byN)
        for n in [-1, 0, 1, 127, 128, 129, 511, 512, 513, 1_024, 1_499, 2_000] {  // about KeyIndexRanks.stride
            let bound = IndexKeyEncoding.encode(.int(n))
            let counts = try await db.indexCounts(Self.byN, before: bound)
            #expect(counts.total == 1_500)
            #expect(counts.before == min(1_500, max(0, n)), "rank of \(n)")
        }
        _ = try await db.put("extra", #"{"n":-5}"#).get()
        try await db.refreshIndex(Self.byN)
        let counts = try await db.indexCounts(Self.byN, before: IndexKeyEncoding.encode(10))
        #expect(counts.total == 1_501 && counts.before == 11)
    }

    /// `indexCountsAndPage` (a view query's one read) answers what `indexCounts` and the
    /// first `indexPage` answer, with the rank sample taken by it or kept from before.
    @Test func countsAndFirstPageInOneRead() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let updates = (0..<600).map { DocumentUpdate(id: "d\($0)", body: bytes(#"{"n":\#(($0 * 7) % 300)}"#)) }
        _ = try await db.update(updates, newEdits: true)
        try await db.refreshIndex(Self.byN)
        for (n, descending) in [(0, false), (150, false), (299, true), (400, false)] {
            let range = KeyRange(lower: IndexKeyEncoding.encode(.int(n)), upper: IndexKeyEncoding.encode(.int(n + 1)))
            let bound = descending ? range.upper : range.lower
            for point in [true, false] {
                let read = try await db.indexCountsAndPage(Self.byN, before: bound, range: range, descending: descending,
                                                           limit: 16, bodies: false, point: point)
                let counts = try await db.indexCounts(Self.byN, before: bound)
                let page = try await db.indexPage(Self.byN, range: range, descending: descending, after: nil, limit: 16,
                                                  bodies: false)
                #expect(read.total == 600 && read.total == counts.total)
                #expect(read.before == counts.before && read.before == 2 * min(descending ? n + 1 : n, 300), "rank of \(n)")
                #expect(read.page.map(\.id) == page.map(\.id) && read.page.count == (n < 300 ? 2 : 0))
            }
        }
    }
}
