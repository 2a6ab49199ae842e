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
    /// Policies programs set in Swift, which take precedence over declared ones.
    let natives = NativeConflictPolicies()

    private struct Queue {
        weak var database: Database?
        var ids: [String] = []
        var queued = Set<String>()
        var everything = false
        var isDraining = false
        /// Whether the database declares a policy, as last read; nil until read and after
        /// a design document write. Without one, replicated writes queue nothing.
        var hasPolicy: Bool?
        /// Design document writes so far: what a drain learnt of the policy before the
        /// latest one is out of date.
        var policyEpoch = 0
    }

    private let queues = Mutex<[ObjectIdentifier: Queue]>([:])

    init(service: JavaScriptService, logger: Logger = Logger(label: "settee.conflicts")) {
        self.service = service
        self.logger = logger
    }

    func written(ids: [String], newEdits: Bool, in database: Database) {
        enqueue(ids, newEdits: newEdits, in: database, evenWithoutPolicy: false)
    }

    /// Queues every document in conflict: the database's policy may have changed (a
    /// program set or removed its own, `NativeConflictPolicies`).
    func policyChanged(in database: Database) {
        enqueue([], newEdits: true, in: database, evenWithoutPolicy: false, policyChanged: true)
    }

    private func enqueue(_ ids: [String], newEdits: Bool, in database: Database, evenWithoutPolicy: Bool,
                         policyChanged: Bool = false) {
        let key = ObjectIdentifier(database)
        let start = queues.withLock { queues -> Bool in
            var queue = queues[key].flatMap { $0.database === database ? $0 : nil } ?? Queue(database: database)
            if policyChanged || ids.contains(where: { $0.hasPrefix("_design/") }) {
                (queue.everything, queue.hasPolicy) = (true, nil)
                queue.policyEpoch += 1
            }
            if !newEdits && (queue.hasPolicy != false || evenWithoutPolicy) {
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
            let (batch, everything, left, epoch) = queues.withLock { queues -> ([String], Bool, Int, Int) in
                guard var queue = queues[key] else { return ([], false, 0, 0) }
                let everything = queue.everything
                queue.everything = false
                // Everything first, and no batch taken then: the ids it queues join these,
                // and a batch taken beside it would be dropped by its `continue`.
                let batch = everything ? [] : Array(queue.ids.prefix(Self.batchSize))
                queue.ids.removeFirst(batch.count)
                queue.queued.subtract(batch)
                if batch.isEmpty && !everything { queue.isDraining = false }
                queues[key] = queue
                return (batch, everything, queue.ids.count, queue.policyEpoch)
            }
            if everything {
                // Design documents are never resolved; queued as if written, a conflicted
                // one would ask for everything again, and this loop would never end.
                let all = (try? await database.conflictedIDs(limit: Int.max)) ?? []
                enqueue(all.filter { !$0.hasPrefix("_design/") }, newEdits: false, in: database, evenWithoutPolicy: true)
                continue
            }
            guard !batch.isEmpty else { break }
            let report = await resolve(batch, in: database, retryingFailures: false)
            remember(hasPolicy: report.hasPolicy, of: database, epoch: epoch)
            if !report.stale.isEmpty { written(ids: report.stale, newEdits: false, in: database) }
            done += batch.count
            // Listed in `_active_tasks` once there is work: most replicated writes bring no conflict.
            if task == nil && !(report.resolved.isEmpty && report.failed.isEmpty) {
                task = database.beginResolutionTask(total: done + left)
            }
            if let task { database.resolutionTaskProgress(task, done: done, total: done + left) }
            await Task.yield()
        }
        if let task { database.endResolutionTask(task, error: failures.summary(of: database)) }
    }

    /// Keeps whether the database has a policy; without one its queue is dropped.
    private func remember(hasPolicy: Bool, of database: Database, epoch: Int) {
        queues.withLock { queues in
            guard var queue = queues[ObjectIdentifier(database)], queue.database === database,
                  queue.policyEpoch == epoch else { return }
            queue.hasPolicy = hasPolicy
            if !hasPolicy { (queue.ids, queue.queued) = ([], []) }
            queues[ObjectIdentifier(database)] = queue
        }
    }

    /// The policy `database` is resolved by: a program's own, else the one its design
    /// documents declare; nil when there is none.
    func policy(of database: Database) async throws -> DeclaredConflictPolicy? {
        if let native = natives.policy(of: database) { return DeclaredConflictPolicy(policy: .native(native), designDocument: nil) }
        return try await DeclaredConflictPolicy.find(in: database)
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
            guard let declared = try await policy(of: database) else {
                report.hasPolicy = false
                return report
            }
            let conflicted = try await database.conflictedIDs(among: ids)
            var resolutions: [(Database.ConflictResolution, ConflictFailures.Attempt)] = []
            for id in conflicted where !id.hasPrefix("_design/") {
                guard let document = try await database.document(id: id, revisions: .allLeaves) else { continue }
                let attempt = ConflictFailures.Attempt(document: document, policy: declared)
                if !retryingFailures, failures.hasFailed(attempt, in: database) { continue }
                do {
                    guard let resolution = try await ConflictPolicyRun.resolution(
                        of: document, by: declared, in: database, service: service) else { continue }
                    resolutions.append((resolution, attempt))
                    failures.clear(id, in: database)
                } catch {
                    fail(attempt, error.reason, declared, in: database, &report)
                }
            }
            await write(resolutions, declared, in: database, &report)
        } catch {
            logger.error("conflict resolution failed", metadata: ["db": "\(database.name)", "error": "\(error)"])
            report.failed += ids.map { ($0, "\(error)") }
        }
        return report
    }

    /// Writes a batch's resolutions in one transaction; when the store refuses the batch,
    /// each alone, so that one refused document (recorded as failed) holds up no other.
    private func write(_ resolutions: [(Database.ConflictResolution, ConflictFailures.Attempt)],
                       _ declared: DeclaredConflictPolicy, in database: Database, _ report: inout Report) async {
        guard !resolutions.isEmpty else { return }
        do {
            let outcomes = try await database.resolveConflicts(resolutions.map(\.0))
            for ((resolution, _), outcome) in zip(resolutions, outcomes) {
                if outcome == .stale { report.stale.append(resolution.id) } else { report.resolved.append(resolution.id) }
            }
        } catch {
            guard resolutions.count == 1 else {
                for single in resolutions { await write([single], declared, in: database, &report) }
                return
            }
            fail(resolutions[0].1, "the store refused the resolution: \(error)", declared, in: database, &report)
        }
    }

    /// Records that `attempt` failed, logging it the first time.
    private func fail(_ attempt: ConflictFailures.Attempt, _ reason: String, _ declared: DeclaredConflictPolicy,
                      in database: Database, _ report: inout Report) {
        report.failed.append((attempt.id, reason))
        if failures.record(attempt, reason: reason, in: database) {
            logger.warning("conflicts policy of \(declared.designDocument?.id ?? declared.origin) failed on a document",
                           metadata: ["db": "\(database.name)", "doc": "\(attempt.id)", "reason": "\(reason)"])
        }
    }
}
