import Foundation
import SetteeJSON
@testable import SetteeReplicator
import SetteeStore
import Testing

/// Replications into one database of this process share the revisions they copy: a device
/// back in a room pulls the same new documents from each of its peers at once (issue 41,
/// churn), and each pull used to fetch and write all of them.
@Suite struct RevisionsInFlightTests {
    static let count = 3000

    /// Three databases holding the same `count` documents (same revisions), and an empty one.
    private func threeCopies(_ store: ReplicatorStore) async throws {
        let origin = try store.database("origin")
        for start in stride(from: 0, to: Self.count, by: 500) {
            let updates = (start..<start + 500).map { DocumentUpdate(id: String(format: "doc%05d", $0), body: Array(#"{"n":\#($0)}"#.utf8)) }
            _ = try await WriteContext.$writer.withValue(.system) { try await origin.update(updates, newEdits: true) }
        }
        for name in ["s1", "s2", "s3"] { _ = try await store.replicate("origin", name) { $0.createTarget = true } }
        _ = try store.database("t")
    }

    @Test func threePullsOfTheSameDocumentsWriteEachOnce() async throws {
        let store = try ReplicatorStore()
        defer { store.remove() }
        try await threeCopies(store)
        async let one = store.replicate("s1", "t")
        async let two = store.replicate("s2", "t")
        async let three = store.replicate("s3", "t")
        let outcomes = try await [one, two, three]
        let written = outcomes.map(\.stats.docsWritten)
        // Each revision fetched and written by one of them (a few twice at most, when one
        // asked before another had claimed them): not three times.
        #expect(written.reduce(0, +) < Self.count * 6 / 5, "\(written)")
        #expect(try await allIDs(try store.database("t")).count == Self.count)
        #expect(try await allIDs(try store.database("t")) == allIDs(try store.database("origin")))
    }

    @Test func aClaimedCopyThatFailsIsCopiedByTheWaitingOne() async throws {
        let inFlight = RevisionsInFlight()
        let requests = (0..<3).map { RevisionRequest(id: "d\($0)", rev: "1-a", attsSince: []) }
        let first = RevisionsInFlight.Claim(), second = RevisionsInFlight.Claim()
        let (mine, none) = inFlight.claim(requests, into: "t", for: first)
        #expect(mine.count == 3 && none.isEmpty)
        let (nothing, theirs) = inFlight.claim(requests, into: "t", for: second)
        #expect(nothing.isEmpty && theirs.count == 3)
        // Another database's copies are its own.
        #expect(inFlight.claim(requests, into: "u", for: second).mine.count == 3)
        async let waited: Void = theirs[0].1.wait()
        inFlight.release(mine, in: "t", by: first)  // written, or failed: the waiter asks again
        await waited
        #expect(inFlight.claim(requests, into: "t", for: second).mine.count == 3)
    }
}
