internal import Foundation
internal import Logging
internal import SetteeReplicator
internal import SetteeStore
internal import Synchronization

/// The replications this server runs: continuous ones started by `_replicate`,
/// kept until cancelled, and one-shot ones while they run (`_active_tasks`).
/// A server that never replicates starts no curl threads.
final class ReplicationJobs: Sendable {
    struct Job: Sendable {
        let replication: Replication
        let task: Task<Void, Never>?
        let continuous: Bool
        let startedOn: Date
    }

    private let state = Mutex<[String: Job]>([:])
    private let directory: DatabaseDirectory
    private let serverUUID: String
    private let maxDocumentSize: Int

    init(directory: DatabaseDirectory, serverUUID: String, maxDocumentSize: Int) {
        self.directory = directory
        self.serverUUID = serverUUID
        self.maxDocumentSize = maxDocumentSize
    }

    /// Peers from `source`/`target` values: URLs, or this server's databases by name.
    /// Each replication gets its own HTTP client: a continuous one keeps a longpoll
    /// open on one of its connections, which must not hold up another job's requests.
    func endpoints() -> PeerEndpoints {
        PeerEndpoints(directory: directory, serverUUID: serverUUID, session: CurlSession(maxConnections: 4),
                      maxDocumentSize: maxDocumentSize)
    }

    /// Runs a one-shot replication, listed while it runs.
    func runOnce(_ replication: Replication, id: String) async throws -> Replication.Outcome {
        state.withLock { $0[id] = Job(replication: replication, task: nil, continuous: false, startedOn: Date()) }
        defer { state.withLock { $0[id] = nil } }
        return try await replication.run()
    }

    /// Starts a continuous replication under `id`; false when one runs there already.
    func start(_ replication: Replication, id: String, logger: Logger) -> Bool {
        state.withLock { jobs in
            guard jobs[id] == nil else { return false }
            let task = Task {
                do {
                    _ = try await replication.run()
                } catch is CancellationError {
                } catch ReplicationError.cancelled {
                } catch {
                    logger.error("replication \(id) stopped: \(error)")
                }
            }
            jobs[id] = Job(replication: replication, task: task, continuous: true, startedOn: Date())
            return true
        }
    }

    /// Cancels the continuous replication `id`; false when there is none.
    func cancel(_ id: String) -> Bool {
        guard let job = state.withLock({ jobs -> Job? in
            guard let job = jobs[id], job.continuous else { return nil }
            jobs[id] = nil
            return job
        }) else { return false }
        job.task?.cancel()
        return true
    }

    var running: [(id: String, job: Job)] {
        let jobs = state.withLock { $0 }
        return jobs.keys.sorted().compactMap { id in jobs[id].map { (id, $0) } }
    }

    /// Ends every continuous replication (server shutdown).
    func stopAll() {
        let jobs: [String: Job] = state.withLock { jobs in
            let all = jobs
            jobs = [:]
            return all
        }
        for job in jobs.values { job.task?.cancel() }
    }
}
