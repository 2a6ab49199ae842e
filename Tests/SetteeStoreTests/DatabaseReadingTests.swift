import Testing
@testable import SetteeStore
import Logging

@Suite struct DatabaseReadingTests {
    @Test func readsSelectedRevisions() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"v":1}"#).get()
        let second = try await db.put("a", #"{"v":2}"#, base: first).get()
        let winner = try #require(try await db.document(id: "a", revisions: .winner))
        #expect(winner.revisions.map(\.rev) == [second])
        #expect(winner.revisions.first?.body == bytes(#"{"v":2}"#))
        #expect(winner.sequence == 2)
        let old = try await db.document(id: "a", revisions: .revision(first))
        #expect(old?.revisions.first?.body == bytes(#"{"v":1}"#))
        let unknown = try await db.document(id: "a", revisions: .revision(rev("9-zz")))
        #expect(unknown?.revisions.isEmpty == true)
        let both = try await db.document(id: "a", revs: [second, first, rev("7-x")])
        #expect(both?.revisions.map(\.rev) == [second, first])
        #expect(try await db.document(id: "nope", revisions: .winner) == nil)
    }

    /// `documents` reads several in one trip to a reader: each as `document(id:revisions:)`
    /// reads it alone, in the order asked, nil for an id never written (`_bulk_get`).
    @Test func readsSeveralDocumentsTogetherAsEachAlone() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"v":1}"#).get()
        let second = try await db.put("a", #"{"v":2}"#, base: first).get()
        _ = try await db.put("b", #"{"w":1}"#).get()
        let lookups: [(id: String, revisions: RevisionSelection)] =
            [("b", .allLeaves), ("nope", .winner), ("a", .revision(first)), ("a", .revision(rev("9-zz"))), ("a", .winner)]
        let together = try await db.documents(lookups)
        #expect(together.count == lookups.count)
        for (lookup, read) in zip(lookups, together) {
            let alone = try await db.document(id: lookup.id, revisions: lookup.revisions)
            #expect(read?.id == alone?.id)
            #expect(read?.revisions.map(\.rev) == alone?.revisions.map(\.rev))
            #expect(read?.revisions.map(\.body) == alone?.revisions.map(\.body))
        }
        #expect(together[1] == nil)
        #expect(together[2]?.revisions.first?.body == bytes(#"{"v":1}"#))
        #expect(together[4]?.revisions.map(\.rev) == [second])
        #expect(try await db.documents([]).isEmpty)
    }

    /// `.winner` takes the body and the attachment check from the statement that reads
    /// the tree; it must give what reading the same revision by id gives, conflicts or not.
    @Test func winnerReadMatchesReadingTheWinnerById() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a", #"{"v":1}"#).get()
        _ = try await db.put("a", #"{"v":2}"#, base: first).get()
        _ = try await db.update([DocumentUpdate(id: "a", body: bytes(#"{"v":"other"}"#), isDeleted: false,
                                                history: [rev("2-ffff"), first])], newEdits: false)
        let winner = try #require(try await db.document(id: "a", revisions: .winner))
        let rev = try #require(winner.tree.winner?.rev)
        let byID = try #require(try await db.document(id: "a", revisions: .revision(rev)))
        #expect(winner.tree.leaves.count == 2)
        #expect(winner.revisions.map(\.rev) == [rev])
        #expect(winner.revisions.first?.body == byID.revisions.first?.body)
        #expect(winner.revisions.first?.body != nil)
        #expect(winner.revisions.first?.attachments.isEmpty == true)
    }

    /// Readers map the file (`PRAGMA mmap_size`) as configured, 0 meaning `pread`,
    /// and a mapped reader sees every commit made after it opened.
    @Test(arguments: [0, 1 << 20])
    func readersMapTheFileAsConfigured(mmapSize: Int) async throws {
        let store = try TestStore()
        defer { store.remove() }
        var configuration = store.directory.configuration
        configuration.readerMmapSize = mmapSize
        let directory = try DatabaseDirectory(configuration: configuration, logger: .init(label: "test"))
        let db = try directory.create("mapped")
        let mapped = try await db.readers.read { try $0.integer("PRAGMA mmap_size") }
        #expect(mapped == Int64(mmapSize))
        for n in 0..<200 { _ = try await db.put("doc\(n)", #"{"n":\#(n)}"#) }
        let last = try #require(try await db.document(id: "doc199", revisions: .winner))
        #expect(last.revisions.first?.body == bytes(#"{"n":199}"#))
    }

    @Test func changesListEachDocumentOnceAtLatestSeq() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let a1 = try await db.put("a").get()
        _ = try await db.put("b")
        _ = try await db.put("a", base: a1, deleted: true)
        let changes = try await db.changes(since: 0, limit: nil, descending: false)
        #expect(changes.map(\.id) == ["b", "a"])
        #expect(changes.map(\.sequence) == [2, 3])
        #expect(changes.last?.isDeleted == true)
        #expect(try await db.changes(since: 2, limit: nil, descending: false).map(\.id) == ["a"])
        #expect(try await db.changes(since: 0, limit: 1, descending: true).map(\.id) == ["a"])
        #expect(try await db.changes(since: 0, limit: nil, descending: false, docIDs: ["b", "zz"]).map(\.id) == ["b"])
    }

    @Test func changesListLeavesWinnerFirst() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.force("a", ["2-b", "1-a"])
        _ = try await db.force("a", ["2-c", "1-a"])
        _ = try await db.force("a", ["3-d", "2-e", "1-a"], deleted: true)
        let change = try #require(try await db.changes(since: 0, limit: nil, descending: false).first)
        #expect(change.leaves == [rev("2-c"), rev("2-b"), rev("3-d")])
        #expect(!change.isDeleted)
    }

    /// A page is one statement joining the documents and their revision rows
    /// (`DocumentRecords.changes`): each document's leaves must still be its own, however
    /// many rows each has, and the limit counts documents, not rows.
    @Test func aPageOfChangesGivesEachDocumentItsOwnLeaves() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.force("x", ["2-b", "1-a"])
        _ = try await db.force("x", ["2-c", "1-a"])
        _ = try await db.force("y", ["1-y"])
        _ = try await db.force("z", ["3-f", "2-e", "1-d"])
        _ = try await db.force("z", ["2-g", "1-d"], deleted: true)
        _ = try await db.force("w", ["1-w"])
        let page = try await db.changes(since: 0, limit: 3, descending: false)
        #expect(page.map(\.id) == ["x", "y", "z"])
        #expect(page.map(\.leaves) == [[rev("2-c"), rev("2-b")], [rev("1-y")], [rev("3-f"), rev("2-g")]])
        #expect(page.map(\.isDeleted) == [false, false, false])
        let rest = try await db.changes(since: page[2].sequence, limit: 3, descending: false)
        #expect(rest.map(\.id) == ["w"])
        #expect(try await db.changes(since: rest[0].sequence, limit: 3, descending: false).isEmpty)
    }

    @Test func revisionsDiffReportsMissingAndAncestors() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        _ = try await db.force("a", ["2-b", "1-a"])
        let diff = try await db.revisionsDiff([(id: "a", revs: [rev("2-b"), rev("3-c"), rev("1-z")]),
                                               (id: "b", revs: [rev("1-q")]),
                                               (id: "a2", revs: [])])
        #expect(diff.map(\.id) == ["a", "b"])
        #expect(diff[0].missing == [rev("3-c"), rev("1-z")])
        #expect(diff[0].possibleAncestors == [rev("2-b")])
        #expect(diff[1].missing == [rev("1-q")] && diff[1].possibleAncestors.isEmpty)
    }

    @Test func infoCountsAndSecurity() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let first = try await db.put("a").get()
        _ = try await db.put("b")
        _ = try await db.put("a", base: first, deleted: true)
        let info = try await db.info()
        #expect(info.docCount == 1 && info.deletedDocCount == 1 && info.updateSeq == 3)
        #expect(info.fileSize > 0 && !info.isCompacting)
        #expect(try await db.security() == bytes("{}"))
        try await db.setSecurity(bytes(#"{"admins":{}}"#))
        #expect(try await db.security() == bytes(#"{"admins":{}}"#))
    }
}
