@testable import SetteeStore
import SetteeTestSupport
import Testing

/// `Database.resolveConflicts`: one merged child of the winner and a tombstone keeping
/// each losing leaf's body, in one transaction; the same on two stores; nothing written
/// when the leaves changed since the policy read them.
@Suite struct DatabaseResolutionTests {
    let winnerRev = "1-" + String(repeating: "b", count: 32)
    let loserRev = "1-" + String(repeating: "a", count: 32)

    /// A store with `q` in conflict: leaves `winnerRev` ({"w":1}) and `loserRev` ({"l":1}).
    private func conflicted(_ store: TestStore) async throws -> Database {
        let db = try store.directory.create("db")
        _ = try await db.force("q", [loserRev], #"{"l":1}"#)
        _ = try await db.force("q", [winnerRev], #"{"w":1}"#)
        return db
    }

    private func resolution() -> Database.ConflictResolution {
        .init(id: "q", leaves: [rev(winnerRev), rev(loserRev)], mergedBody: bytes(#"{"w":1,"l":1}"#),
              tombstoneBodies: [bytes(#"{"l":1}"#)])
    }

    @Test func writesTheMergedChildAndTombstonesIdenticallyOnTwoStores() async throws {
        var trees: [[String]] = []
        for _ in 0..<2 {
            let store = try TestStore()
            defer { store.remove() }
            let db = try await conflicted(store)
            let outcomes = try await db.resolveConflicts([resolution()])
            guard case .resolved(let winner)? = outcomes.first else { Issue.record("not resolved: \(outcomes)"); return }
            let document = try #require(try await db.document(id: "q", revisions: .allLeaves))
            #expect(document.tree.winner?.rev == winner)
            #expect(winner.generation == 2)
            #expect(document.tree.conflicts.isEmpty)
            #expect(try await db.conflictedDocumentCount() == 0)
            let tombstone = try #require(document.revisions.first { $0.isDeleted })
            #expect(tombstone.body == bytes(#"{"l":1}"#))
            #expect(document.revisions.first { !$0.isDeleted }?.body == bytes(#"{"w":1,"l":1}"#))
            trees.append(document.tree.leaves.map { "\($0.rev) \($0.isDeleted)" })
        }
        #expect(trees.count == 2 && trees[0] == trees[1])
    }

    @Test func leavesChangedSinceTheReadAreStaleAndNothingIsWritten() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try await conflicted(store)
        // A third branch lands between the policy's read and its write.
        _ = try await db.force("q", ["1-" + String(repeating: "0", count: 32)], #"{"late":1}"#)
        let sequence = try await db.updateSequence()
        #expect(try await db.resolveConflicts([resolution()]) == [.stale])
        #expect(try await db.updateSequence() == sequence)
        #expect(try await db.document(id: "q", revisions: .none)?.tree.conflicts.count == 2)
    }

    /// A losing leaf's attachments stay with its tombstone, so compaction keeps their bytes
    /// ("nothing a policy does may lose a leaf's data without a revision that records it").
    @Test func aTombstoneKeepsItsLeafsAttachmentsThroughCompaction() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let photo = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let stored = try await db.storeAttachment(name: "photo.bin", contentType: "application/octet-stream", bytes: photo)
        _ = try await WriteContext.$writer.withValue(.system) {
            try await db.update([DocumentUpdate(id: "q", body: bytes(#"{"l":1}"#), history: [rev(loserRev)],
                                                attachments: [.new(stored)])], newEdits: false)
        }
        _ = try await db.force("q", [winnerRev], #"{"w":1}"#)
        #expect(try await db.resolveConflicts([resolution()]).count == 1)
        try await db.compact()
        let document = try #require(try await db.document(id: "q", revisions: .allLeaves))
        let tombstone = try #require(document.revisions.first { $0.isDeleted })
        let kept = try #require(tombstone.attachments.first)
        #expect(kept.name == "photo.bin" && kept.digest == stored.digest)
        var read: [UInt8] = []
        let download = try await db.openAttachment(kept)
        while let piece = try await download.next() { read += piece }
        #expect(read == photo)
    }

    @Test func noMergedBodyWritesOnlyTheTombstones() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try await conflicted(store)
        let keepWinner = Database.ConflictResolution(id: "q", leaves: [rev(winnerRev), rev(loserRev)],
                                                     mergedBody: nil, tombstoneBodies: [bytes(#"{"l":1}"#)])
        #expect(try await db.resolveConflicts([keepWinner]) == [.resolved(winner: rev(winnerRev))])
        #expect(try await db.conflictedDocumentCount() == 0)
    }
}
