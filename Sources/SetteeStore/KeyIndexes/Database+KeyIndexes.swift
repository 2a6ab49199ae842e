public import SetteeJSON
internal import Synchronization

/// Key indexes (`KeyIndex`) of one database: brought up to date on demand, read
/// a page at a time, dropped when no definition names them any more.
extension Database {
    /// Documents indexed per write job while catching up: other writes run between
    /// jobs, so building a large index does not hold them up for its whole length.
    public static let indexCatchUpBatch = 2_000

    /// Brings `index` up to the database's current update sequence.
    /// - Throws: `StoreError.invalidDocument` for a signature that cannot name a table.
    public func refreshIndex(_ index: KeyIndex, batch: Int = indexCatchUpBatch) async throws {
        try await refreshIndexes([index], batch: batch)
    }

    /// Whether `index` is known to have caught up with every write (no refresh needed).
    public func isCurrent(_ index: KeyIndex) -> Bool {
        (indexSequences.withLock { $0[index.signature] } ?? -1) >= changesNotifier.sequence
    }

    /// Brings every index of `indexes` up to the current update sequence together,
    /// reading each changed document once (a design document's views, as CouchDB
    /// builds them).
    public func refreshIndexes(_ all: [KeyIndex], batch: Int = indexCatchUpBatch) async throws {
        for index in all { try Self.check(index) }
        let target = changesNotifier.sequence
        let batch = max(1, batch)
        let indexes = all.filter { index in (indexSequences.withLock { $0[index.signature] } ?? -1) < target }
        guard !indexes.isEmpty else { return }
        var prepared = try await prepare(indexes, target: target, batch: batch, empty: nil, known: nil)
        let empty = prepared.batch.empty
        var task: Int?
        defer { if let task { tasks.end(task) } }
        var done = 0
        while true {
            // The next batch is read and mapped while this one is written (two cores busy).
            let current = prepared
            let upcoming: Task<PreparedStep, any Error>? = current.batch.isDone || current.batch.reached >= target ? nil
                : Task { try await self.prepare(indexes, target: target, batch: batch, empty: empty,
                                                known: current.batch.nextSinces) }
            let step: KeyIndexRecords.Step
            do {
                step = try await write(current, indexes, target: target, batch: batch, empty: empty)
            } catch {
                upcoming?.cancel()
                throw error
            }
            done += step.documents
            if step.isDone {
                upcoming?.cancel()
                break
            }
            if task == nil {
                // A build that takes more than one job shows in `_active_tasks` (CouchDB's
                // `indexer`); its total is the changes since the table's sequence, an upper bound.
                task = tasks.begin(.indexing(label: indexes[0].label), database: name,
                                   totalChanges: Int(target - step.since))
            }
            if let task { tasks.progress(task, changesDone: done) }
            if let upcoming {
                prepared = try await upcoming.value
            } else {
                prepared = try await prepare(indexes, target: target, batch: batch, empty: empty, known: nil)
            }
        }
        indexSequences.withLock { sequences in
            for index in indexes { sequences[index.signature] = max(sequences[index.signature] ?? 0, target) }
        }
    }

    /// A batch read from a reader's snapshot and mapped: the part of a catch-up step that
    /// needs no lock, so a slow map function (up to its time limit per call) holds up no
    /// other write to the database.
    private struct PreparedStep: Sendable {
        let batch: KeyIndexRecords.Batch
        let entries: [[[KeyIndexEntry]]]
    }

    private func prepare(_ indexes: [KeyIndex], target: Int64, batch: Int, empty: Set<String>?,
                         known: [Int64]?) async throws -> PreparedStep {
        let read = try await readers.read(.scan) { db in
            try KeyIndexRecords.read(db, indexes, to: target, batch: batch, empty: empty, known: known)
        }
        return PreparedStep(batch: read, entries: read.isDone ? [] : try KeyIndexRecords.entries(indexes, read))
    }

    /// Writes a prepared batch when nothing it read has moved since; otherwise (or when
    /// there was nothing to map) does the whole step inside the writer.
    private func write(_ prepared: PreparedStep, _ indexes: [KeyIndex], target: Int64, batch: Int,
                       empty: Set<String>) async throws -> KeyIndexRecords.Step {
        if !prepared.batch.isDone, let step = try await writer.write({ db in
            try KeyIndexRecords.apply(db, indexes, prepared.batch, prepared.entries, limit: batch)
        }) {
            return step
        }
        return try await writer.write { db in
            try KeyIndexRecords.catchUp(db, indexes, to: target, batch: batch, empty: empty)
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
        // The sequence a refresh reached is in memory; read from the file only before one ran.
        let known = indexSequences.withLock { $0[index.signature] }
        let seq: Int64
        if let known { seq = known } else { seq = try await indexSequence(index.signature) }
        let ranks: KeyIndexRanks
        if let kept = indexRanks.withLock({ $0[index.signature] }), kept.sequence == seq {
            ranks = kept
        } else {
            ranks = try await readers.read(.scan) { db in try KeyIndexRanks(db, index, sequence: seq) }
            indexRanks.withLock { $0[index.signature] = ranks }
        }
        guard let bound else { return (ranks.total, 0) }
        return (ranks.total, try await readers.read { db in try ranks.rank(of: bound, db, index) })
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
