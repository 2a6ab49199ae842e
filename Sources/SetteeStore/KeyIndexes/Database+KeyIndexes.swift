public import SetteeJSON
internal import Synchronization

/// Key indexes (`KeyIndex`) of one database: brought up to date on demand, read
/// a page at a time, dropped when no definition names them any more.
extension Database {
    /// Documents indexed per write job while catching up: other writes run between
    /// jobs, so building a large index does not hold them up for its whole length.
    public static let indexCatchUpBatch = 2_000

    /// Entries a build gathers from its runs (of `indexCatchUpBatch` documents, read and
    /// mapped) into one write job. Keys in random order land on most leaves of the index in
    /// every job, so fewer, larger jobs write each leaf fewer times: a 100,000-document build
    /// of ~100 rows a key took 1.04–1.19 s of server CPU in jobs of 2,000 rows, 0.70–0.78 s in
    /// jobs of 10,000, 0.65–0.72 s of 20,000 (bench/RESULTS.md, "Index writes in key order").
    /// A concurrent write waits for at most one job, so a job stays a few runs long.
    static let indexBuildJobRows = 10_000

    /// Brings `index` up to the database's current update sequence.
    /// - Throws: `StoreError.invalidDocument` for a signature that cannot name a table.
    public func refreshIndex(_ index: KeyIndex, batch: Int = indexCatchUpBatch) async throws {
        try await refreshIndexes([index], batch: batch)
    }

    /// Whether `index` is known to have caught up with every write (no refresh needed).
    public func isCurrent(_ index: KeyIndex) -> Bool {
        (indexSequences.withLock { $0[index.signature] } ?? -1) >= changesNotifier.sequence
    }

    /// Brings every index of `all` up to the current update sequence together, reading
    /// each changed document once (a design document's views, as CouchDB builds them),
    /// consistently while documents are written (`KeyIndexPlan`).
    ///
    /// A failed step leaves each index at the last batch written, records the failure
    /// (`indexFailure`) and throws; the next call tries again from there.
    /// - Throws: `StoreError.invalidDocument` for a signature that cannot name a table;
    ///   a SQLite failure; what an index's `entries` threw.
    public func refreshIndexes(_ all: [KeyIndex], batch: Int = indexCatchUpBatch) async throws {
        for index in all { try Self.check(index) }
        let wanted = changesNotifier.sequence
        let behind = { (indexes: [KeyIndex]) in
            indexes.filter { index in (self.indexSequences.withLock { $0[index.signature] } ?? -1) < wanted }
        }
        guard !behind(all).isEmpty else { return }
        let signatures = all.map(\.signature)
        await indexRefreshes.hold(signatures)
        defer { indexRefreshes.release(signatures) }
        // The refresh this one waited for may have brought them far enough.
        let indexes = behind(all)
        guard !indexes.isEmpty else { return }
        do {
            try await catchUp(indexes, batch: max(1, batch))
            indexRefreshes.record(nil, for: indexes.map(\.signature))
        } catch {
            for index in indexes {
                let failure = KeyIndexFailure(error: error, sequence: (try? await indexSequence(index.signature)) ?? 0)
                indexRefreshes.record(failure, for: [index.signature])
            }
            throw error
        }
    }

    /// Why the index with `signature` last failed to catch up, while it has not caught up
    /// since: what a query's answer (or `_active_tasks`) can show instead of a bare 500.
    public func indexFailure(_ signature: String) -> KeyIndexFailure? {
        indexRefreshes.failure(signature)
    }

    /// Plans and runs a refresh; starts again from a new plan if a table was dropped meanwhile.
    private func catchUp(_ indexes: [KeyIndex], batch: Int) async throws {
        for _ in 0..<3 {
            let plan = try await readers.read(.scan) { db in try KeyIndexRecords.plan(db, indexes) }
            if try await build(plan, indexes, batch: batch) {
                indexSequences.withLock { sequences in
                    for index in indexes { sequences[index.signature] = max(sequences[index.signature] ?? 0, plan.target) }
                }
                return
            }
        }
    }

    /// Up to `limit` entries (key and value) of `index` in key order within `range`,
    /// strictly after `after`, without the documents they came from (a reduce's read).
    public func indexEntries(_ index: KeyIndex, range: KeyRange, descending: Bool, after: [UInt8]?,
                             limit: Int) async throws -> [KeyIndexEntry] {
        try Self.check(index)
        return try await readers.read(.scan) { db in
            try KeyIndexRecords.entries(db, index, range: range, descending: descending, after: after,
                                        limit: max(1, limit))
        }
    }

    /// Up to `limit` documents of `index` (nil: every live document that is not a
    /// design document, by id) in key order within `range`, strictly after `after`.
    /// `bodies: false` leaves `KeyIndexRow.body` empty (a view read without `include_docs`).
    public func indexPage(_ index: KeyIndex?, range: KeyRange, descending: Bool, after: [UInt8]?,
                          limit: Int, bodies: Bool = true) async throws -> [KeyIndexRow] {
        if let index { try Self.check(index) }
        let limit = max(1, limit)
        return try await readers.read(.scan) { db in
            guard let index else {
                return try KeyIndexRecords.allDocumentsPage(db, range: range, descending: descending,
                                                            after: after, limit: limit)
            }
            return try KeyIndexRecords.page(db, index, range: range, descending: descending, after: after,
                                            limit: limit, bodies: bodies)
        }
    }

