import Dispatch
import Foundation
import Synchronization
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

    /// A limit lowered after the writes takes effect at compaction, and the used
    /// bytes are then measured below the file's size.
    @Test func compactionStemsToTheRevsLimitAndMeasuresActive() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        var rev = try await db.put("a", #"{"v":0}"#).get()
        for n in 1...6 { rev = try await db.put("a", #"{"v":\#(n)}"#, base: rev).get() }
        for n in 0..<50 {
            let gone = try await db.put("x\(n)", #"{"pad":"\#(String(repeating: "x", count: 300))"}"#).get()
            _ = try await db.put("x\(n)", base: gone, deleted: true).get()
        }
        try await db.setRevsLimit(3)
        #expect(try await db.document(id: "a", revisions: .winner)?.tree.nodes.count == 7)
        try await db.compact()
        let tree = try #require(try await db.document(id: "a", revisions: .winner)?.tree)
        #expect(tree.nodes.count == 3)
        #expect(tree.history(of: rev).count == 3)
        let info = try await db.info()
        #expect(info.activeSize < info.fileSize)
        #expect(info.activeSize > 0)
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

    /// Compaction's last checkpoint waits for readers to leave the WAL, and writes
    /// wait behind it: a read held open must delay them by about a second, not by
    /// the 10 s busy timeout (then the WAL is simply left to a later checkpoint).
    @Test func aHeldReadDelaysCompactionAndWritesBrieflyOnly() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        for n in 0..<20 { _ = try await db.put("d\(n)") }
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let watchdogFired = Atomic<Bool>(false)
        // A read that has taken its snapshot and holds it until released.
        async let held: Int64? = db.readers.read { connection in
            let count = try connection.integer("SELECT count(*) FROM docs")
            started.signal()
            release.wait()
            return count
        }
        await withCheckedContinuation { c in DispatchQueue.global().async { started.wait(); c.resume() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            watchdogFired.store(true, ordering: .relaxed)
            release.signal()
        }
        let clock = ContinuousClock()
        let began = clock.now
        try await db.compact()
        _ = try await db.put("after")
        let waited = clock.now - began
        let fired = watchdogFired.load(ordering: .relaxed)
        release.signal()
        #expect(try await held == 20)
        #expect(!fired)
        #expect(waited < .seconds(5), "compaction and a write behind it took \(waited)")
        #expect(try await db.info().docCount == 21)
    }

    /// A compaction that stops on an error says so (the `_compact` handler logs it)
    /// instead of ending silently, and the database goes on working.
    @Test func aFailedCompactionIsReported() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        // Without its blob directory the sweep cannot list blobs.
        try FileManager.default.removeItem(atPath: BlobStore.directory(forDatabaseFile: db.path))
        let failure = Mutex<String?>(nil)
        try await db.startCompaction { error in failure.withLock { $0 = "\(error)" } }
        // The failure is reported before the compaction counts as finished.
        for _ in 0..<500 where try await db.info().isCompacting {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(try await db.info().isCompacting == false)
        #expect(failure.withLock { $0 }?.contains("opendir") == true, "\(String(describing: failure.withLock { $0 }))")
        _ = try await db.put("b")
        #expect(try await db.info().docCount == 2)
    }

    /// Issue 47, item 1: a compaction that fails after it started (`POST _compact` already
    /// answered 202) stays in the tasks with its error, until the next one begins.
    @Test func aFailedCompactionStaysListedWithItsError() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.put("a")
        try FileManager.default.removeItem(atPath: BlobStore.directory(forDatabaseFile: db.path))
        await #expect(throws: StoreError.self) { try await db.compact() }
        let failed = store.directory.tasks.all.filter { $0.kind == .compaction && $0.database == "db" }
        #expect(failed.count == 1)
        #expect(failed.first?.error?.contains("opendir") == true, "\(failed)")
        try FileManager.default.createDirectory(atPath: BlobStore.directory(forDatabaseFile: db.path),
                                                withIntermediateDirectories: false)
        try await db.compact()
        #expect(store.directory.tasks.all.isEmpty)
    }

    /// A failed compaction's task goes with its database.
    @Test func aFailedCompactionIsForgottenWithItsDatabase() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        try FileManager.default.removeItem(atPath: BlobStore.directory(forDatabaseFile: db.path))
        await #expect(throws: StoreError.self) { try await db.compact() }
        #expect(store.directory.tasks.all.count == 1)
        try store.directory.delete("db")
        #expect(store.directory.tasks.all.isEmpty)
    }

    /// Issue 47, item 3: a blob uploaded before a compaction's sweep, whose revision is
    /// written after it, is kept: the write succeeds and the bytes read back (the sweep
    /// deleted it and the write failed with `attachmentNotFound`, 404 "Document is missing
    /// attachment"). Both storage forms: a blob file, and a small blob stored by the write.
    @Test(arguments: [nil, 0] as [Int?])
    func anUploadFinishedBeforeTheSweepSurvivesIt(inlineAttachmentLimit: Int?) async throws {
        let store = try TestStore(inlineAttachmentLimit: inlineAttachmentLimit)
        defer { store.remove() }
        let db = try store.directory.create("db")
        let payload = (0..<50_000).map { _ in UInt8.random(in: 0...255) }
        let uploaded = try await db.storeAttachment(name: "a.bin", contentType: "application/octet-stream", bytes: payload)
        try await db.compact()
        let written = try await db.update([DocumentUpdate(id: "d", body: bytes("{}"), baseRevision: nil,
                                                          attachments: [.new(uploaded)])], newEdits: true)[0]
        #expect(throws: Never.self) { try written.get() }
        let stored = try #require(try await db.document(id: "d", revisions: .winner)?.revisions.first?.attachments.first)
        #expect(try await db.attachmentData(stored) == payload)
    }

    /// Once the write naming a blob is done (and the upload's attachment dropped), the
    /// blob is no longer pinned, and an unreferenced one is swept as before.
    @Test func aBlobNoWriteNamesIsSweptOnceItsUploadIsGone() async throws {
        let store = try TestStore(inlineAttachmentLimit: 0)
        defer { store.remove() }
        let db = try store.directory.create("db")
        var uploaded: StoredAttachment? = try await db.storeAttachment(
            name: "a.bin", contentType: "application/octet-stream", bytes: Array(repeating: 7, count: 10_000))
        let key = try #require(uploaded?.digest)
        try await db.compact()
        #expect(db.blobs.contains(key))
        #expect(db.blobs.pins.isPinned(key))
        uploaded = nil
        #expect(!db.blobs.pins.isPinned(key))
        try await db.compact()
        #expect(!db.blobs.contains(key))
    }

    /// `POST _compact` is refused before anything starts when VACUUM could not finish:
    /// it needs twice the used pages free (https://sqlite.org/lang_vacuum.html).
    @Test func compactionNeedsTwiceTheUsedBytesFree() throws {
        #expect(throws: StoreError.notEnoughSpaceToCompact(path: "p", needed: 2000, available: 1999)) {
            try Database.requireSpaceToCompact(usedBytes: 1000, availableBytes: 1999, path: "p")
        }
        #expect(throws: Never.self) { try Database.requireSpaceToCompact(usedBytes: 1000, availableBytes: 2000, path: "p") }
    }

    /// The first step goes in write jobs of bounded size: every non-leaf body is dropped
    /// whatever range of rows it falls in, every leaf body stays, one commit per range.
    @Test func oldBodiesAreDroppedOneRangeOfRowsPerJob() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        var firsts: [RevisionID] = [], lasts: [RevisionID] = []
        for n in 0..<5 {
            let first = try await db.put("d\(n)", #"{"v":1}"#).get()
            firsts.append(first)
            lasts.append(try await db.put("d\(n)", #"{"v":2}"#, base: first).get())
        }
        let commitsBefore = db.writer.commitCount
        var fractions: [Double] = []
        try await db.dropOldBodiesInJobs(sequencesPerJob: 3) { fractions.append($0) }
        #expect(db.writer.commitCount - commitsBefore == 1 + 4)  // max(sequence), then 10 rows in ranges of 3
        #expect(fractions.last == 1)
        for n in 0..<5 {
            #expect(try await db.document(id: "d\(n)", revisions: .revision(firsts[n]))?.revisions.first?.body == nil)
            #expect(try await db.document(id: "d\(n)", revisions: .revision(lasts[n]))?.revisions.first?.body == bytes(#"{"v":2}"#))
        }
    }
}
