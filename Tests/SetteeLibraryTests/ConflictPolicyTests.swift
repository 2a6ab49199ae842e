import Foundation
import Settee
import Testing

/// Conflict policies from Swift: declared ones, a Swift resolver closure, `resolveConflicts()`.
@Suite struct ConflictPolicyTests {
    /// Replicates `from` into `to` once (`from` pushes).
    func replicate(_ from: Database, into to: Database) async throws {
        let push = Replicator(from, peer: .database(to), direction: .push)
        push.start()
        guard case .stopped(_, nil) = await push.finished() else { throw ReplicationFailed(status: "\(push.status)") }
    }

    struct ReplicationFailed: Error { let status: String }

    /// Document `id` of `notes` in conflict: `local` edited here, `remote` edited in another
    /// database from the same base, then pulled in.
    func conflict(_ data: DataDirectory, _ notes: Database, id: String, local: Note, remote: Note) async throws {
        let base = try await notes.save(Note(text: "base"), id: id)
        let other = try await data.database("other-" + UUID().uuidString.lowercased())
        try await replicate(notes, into: other)
        _ = try await notes.save(local, id: id, revision: base.revision)
        _ = try await other.save(remote, id: id, revision: base.revision)
        try await replicate(other, into: notes)
        try data.deleteDatabase(other.name)
    }

    /// Polls `condition` until it holds or `limit` passes.
    func eventually(_ limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            await Task.yield()
        }
        return try await condition()
    }

    @Test func aDeclaredPolicyResolvesReplicatedConflicts() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            #expect(try await notes.conflictPolicy() == nil)
            let rev = try await notes.setConflictPolicy(.max(field: "priority"))
            #expect(rev.hasPrefix("1-"))
            #expect(try await notes.conflictPolicy() == .max(field: "priority"))
            try await conflict(data, notes, id: "n1", local: Note(text: "mine", priority: 5),
                               remote: Note(text: "theirs", priority: 9))
            #expect(try await eventually { try await notes.conflicts(documentID: "n1").isEmpty })
            #expect(try await notes.document(Note.self, id: "n1")?.value == Note(text: "theirs", priority: 9))
        }
    }

    @Test func aSwiftResolverMergesAndPeersWriteTheSameRevision() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            try await conflict(data, notes, id: "n1", local: Note(text: "mine", priority: 1, tags: ["a", "b"]),
                               remote: Note(text: "theirs", priority: 2, tags: ["c", "a"]))
            let losers = try await notes.conflicts(documentID: "n1")
            #expect(losers.count == 1)
            await #expect(throws: SetteeError.noConflictPolicy(database: "notes")) { try await notes.resolveConflicts() }
            // A copy holding the same leaves, to resolve on its own.
            let copy = try await data.database("copy")
            try await replicate(notes, into: copy)
            #expect(try await copy.conflicts(documentID: "n1") == losers)

            struct Refused: Error {}
            try notes.setConflictResolver(Note.self) { _, _ in throw Refused() }
            let refused = try await notes.resolveConflicts()
            #expect(refused.resolved == 0 && refused.remaining == 1 && refused.failed.map(\.id) == ["n1"])
            #expect(refused.failed.first?.reason.contains("Refused") == true)
            #expect(try await notes.conflicts(documentID: "n1") == losers)

            let union: @Sendable ([Document<Note>], Document<Note>) throws -> Note = { leaves, winner in
                var merged = winner.value
                merged.tags = Array(Set(leaves.flatMap(\.value.tags))).sorted()
                merged.priority = leaves.map(\.value.priority).max() ?? 0
                return merged
            }
            try notes.setConflictResolver(Note.self, union)
            try copy.setConflictResolver(Note.self, union)
            let report = try await notes.resolveConflicts()
            #expect(report.failed.isEmpty && report.remaining == 0 && report.resolved <= 1)
            #expect(try await copy.resolveConflicts().remaining == 0)
            let merged = try #require(try await notes.document(Note.self, id: "n1"))
            #expect(merged.value.tags == ["a", "b", "c"] && merged.value.priority == 2)
            #expect(merged.revision.hasPrefix("3-"))
            #expect(try await notes.conflicts(documentID: "n1").isEmpty)
            // Same leaves, same resolver: the same revision, so replicating them writes nothing new.
            #expect(try await copy.document(Note.self, id: "n1")?.revision == merged.revision)
        }
    }

    @Test func aSwiftResolverRunsAfterAReplicatedWrite() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            try notes.setConflictResolver(Note.self) { leaves, _ in
                Note(text: leaves.map(\.value.text).sorted().joined(separator: "+"))
            }
            try await conflict(data, notes, id: "n1", local: Note(text: "mine"), remote: Note(text: "theirs"))
            #expect(try await eventually { try await notes.conflicts(documentID: "n1").isEmpty })
            #expect(try await notes.document(Note.self, id: "n1")?.value.text == "mine+theirs")
            try notes.removeConflictResolver()
            await #expect(throws: SetteeError.noConflictPolicy(database: "notes")) { try await notes.resolveConflicts() }
        }
    }

    @Test(.enabled(if: Database.isJavaScriptAvailable, "needs JavaScriptCore"))
    func aJavaScriptPolicyIsDeclaredAndRun() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            let source = "function (leaves, winner) { return {text: leaves.map(function (l) { return l.text; }).sort().join('|'), priority: 0, tags: []}; }"
            try await notes.setConflictPolicy(.javaScript(source))
            #expect(try await notes.conflictPolicy() == .javaScript(source))
            try await conflict(data, notes, id: "n1", local: Note(text: "x"), remote: Note(text: "y"))
            #expect(try await eventually { try await notes.conflicts(documentID: "n1").isEmpty })
            #expect(try await notes.document(Note.self, id: "n1")?.value.text == "x|y")
        }
    }

    @Test func badPoliciesAreRefused() async throws {
        try await withDataDirectory { data in
            let notes = try await data.database("notes")
            await #expect(throws: SetteeError.self) { try await notes.setConflictPolicy(.max(field: "")) }
            try await notes.setConflictPolicy(.winner, designDocument: "a")
            await #expect(throws: SetteeError.invalidDocument("_design/a declares this database's conflicts policy already")) {
                try await notes.setConflictPolicy(.merge(key: "id"), designDocument: "b")
            }
            #expect(try await notes.conflictPolicy() == .winner)
            #expect(try await notes.removeConflictPolicy(designDocument: "a") != nil)
            #expect(try await notes.removeConflictPolicy(designDocument: "a") == nil)
            #expect(try await notes.conflictPolicy() == nil)
            try await notes.setConflictPolicy(.merge(key: "id", order: "at"), designDocument: "b")
            #expect(try await notes.conflictPolicy() == .merge(key: "id", order: "at"))
            let users = try await data.database("_users")
            #expect(throws: SetteeError.forbidden("System databases take no conflicts policy.")) {
                try users.setConflictResolver(Note.self) { _, winner in winner.value }
            }
        }
    }
}