    /// How many entries `index` holds, and how many sort before `bound` (a view's
    /// `total_rows` and `offset`). SQLite keeps no counts in its b-trees, so a sample
    /// of every `KeyIndexRanks.stride`-th key with its rank is taken once per state of
    /// the index; a rank is then a sample's plus a count of at most `stride` rows.
    public func indexCounts(_ index: KeyIndex, before bound: [UInt8]?) async throws -> (total: Int, before: Int) {
        try Self.check(index)
        let seq = try await rankedSequence(index)
        let ranks: KeyIndexRanks
        if let kept = keptRanks(index, at: seq) {
            ranks = kept
        } else {
            ranks = try await readers.read(.scan) { db in try KeyIndexRanks(db, index, sequence: seq) }
            indexRanks.withLock { $0[index.signature] = ranks }
        }
        guard let bound else { return (ranks.total, 0) }
        return (ranks.total, try await readers.read { db in try ranks.rank(of: bound, db, index) })
    }

    /// `indexCounts` and the first `indexPage` (from the start of `range`) in one read: a
    /// view query's one trip to a reader's thread and back, which cost a point query more
    /// than its SQL did (bench/RESULTS.md, "View point queries"). `point`: a read of a few
    /// rows (one key), placed as a document read is rather than as a scan.
    public func indexCountsAndPage(_ index: KeyIndex, before bound: [UInt8]?, range: KeyRange, descending: Bool,
                                   limit: Int, bodies: Bool, point: Bool)
        async throws -> (total: Int, before: Int, page: [KeyIndexRow]) {
        try await countsAnd(index, before: bound, point: point) { db in
            try KeyIndexRecords.page(db, index, range: range, descending: descending, after: nil,
                                     limit: max(1, limit), bodies: bodies)
        }
    }

    /// `indexCounts` and the first `indexEntries` in one read, as `indexCountsAndPage`:
    /// the index's own rows, joined to no document (a map query that shows none).
    public func indexCountsAndEntries(_ index: KeyIndex, before bound: [UInt8]?, range: KeyRange, descending: Bool,
                                      limit: Int, point: Bool)
        async throws -> (total: Int, before: Int, page: [KeyIndexEntry]) {
        try await countsAnd(index, before: bound, point: point) { db in
            try KeyIndexRecords.entries(db, index, range: range, descending: descending, after: nil, limit: max(1, limit))
        }
    }

    private func countsAnd<Page: Sendable>(_ index: KeyIndex, before bound: [UInt8]?, point: Bool,
                                           _ read: @escaping @Sendable (Connection) throws -> Page)
        async throws -> (total: Int, before: Int, page: Page) {
        try Self.check(index)
        let seq = try await rankedSequence(index)
        let kept = keptRanks(index, at: seq)
        let (ranks, before, page) = try await readers.read(point && kept != nil ? .point : .scan) { db in
            let ranks = try kept ?? KeyIndexRanks(db, index, sequence: seq)
            let before = try bound.map { try ranks.rank(of: $0, db, index) } ?? 0
            return (ranks, before, try read(db))
        }
        if kept == nil { indexRanks.withLock { $0[index.signature] = ranks } }
        return (ranks.total, before, page)
    }

    /// The update sequence `index` has caught up to: in memory once a refresh ran, read
    /// from the file before. A read of the index made after this call sees at least that.
    public func indexedSequence(_ index: KeyIndex) async throws -> Int64 {
        try await rankedSequence(index)
    }

    /// The sequence `index` has caught up to, which its ranks are taken at: in memory once
    /// a refresh ran, read from the file before.
    private func rankedSequence(_ index: KeyIndex) async throws -> Int64 {
        if let known = indexSequences.withLock({ $0[index.signature] }) { return known }
        return try await indexSequence(index.signature)
    }

    private func keptRanks(_ index: KeyIndex, at seq: Int64) -> KeyIndexRanks? {
        guard let kept = indexRanks.withLock({ $0[index.signature] }), kept.sequence == seq else { return nil }
        return kept
    }

    /// The update sequence the index with `signature` has caught up to (0: never built).
    public func indexSequence(_ signature: String) async throws -> Int64 {
        try await readers.read { db in
            try db.integer("SELECT seq FROM key_indexes WHERE signature = ?", [.text(signature)]) ?? 0
        }
    }

    /// Drops the stored tables of indexes whose signatures are not in `keeping`
    /// (`_index` DELETE, `_view_cleanup`).
    public func dropIndexes(keeping: Set<String>) async throws {
        indexSequences.withLock { $0 = $0.filter { keeping.contains($0.key) } }
        indexRanks.withLock { $0 = $0.filter { keeping.contains($0.key) } }
        try await writer.write { db in try KeyIndexRecords.drop(db, keeping: keeping) }
    }

    private static func check(_ index: KeyIndex) throws {
        guard KeyIndex.isValidSignature(index.signature) else {
            throw StoreError.invalidDocument("invalid index signature \(index.signature)")
        }
    }
}
