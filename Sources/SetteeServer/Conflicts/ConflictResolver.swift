import Logging
import SetteeStore
internal import Synchronization

/*
 Resolves conflicts by each database's policy (issue 42, item 3), off the request path.

 - When: the store tells it of every committed replicated write (`ConflictWatcher`);
   the written ids join the database's queue. A design document write queues every
   document in conflict (a policy may have appeared or changed).
 - How: one drain task per database at a time takes the queue in batches of
   `batchSize` ids: one read keeps those in conflict, one reads the policy, each
   document's leaves are read and merged (JavaScript on the node's service, never in a
   transaction), and the batch's resolutions are written in one transaction
   (`Database.resolveConflicts`). Between batches the task yields; readers never
   wait for it (they read from the pool while the writer writes).
 - Never loops: a resolution writes with `new_edits=true`, which queues nothing; a
   resolution that went stale (a write landed between read and write) is queued once
   more and reads the new leaves. A document the policy fails on is recorded with the
   leaves it failed on (`ConflictFailures`), logged once, listed in `_conflicts` and
   `_active_tasks`, and not tried again until its leaves or the policy change, or an
   admin asks (`POST /{db}/_resolve_conflicts`).
*/

/// The node's conflict resolver: the store's `ConflictWatcher`.
final class ConflictResolver: ConflictWatcher {
    static let batchSize = 100
    let service: JavaScriptService
    let logger: Logger
    let failures = ConflictFailures()

    private struct Queue {
        weak var database: Database?
        var ids: [String] = []
        var queued = Set<String>()
        var everything = false
        var isDraining = false
    }

    private let queues = Mutex<[ObjectIdentifier: Queue]>([:])

    init(service: JavaScriptService, logger: Logger = Logger(label: "settee.conflicts")) {
        self.service = service
        self.logger = logger
    }

    func written(ids: [String], newEdits: Bool, in database: Database) {
        let key = ObjectIdentifier(database)
        let start = queues.withLock { queues -> Bool in
            var queue = queues[key].flatMap { $0.database === database ? $0 : nil } ?? Queue(database: database)
            if ids.contains(where: { $0.hasPrefix("_design/") }) { queue.everything = true }
            if !newEdits {
                for id in ids where !id.hasPrefix("_design/") && queue.queued.insert(id).inserted { queue.ids.append(id) }
            }
            let start = !queue.isDraining && (queue.everything || !queue.ids.isEmpty)
            if start { queue.isDraining = true }
            queues[key] = queue
            return start
        }
        guard start else { return }
        // Detached: the writing task's task-locals (who writes) are not the resolver's.
        Task.detached(priority: .utility) { [self] in await drain(database) }
    }

    /// Resolves the database's queue until it is empty.
    private func drain(_ database: Database) async {
        let key = ObjectIdentifier(database)
        var task: Int?
        var done = 0
        while true {
            let (batch, everything, left) = queues.withLock { queues -> ([String], Bool, Int) in
                guard var queue = queues[key] else { return ([], false, 0) }
                let batch = Array(queue.ids.prefix(Self.batchSize))
                queue.ids.removeFirst(batch.count)
                queue.queued.subtract(batch)
                let everything = queue.everything
                queue.everything = false
                if batch.isEmpty && !everything { queue.isDraining = false }
                queues[key] = queue
                return (batch, everything, queue.ids.count)
            }
            if everything {
                let all = (try? await database.conflictedIDs(limit: Int.max)) ?? []
                written(ids: all, newEdits: false, in: database)
                continue
            }
            guard !batch.isEmpty else { break }
            if task == nil { task = database.beginResolutionTask(total: batch.count + left) }
            let report = await resolve(batch, in: database, retryingFailures: false)
            if !report.stale.isEmpty { written(ids: report.stale, newEdits: false, in: database) }
            done += batch.count
            if let task { database.resolutionTaskProgress(task, done: done, total: done + left) }
            await Task.yield()
        }
        if let task { database.endResolutionTask(task, error: failures.summary(of: database)) }
    }

    /// What one pass over some ids did.
    struct Report: Sendable {
        var resolved: [String] = []
        var failed: [(id: String, reason: String)] = []
        /// Their leaves changed between read and write: nothing written.
        var stale: [String] = []
        var hasPolicy = true
    }

    /// Resolves those of `ids` in conflict by the database's policy, one write for all.
    /// - Parameter retryingFailures: also the documents the policy failed on before
    ///   with the same leaves (an admin's request), which are otherwise skipped.
    func resolve(_ ids: [String], in database: Database, retryingFailures: Bool) async -> Report {
        var report = Report()
        do {
            let conflicted = try await database.conflictedIDs(among: ids)
            guard !conflicted.isEmpty else { return report }
            guard let declared = try await DeclaredConflictPolicy.find(in: database) else {
                report.hasPolicy = false
                return report
            }
            var resolutions: [Database.ConflictResolution] = []
            for id in conflicted where !id.hasPrefix("_design/") {
                guard let document = try await database.document(id: id, revisions: .allLeaves) else { continue }
                let attempt = ConflictFailures.Attempt(document: document, policy: declared)
                if !retryingFailures, failures.hasFailed(attempt, in: database) { continue }
                do {
                    guard let resolution = try await ConflictPolicyRun.resolution(
                        of: document, by: declared, in: database, service: service) else { continue }
                    resolutions.append(resolution)
                    failures.clear(id, in: database)
                } catch {
                    report.failed.append((id, error.reason))
                    if failures.record(attempt, reason: error.reason, in: database) {
                        logger.warning("conflicts policy of \(declared.designDocument.id) failed on a document",
                                       metadata: ["db": "\(database.name)", "doc": "\(id)", "reason": "\(error.reason)"])
                    }
                }
            }
            let outcomes = try await database.resolveConflicts(resolutions)
            for (resolution, outcome) in zip(resolutions, outcomes) {
                if outcome == .stale { report.stale.append(resolution.id) } else { report.resolved.append(resolution.id) }
            }
        } catch {
            logger.error("conflict resolution failed", metadata: ["db": "\(database.name)", "error": "\(error)"])
            report.failed += ids.map { ($0, "\(error)") }
        }
        return report
    }
}
