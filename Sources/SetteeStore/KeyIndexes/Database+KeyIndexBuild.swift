internal import Dispatch

/// A refresh's runs as a pipeline of three stages, each on threads of its own, each
/// working on a different run at once: the documents of run i + 2 are read (a reader's
/// thread), run i + 1 is mapped (the map queue, and the key functions' own threads), and
/// run i is written (the writer). One after another, a 100,000-document build spent its
/// wall time reading then mapping each run while the writer waited (bench/RESULTS.md,
/// "View builds pipelined").
///
/// Each stage hands one run to the next and starts the following run only when that
/// one is taken. The writer takes runs a few at a time (`indexBuildJobRows` entries, in
/// key order into a new index: `SortedRows`), one job while the next runs are read and
/// mapped, so at most two jobs' runs and two more are held at once, and a concurrent write
/// waits for at most one job.
extension Database {
    /// Writes `plan` a run at a time; false when a table was not where the plan left it.
    /// A step that fails leaves its indexer task in `_active_tasks` with the error (CouchDB's
    /// `indexer`, with Settee's `error`), until a later build of the index succeeds.
    func build(_ plan: KeyIndexPlan, _ indexes: [KeyIndex], batch: Int) async throws -> Bool {
        let kind = StoreTasks.Task.Kind.indexing(label: indexes[0].label)
        var task: Int?
        do {
            let built = try await buildRuns(plan, indexes, batch: batch, task: &task)
            if let task { tasks.end(task) }
            if built { tasks.clearFailures(kind, database: name) }
            return built
        } catch is CancellationError {
            if let task { tasks.end(task) }
            throw CancellationError()
        } catch {
            tasks.fail(task ?? tasks.begin(kind, database: name, totalChanges: plan.documents.count), error: "\(error)")
            throw error
        }
    }

    private func buildRuns(_ plan: KeyIndexPlan, _ indexes: [KeyIndex], batch: Int, task: inout Int?) async throws -> Bool {
        let runs = plan.runs(of: batch)
        guard !runs.isEmpty else { return true }
        var stages = BuildStages(database: self, plan: plan, indexes: indexes, runs: runs)
        defer { stages.cancel() }
        var group = WriteGroup(), writing: Task<Bool, any Error>?
        for (number, run) in runs.enumerated() {
            let prepared: PreparedRun
            do {
                prepared = try await stages.next()
            } catch {
                // The runs mapped before the one that failed are written: the index stands
                // at the last of them, and the next refresh starts there.
                _ = try? await writing?.value
                if !group.runs.isEmpty { _ = try? await writeGroup(plan, indexes, group).value }
                throw error
            }
            group.add(run, prepared)
            if task == nil, number + 1 < runs.count {
                // A build of more than one run shows in `_active_tasks` (CouchDB's `indexer`).
                task = tasks.begin(.indexing(label: indexes[0].label), database: name, totalChanges: plan.documents.count)
            }
            if let task { tasks.progress(task, changesDone: run.upperBound) }
            guard group.rows >= Self.indexBuildJobRows || number + 1 == runs.count else { continue }
            // One job written while the next group is read and mapped.
            if let writing, try await !writing.value { return false }
            writing = writeGroup(plan, indexes, group)
            group = WriteGroup()
        }
        return try await writing?.value ?? true
    }

    /// Writes `group` in one job, started at once.
    private func writeGroup(_ plan: KeyIndexPlan, _ indexes: [KeyIndex], _ group: WriteGroup) -> Task<Bool, any Error> {
        let from = plan.cursors(before: group.documents.lowerBound), to = plan.cursors(through: group.documents.upperBound)
        let writer = writer, runs = group.runs
        return Task {
            // Not fsync'd at COMMIT when nothing else shares the transaction: rows a
            // power cut may lose (the index's cursor with them) are mapped again by the
            // next refresh. A 100,000-document build was 51 fsyncs, 4 ms each here.
            try await writer.write(durable: false) { db in
                try KeyIndexRecords.write(db, indexes, plan, runs, from: from, to: to)
            }
        }
    }

