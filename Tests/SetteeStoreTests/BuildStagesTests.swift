import Dispatch
import Synchronization
import SetteeJSON
import Testing
@testable import SetteeStore

/// A refresh's pipeline (`BuildStages`, `Database.build`): runs read and mapped ahead of
/// their writes, yet written in plan order, one map at a time, and stopped whole by a
/// failing map function or a database deleted under it.
@Suite struct BuildStagesTests {
    /// An index of each document's id bytes, its body the value; `before` sees each batch first.
    static func byID(_ signature: String, before: @escaping @Sendable ([KeyIndexDocument]) throws -> Void) -> KeyIndex {
        KeyIndex(signature: signature, batchEntries: { documents in
            try before(documents)
            return documents.map { [KeyIndexEntry(key: Array($0.id.utf8), value: Array($0.body))] }
        })
    }

    static func ids(_ db: Database, _ index: KeyIndex) async throws -> [String] {
        try await db.indexPage(index, range: .all, descending: false, after: nil, limit: 1_000).map(\.id)
    }

    /// `d000`, `d001`...: ids in the order they are written.
    static func name(_ i: Int) -> String { "d" + String(repeating: "0", count: max(0, 3 - String(i).count)) + String(i) }

    static func fill(_ db: Database, _ count: Int) async throws {
        for i in 0..<count { _ = try await db.put(Self.name(i), #"{"n":\#(i)}"#).get() }
    }

    /// Many runs, each read and mapped ahead of its write: every document is mapped once,
    /// the batches in the plan's order, never two at once, and the index ends complete.
    @Test func runsAreMappedOnceInOrderOneAtATime() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try await Self.fill(db, 47)
        let seen = Mutex<[[String]]>([]), running = Mutex(0), most = Mutex(0)
        let index = Self.byID("1b01") { documents in
            seen.withLock { $0.append(documents.map(\.id)) }
            let now = running.withLock { $0 += 1; return $0 }
            most.withLock { $0 = max($0, now) }
            Work.spin()  // a map that takes a while, so an overlap would show
            running.withLock { $0 -= 1 }
        }
        try await db.refreshIndex(index, batch: 5)
        let batches = seen.withLock { $0 }
        #expect(batches.count == 10)
        #expect(batches.flatMap { $0 } == (0..<47).map { Self.name($0) })
        #expect(most.withLock { $0 } == 1)
        #expect(try await Self.ids(db, index).count == 47)
        #expect(try await db.indexSequence(index.signature) == 47)
    }

    /// Runs are written a few at a time, not one job each: a first build of 10 runs whose
    /// entries fit in one job (`indexBuildJobRows`) commits once (was 10 times: each job
    /// wrote most leaves of an index of random keys again).
    @Test func runsAreWrittenInFewerJobs() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try await Self.fill(db, 47)
        let index = Self.byID("1b05") { _ in }
        let before = db.writer.commitCount
        try await db.refreshIndex(index, batch: 5)
        #expect(db.writer.commitCount - before == 1)
        #expect(try await Self.ids(db, index) == (0..<47).map { Self.name($0) })
        #expect(try await db.indexSequence(index.signature) == 47)
    }

    /// A map function that throws on one run stops the build: the runs before it are
    /// written (the index stands at the last one), none after, and the failure is kept; the
    /// next refresh starts from there and completes.
    @Test func aFailingMapStopsAtTheLastRunWritten() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try await Self.fill(db, 30)
        struct MapFailed: Error {}
        let failing = Mutex(true)
        let index = Self.byID("1b02") { documents in
            if failing.withLock({ $0 }), documents.contains(where: { $0.id == "d017" }) { throw MapFailed() }
        }
        await #expect(throws: MapFailed.self) { try await db.refreshIndex(index, batch: 5) }
        #expect(try await db.indexSequence(index.signature) == 15)
        #expect(try await Self.ids(db, index) == (0..<15).map { Self.name($0) })
        #expect(db.indexFailure(index.signature)?.sequence == 15)
        failing.withLock { $0 = false }
        try await db.refreshIndex(index, batch: 5)
        #expect(try await Self.ids(db, index).count == 30)
        #expect(db.indexFailure(index.signature) == nil)
    }

    /// Writes made while runs are read and mapped ahead finish at once (no stage holds the
    /// writer), and the build still indexes each document as it stood at the plan: an edit
    /// and a new document made during it are indexed by the next refresh.
    @Test func writesDuringTheBuildFinishAndAreIndexedNext() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try await Self.fill(db, 20)
        let reached = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
        let index = Self.byID("1b03") { documents in
            guard documents.contains(where: { $0.id == "d010" }) else { return }
            reached.signal()
            _ = resume.wait(timeout: .now() + 10)
        }
        let build = Task { try await db.refreshIndex(index, batch: 5) }
        await Self.wait(for: reached)
        let rev = try #require(try await db.winner(id: "d019")?.rev)
        _ = try await db.put("d019", #"{"n":"edited"}"#, base: rev).get()
        _ = try await db.put("new", #"{"n":20}"#).get()
        resume.signal()
        try await build.value
        let built = try await db.indexPage(index, range: .all, descending: false, after: nil, limit: 100)
        #expect(built.count == 20 && !built.contains { $0.id == "new" })
        #expect(built.first { $0.id == "d019" }.map { String(decoding: $0.value, as: UTF8.self) } == #"{"n":19}"#)
        try await db.refreshIndex(index, batch: 5)
        let next = try await db.indexPage(index, range: .all, descending: false, after: nil, limit: 100)
        #expect(next.count == 21)
        #expect(next.first { $0.id == "d019" }.map { String(decoding: $0.value, as: UTF8.self) } == #"{"n":"edited"}"#)
    }

    /// The database deleted while a run is being mapped, others read ahead: the build
    /// ends with an error (no hang, no crash from the stages still running), and the
    /// directory can make a new database of that name, with no index in it.
    @Test func deletingTheDatabaseMidBuildEndsIt() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try await Self.fill(db, 40)
        let reached = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
        let index = Self.byID("1b04") { documents in
            guard documents.contains(where: { $0.id == "d010" }) else { return }
            reached.signal()
            _ = resume.wait(timeout: .now() + 10)
        }
        let build = Task { try await db.refreshIndex(index, batch: 5) }
        await Self.wait(for: reached)
        try store.directory.delete("db")
        resume.signal()
        await #expect(throws: (any Error).self) { try await build.value }
        let again = try store.directory.create("db")
        #expect(try await again.indexSequence(index.signature) == 0)
    }

    /// Waits for `semaphore` off Swift's cooperative pool.
    static func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }
}

private enum Work {
    /// About a millisecond of work that is not a sleep: long enough for a second map
    /// started alongside to overlap it.
    static func spin() {
        let end = DispatchTime.now().uptimeNanoseconds + 1_000_000
        while DispatchTime.now().uptimeNanoseconds < end {}
    }
}
