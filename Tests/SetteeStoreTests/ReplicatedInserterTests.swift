@testable import SetteeStore
import SetteeTestSupport
import Testing

/// `Inserter+Replication`: runs of replicated new ids written with multi-row
/// INSERTs must store exactly what `merge` stores one document at a time.
@Suite struct ReplicatedInserterTests {
    /// Random replicated batches (new, existing and repeated ids; histories short,
    /// long, stemmed and malformed; deleted leaves; new attachments and stubs), each
    /// written as one job in runs into one database and one by one into another:
    /// the results and every row of every table must be the same.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func runsStoreWhatOneByOneStores(seed: UInt64) async throws {
        let store = try TestStore()
        defer { store.remove() }
        let inRuns = try store.directory.create("runs")
        let oneByOne = try store.directory.create("one-by-one")
        var random = SplitMix(state: seed)
        for db in [inRuns, oneByOne] {
            try await db.setRevsLimit(6)
            for n in 0..<10 { _ = try await db.put("doc\(n * 7)", #"{"existing":\#(n)}"#) }
        }
        var runs = 0, runsUndone = 0
        for _ in 0..<4 {
            let batch = (0..<150).map { _ in Self.replicatedUpdate(&random) }
            let expected = try await Self.write(batch, to: oneByOne, inRuns: false).results
            let (results, sql) = try await Self.write(batch, to: inRuns, inRuns: true)
            #expect(results == expected)
            runs += sql.filter { $0.hasPrefix("INSERT INTO docs(doc_id") }.count
            runsUndone += sql.filter { $0.hasPrefix("DELETE FROM docs WHERE doc_id BETWEEN") }.count
        }
        // Both ways a run can go were taken: written as a run, and undone for an existing id.
        #expect(runsUndone > 0 && runs > runsUndone * 2, "\(runs) runs, \(runsUndone) undone")
        let stored = try await Self.rows(of: inRuns)
        #expect(stored == (try await Self.rows(of: oneByOne)))
        #expect(stored.count > 1_000)  // the batches did write
        let totals = try await inRuns.readers.read { (try DocumentCounts.totals($0), try DocumentCounts.recount($0)) }
        #expect(totals.0 == totals.1)
    }

    /// A run of new documents is one INSERT into `docs`, and revisions 50 to an INSERT.
    @Test func aRunOfNewDocumentsIsOneInsertIntoDocs() async throws {
        let store = try TestStore()
        defer { store.remove() }
        let db = try store.directory.create("db")
        let updates = (0..<Inserter.runLength).map { n in
            DocumentUpdate(id: "d\(n)", body: bytes(#"{"n":\#(n)}"#),
                           history: [rev(3, "c\(n)"), rev(2, "b\(n)"), rev(1, "a\(n)")])
        }
        let (results, sql) = try await Self.write(updates, to: db, inRuns: true)
        #expect(results == updates.map { .success($0.history[0]) })
        #expect(sql.filter { $0.hasPrefix("INSERT INTO docs") }.count == 1)
        #expect(sql.filter { $0.hasPrefix("INSERT INTO revs") }.count == 3)  // 150 rows
        #expect(!sql.contains { $0.hasPrefix("SELECT") && $0.contains("FROM docs d") })  // no document read
        let document = try #require(try await db.document(id: "d7", revisions: .winner))
        #expect(document.tree.history(of: rev(3, "c7")) == [rev(3, "c7"), rev(2, "b7"), rev(1, "a7")])
        #expect(document.revisions.first?.body == bytes(#"{"n":7}"#))
    }

    // MARK: Helpers

    /// Writes `updates` as one job; returns the results and the statements it ran.
    private static func write(_ updates: [DocumentUpdate], to db: Database, inRuns: Bool)
        async throws -> (results: [Result<RevisionID, StoreError>], sql: [String]) {
        try await tracedJob(db) { connection, job in
            inRuns ? try Inserter.merge(connection, updates, job: &job)
                   : try updates.map { try Inserter.merge(connection, $0, job: &job) }
        }
    }

    /// Every row of `docs`, `revs`, `attachments` and `info`, as text.
    private static func rows(of db: Database) async throws -> [String] {
        try await db.readers.read { connection in
            var rows: [String] = []
            for sql in ["SELECT doc_id, docid, seq, winner, winner_seq, deleted FROM docs ORDER BY doc_id",
                        "SELECT sequence, doc_id, revid, parent, current, deleted, json FROM revs ORDER BY sequence",
                        """
                        SELECT sequence, name, content_type, hex(digest), revpos, length, encoded_length, encoding
                        FROM attachments ORDER BY sequence, name
                        """,
                        "SELECT key, value FROM info ORDER BY key",
                        "SELECT seq FROM sqlite_sequence WHERE name = 'revs'"] {
                try connection.query(sql) { row in
                    rows.append((0..<row.columnCount).map { row.text($0) ?? "NULL" }.joined(separator: "|"))
                }
            }
            return rows
        }
    }

    private static func replicatedUpdate(_ random: inout SplitMix) -> DocumentUpdate {
        // Mostly new ids, sometimes one that exists or repeats.
        let id = Int.random(in: 0..<25, using: &random) == 0 ? "doc\(Int.random(in: 0..<90, using: &random))"
                                                            : "new\(Int.random(in: 0..<1_000_000, using: &random))"
        let length = Int.random(in: 1...9, using: &random)  // past revs_limit 6 sometimes
        let newest = Int.random(in: length...length + 3, using: &random)
        var history = (0..<length).map { rev(newest - $0, "s\(Int.random(in: 0..<3, using: &random))") }
        if Int.random(in: 0..<20, using: &random) == 0, history.count > 1 { history.remove(at: 1) }  // a gap
        var attachments: [AttachmentUpdate] = []
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            let digest = AttachmentDigest(md5: (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })!
            attachments = [.new(StoredAttachment(name: "a.txt", contentType: "text/plain", digest: digest,
                                                 revpos: 0, length: 5, encodedLength: 5))]
        case 1:
            attachments = [.stub(name: "a.txt", digest: nil)]
        default:
            break
        }
        return DocumentUpdate(id: id, body: bytes(#"{"v":\#(Int.random(in: 0..<1000, using: &random))}"#),
                              isDeleted: Int.random(in: 0..<8, using: &random) == 0, history: history,
                              attachments: attachments)
    }
}

private func rev(_ generation: Int, _ suffix: String) -> RevisionID {
    RevisionID(generation: generation, suffix: suffix)
}