    /// Run `run` of `plan` read from a reader's snapshot: the part of a step that needs no lock.
    func readRun(_ plan: KeyIndexPlan, _ run: Range<Int>) async throws -> KeyIndexBatch {
        let after = run.lowerBound == 0 ? plan.since : plan.documents[run.lowerBound - 1].seq
        return try await readers.read(.scan) { db in
            try KeyIndexRecords.read(db, plan.documents[run], after: after, target: plan.target)
        }
    }

    /// The entries of `batch` for each index: a slow map function (up to its time limit
    /// per call) holds up no other write to the database.
    static func mapRun(_ plan: KeyIndexPlan, _ indexes: [KeyIndex], _ batch: KeyIndexBatch) async throws
        -> [[[KeyIndexEntry]]] {
        // The map functions block (a view's JavaScript, up to its time limit per call): on
        // a queue of their own, never on Swift's cooperative pool (STYLE rule 17).
        try await withCheckedThrowingContinuation { continuation in
            mapQueue.async { continuation.resume(with: Result { try KeyIndexRecords.entries(indexes, plan, batch) }) }
        }
    }

    /// Where key functions run: concurrent, as two builds (of two databases) map at once.
    private static let mapQueue = DispatchQueue(label: "settee.key-index.map", attributes: .concurrent)
}

/// Runs read and mapped, not written yet: one write job's worth.
struct WriteGroup {
    private(set) var runs: [PreparedRun] = []
    /// The plan's documents they hold.
    private(set) var documents: Range<Int> = 0..<0
    /// How many entries they map to.
    private(set) var rows = 0

    mutating func add(_ run: Range<Int>, _ prepared: PreparedRun) {
        documents = runs.isEmpty ? run : documents.lowerBound..<run.upperBound
        runs.append(prepared)
        rows += prepared.entries.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
    }
}

/// A run read and mapped, ready for the writer.
struct PreparedRun: Sendable {
    let batch: KeyIndexBatch
    let entries: [[[KeyIndexEntry]]]
}

/// The read and map stages of one build, a run or two ahead of its writes: `next()` gives
/// the runs in order, each read then mapped, and starts the stages on the runs after it.
struct BuildStages {
    let database: Database
    let plan: KeyIndexPlan
    let indexes: [KeyIndex]
    let runs: [Range<Int>]
    /// The run `next()` gives next.
    private var position = 0
    /// The mapping of run `position`, and the reading of the run after it.
    private var mapping: Task<PreparedRun, any Error>?
    private var reading: Task<KeyIndexBatch, any Error>?

    init(database: Database, plan: KeyIndexPlan, indexes: [KeyIndex], runs: [Range<Int>]) {
        self.database = database
        self.plan = plan
        self.indexes = indexes
        self.runs = runs
        mapping = startMapping(startReading(0))
        reading = 1 < runs.count ? startReading(1) : nil
    }

    /// The next run read and mapped, in plan order; starts mapping the one after it (read
    /// meanwhile) and reading the one after that.
    /// - Throws: what reading or mapping that run threw; `CancellationError` past the end.
    mutating func next() async throws -> PreparedRun {
        guard let current = mapping else { throw CancellationError() }
        let prepared = try await current.value
        position += 1
        mapping = reading.map(startMapping)
        reading = position + 1 < runs.count ? startReading(position + 1) : nil
        return prepared
    }

    /// Stops the stages still running (their work is dropped): the build failed or ended.
    func cancel() {
        mapping?.cancel()
        reading?.cancel()
    }

    private func startReading(_ number: Int) -> Task<KeyIndexBatch, any Error> {
        let database = database, plan = plan, run = runs[number]
        return Task { try await database.readRun(plan, run) }
    }

    private func startMapping(_ read: Task<KeyIndexBatch, any Error>) -> Task<PreparedRun, any Error> {
        let plan = plan, indexes = indexes
        return Task {
            let batch = try await read.value
            try Task.checkCancellation()
            return PreparedRun(batch: batch, entries: try await Database.mapRun(plan, indexes, batch))
        }
    }
}
