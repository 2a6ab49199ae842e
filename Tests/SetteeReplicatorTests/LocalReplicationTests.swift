import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeStore
import Testing

/// Replication between two databases of one store, through `LocalPeer`: the
/// loop, checkpoints and faithfulness with no HTTP in the way (as LiteCore's
/// ReplicatorLoopbackTest).
@Suite struct LocalReplicationTests {
    /// Conflicts, deletions, a recreated document, attachments (one gzip-stored),
    /// a design document and a local one on `a`.
    private func fill(_ store: ReplicatorStore, _ name: String, count: Int = 60) async throws {
        let db = try store.database(name)
        for i in 0..<count { try await db.put(String(format: "doc%03d", i), #"{"n":\#(i)}"#) }
        let r1 = try await db.put("edited", #"{"v":1}"#)
        try await db.put("edited", #"{"v":2}"#, base: r1)
        let gone = try await db.put("gone")
        try await db.put("gone", base: gone, deleted: true)
        try await db.put("_design/app", #"{"views":{}}"#)
        _ = try await db.putLocal(id: "mine", body: Array(#"{"private":true}"#.utf8), rev: nil, isDeleted: false)
        // A conflict: a second branch arrives as a replicator would write it.
        let base = try await db.put("conflicted", #"{"side":"a"}"#)
        try await db.put("conflicted", #"{"side":"a2"}"#, base: base)
        let branch: JSONObject = [
            "_id": "conflicted", "_rev": "2-00000000000000000000000000000abc",
            "_revisions": ["start": 2, "ids": ["00000000000000000000000000000abc", .string(String(base.dropFirst(2)))]],
            "side": "b",
        ]
        let blob = Data((0..<5000).map { UInt8($0 % 251) }).base64EncodedString()
        let notes = Data(String(repeating: "settee ", count: 400).utf8).base64EncodedString()
        let attachments: JSONValue = [
            "blob.bin": ["content_type": "application/octet-stream", "data": .string(blob)],
            "notes.txt": ["content_type": "text/plain", "data": .string(notes)],
        ]
        let files: JSONObject = [
            "_id": "files", "_rev": "1-11111111111111111111111111111111",
            "_revisions": ["start": 1, "ids": ["11111111111111111111111111111111"]], "_attachments": attachments,
        ]
        let failures = try await store.peer(name).write([TransferRevision(json: branch), TransferRevision(json: files)])
        #expect(failures.isEmpty)
    }

    private func expectSame(_ store: ReplicatorStore, _ a: String, _ b: String) async throws {
        let source = try store.database(a), target = try store.database(b)
        let ids = try await allIDs(source)
        #expect(try await allIDs(target) == ids)
        for id in ids {
            let left = try await DocumentPicture(source, id: id), right = try await DocumentPicture(target, id: id)
            #expect(left == right, "\(id)")
        }
    }

    @Test func oneShotCopiesEveryLeafAttachmentAndDeletion() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        try await fill(store, "a")
        let outcome = try await store.replicate("a", "b") { $0.createTarget = true; $0.batchSize = 25 }
        try await expectSame(store, "a", "b")
        #expect(outcome.stats.docWriteFailures == 0)
        #expect(outcome.stats.docsWritten == outcome.stats.missingFound)
        // Both conflict branches, the same winner; the attachments kept their digests (one gzip-stored).
        let conflicted = try #require(try await DocumentPicture(try store.database("b"), id: "conflicted"))
        #expect(conflicted.leaves.count == 2)
        let files = try #require(try await store.database("b").document(id: "files", revisions: .winner))
        #expect(files.revisions.first?.attachments.contains { $0.isGzipped } == true)
        // Local documents stay where they are.
        #expect(try await store.database("b").localDocument(id: "mine") == nil)
    }

    @Test func aMissingTargetIsAnErrorWithoutCreateTarget() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        try await fill(store, "a", count: 1)
        await #expect(throws: ReplicationError.databaseNotFound("nowhere")) {
            _ = try await store.replicate("a", "nowhere")
        }
        await #expect(throws: ReplicationError.databaseNotFound("nothing")) {
            _ = try await store.replicate("nothing", "a")
        }
    }

    @Test func aSecondRunResumesFromTheCheckpointBothPeersAgreeOn() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        try await fill(store, "a", count: 30)
        let first = try await store.replicate("a", "b") { $0.createTarget = true }
        let again = try await store.replicate("a", "b")
        #expect(again.noChanges && again.stats.missingChecked == 0)
        // The checkpoint is on both sides under one id, with this session's history.
        let id = first.replicationID
        let onSource = try #require(try await store.peer("a").checkpoint(id: id))
        let onTarget = try #require(try await store.peer("b").checkpoint(id: id))
        #expect(onSource["session_id"] == onTarget["session_id"])
        #expect(onSource["history"]?.arrayValue?.count == 1)  // a run that changed nothing writes none
        // New changes only are read next time.
        let a = try store.database("a")
        for i in 0..<5 { try await a.put("new\(i)") }
        let third = try await store.replicate("a", "b")
        #expect(third.stats.missingChecked == 5 && third.stats.docsWritten == 5)
        #expect(try await store.peer("b").checkpoint(id: id)?["history"]?.arrayValue?.count == 2)
        try await expectSame(store, "a", "b")
        // A checkpoint lost on one side is not trusted: the next run starts over (and writes nothing new).
        _ = try await store.database("b").putLocal(id: id, body: Array("{}".utf8), rev: nil, isDeleted: false)
        let restarted = try await store.replicate("a", "b")
        #expect(restarted.stats.missingChecked > 30 && restarted.stats.docsWritten == 0)
    }

    @Test func checkpointHistoriesAgreeAsCouchDBCompares() {
        let s1: JSONValue = ["session_id": "s1", "recorded_seq": 10]
        let s2: JSONValue = ["session_id": "s2", "recorded_seq": 20]
        let s3: JSONValue = ["session_id": "s3", "recorded_seq": 30]
        // Same last session: its seq.
        #expect(Checkpointer.agreedSequence(["session_id": "x", "source_last_seq": 7],
                                            ["session_id": "x", "source_last_seq": 9]) == 7)
        // Different heads: the newest session both histories hold.
        #expect(Checkpointer.agreedSequence(["session_id": "s3", "history": [s3, s2, s1]],
                                            ["session_id": "s4", "history": [s2, s1]]) == 20)
        #expect(Checkpointer.agreedSequence(["session_id": "s3", "history": [s3, s1]],
                                            ["session_id": "s4", "history": [s2, s1]]) == 10)
        #expect(Checkpointer.agreedSequence(["session_id": "s3", "history": [s3]],
                                            ["session_id": "s4", "history": [s2]]) == nil)
    }

    @Test func bothWaysAfterEditsOnBothSidesEndWithTheSameWinner() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        let a = try store.database("a"), b = try store.database("b")
        let first = try await a.put("shared", #"{"v":0}"#)
        _ = try await store.replicate("a", "b")
        try await a.put("shared", #"{"v":"a"}"#, base: first)
        try await b.put("shared", #"{"v":"b"}"#, base: first)
        let gone = try await b.put("deleted-on-b")
        _ = try await store.replicate("b", "a")
        _ = try await store.replicate("a", "b")
        try await b.put("deleted-on-b", base: gone, deleted: true)
        _ = try await store.replicate("b", "a")
        try await expectSame(store, "a", "b")
        let picture = try #require(try await DocumentPicture(a, id: "shared"))
        #expect(picture.leaves.count == 2)
        #expect(try await a.document(id: "deleted-on-b", revisions: .winner)?.tree.winner?.isDeleted == true)
    }

    @Test func docIDsLimitWhatIsCopied() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        try await fill(store, "a", count: 10)
        _ = try await store.replicate("a", "b") { $0.createTarget = true; $0.docIDs = ["doc003", "files", "nope"] }
        #expect(try await allIDs(try store.database("b")) == ["doc003", "files"])
    }

    @Test func aSelectorCopiesTheMatchingDocumentsOnly() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        let a = try store.database("a")
        for i in 0..<25 { try await a.put("n\(i)", #"{"n":\#(i),"even":\#(i % 2 == 0)}"#) }
        _ = try await store.replicate("a", "b") {
            $0.createTarget = true
            $0.batchSize = 4  // several pages, each filled from more than one read
            $0.selector = ["even": true, "n": ["$gte": 10]]
        }
        #expect(try await allIDs(try store.database("b")) == ["n10", "n12", "n14", "n16", "n18", "n20", "n22", "n24"])
    }

    @Test func continuousFollowsTheSourceUntilCancelled() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        let a = try store.database("a"), b = try store.database("b")
        try await a.put("before")
        let replication = Replication(source: store.peer("a"), target: store.peer("b"),
                                      options: { var o = ReplicationOptions(); o.continuous = true; return o }(),
                                      logger: Logger(label: "test"))
        let job = Task { try await replication.run() }
        // Each write on a shows up on b: wait on b's own change notifications, no sleeps.
        var seen = await b.changesNotifier.wait(after: 0, timeout: .seconds(20)) ?? 0
        for i in 0..<3 {
            try await a.put("live\(i)")
            while try await b.document(id: "live\(i)", revisions: .winner) == nil {
                guard let next = await b.changesNotifier.wait(after: seen, timeout: .seconds(20)) else { break }
                seen = next
            }
            #expect(try await b.document(id: "live\(i)", revisions: .winner) != nil)
        }
        job.cancel()
        await #expect(throws: (any Error).self) { _ = try await job.value }
        #expect(replication.progress.stats.docsWritten == 4)
    }

    /// A continuous job that has copied a run of full pages checkpoints when it reaches the
    /// feed's end, not an interval later: a pull in a room that lost its peer seconds after
    /// a burst read the whole burst again on the peer's return (bench/RESULTS.md, churn).
    @Test func aRunOfFullPagesIsCheckpointedOnReachingTheFeedsEnd() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        let a = try store.database("a"), b = try store.database("b")
        for i in 0..<10 { try await a.put("burst\(i)") }
        var options = ReplicationOptions()
        options.continuous = true
        options.batchSize = 4  // pages of 4, 4 and 2: the last one reaches the end
        options.checkpointInterval = .seconds(3600)
        options.pollTimeout = .seconds(3600)
        let progress = try await progressOnceCheckpointed(store, options)
        #expect(progress.stats.docsWritten == 10)
        #expect(progress.checkpointedSeq != nil && progress.checkpointedSeq == progress.sourceSeq)
        #expect(try await b.document(id: "burst9", revisions: .winner) != nil)
    }

    /// A continuous job whose changes stop checkpoints what it wrote a moment later
    /// (`quietCheckpoint`), not a `checkpoint_interval` later.
    @Test func aJobThatGoesQuietCheckpointsSoon() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        let a = try store.database("a")
        _ = try store.database("b")
        for i in 0..<3 { try await a.put("few\(i)") }
        var options = ReplicationOptions()
        options.continuous = true
        options.checkpointInterval = .seconds(3600)
        options.pollTimeout = .seconds(3600)
        let progress = try await progressOnceCheckpointed(store, options)
        #expect(progress.stats.docsWritten == 3)
        #expect(progress.checkpointedSeq != nil && progress.checkpointedSeq == progress.sourceSeq)
    }

    /// Runs a continuous replication of a into b until its checkpoint records the last
    /// sequence it read (or 20 s pass), then stops it: its progress then.
    private func progressOnceCheckpointed(_ store: ReplicatorStore, _ options: ReplicationOptions) async throws
        -> Replication.Progress {
        let replication = Replication(source: store.peer("a"), target: store.peer("b"), options: options,
                                      logger: Logger(label: "test"))
        let job = Task { try await WriteContext.$writer.withValue(.system) { try await replication.run() } }
        defer { job.cancel() }
        let deadline = ContinuousClock.now + .seconds(20)
        var progress = replication.progress
        while progress.sourceSeq == nil || progress.checkpointedSeq != progress.sourceSeq {
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(20))  // polling a job's progress, with a deadline
            progress = replication.progress
        }
        return progress
    }
}
