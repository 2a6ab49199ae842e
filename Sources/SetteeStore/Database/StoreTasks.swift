internal import FoundationEssentials
internal import Synchronization

/// Long-running store work in progress (compactions, index builds), for
/// `GET /_active_tasks`: each registers when it starts, reports its progress and
/// is gone when it ends. One per `DatabaseDirectory`, shared by its databases.
public final class StoreTasks: Sendable {
    /// A task as `_active_tasks` shows it (CouchDB's `database_compaction` and `indexer`).
    public struct Task: Sendable {
        public enum Kind: Sendable, Equatable {
            case compaction
            /// Building or catching up a key index; `label` names what it indexes
            /// (Mango: the design document).
            case indexing(label: String)
            /// Resolving conflicts by the database's policy (`Database.resolveConflicts`).
            case conflictResolution
        }
        public let kind: Kind
        public let database: String
        public let startedOn: Int
        public internal(set) var updatedOn: Int
        public internal(set) var changesDone: Int
        public internal(set) var totalChanges: Int
        /// Why the task stopped, once it failed: a failed task stays listed with its error
        /// until the next task of its kind on its database begins (`fail`).
        public internal(set) var error: String?

        /// 0–100, as CouchDB reports it.
        public var progress: Int { totalChanges > 0 ? min(100, changesDone * 100 / totalChanges) : 0 }
    }

    private let running = Mutex<(next: Int, tasks: [Int: Task])>((0, [:]))

    public init() {}

    /// The tasks running now, oldest first.
    public var all: [Task] { running.withLock { $0.tasks.sorted { $0.key < $1.key }.map(\.value) } }

    func begin(_ kind: Task.Kind, database: String, totalChanges: Int) -> Int {
        let now = Self.now()
        return running.withLock { state in
            state.tasks = state.tasks.filter { $0.value.error == nil || $0.value.kind != kind || $0.value.database != database }
            state.next += 1
            state.tasks[state.next] = Task(kind: kind, database: database, startedOn: now, updatedOn: now,
                                           changesDone: 0, totalChanges: totalChanges)
            return state.next
        }
    }

    func progress(_ id: Int, changesDone: Int, totalChanges: Int? = nil) {
        let now = Self.now()
        running.withLock { state in
            if let totalChanges { state.tasks[id]?.totalChanges = totalChanges }
            state.tasks[id]?.changesDone = changesDone
            state.tasks[id]?.updatedOn = now
        }
    }

    func end(_ id: Int) { _ = running.withLock { $0.tasks.removeValue(forKey: id) } }

    /// Drops failed tasks of `kind` on `database`: the work they stood for has since succeeded.
    func clearFailures(_ kind: Task.Kind, database: String) {
        running.withLock { state in
            state.tasks = state.tasks.filter { $0.value.error == nil || $0.value.kind != kind || $0.value.database != database }
        }
    }

    /// Drops the failed tasks of `database` (it was deleted).
    func forgetFailures(database: String) {
        running.withLock { state in
            state.tasks = state.tasks.filter { $0.value.error == nil || $0.value.database != database }
        }
    }

    /// Ends task `id` with `error`: it stays in `all`, so that `_active_tasks` shows why
    /// (issue 47: a compaction that failed after its 202 was seen in the log only).
    func fail(_ id: Int, error: String) {
        let now = Self.now()
        running.withLock { state in
            state.tasks[id]?.error = error
            state.tasks[id]?.updatedOn = now
        }
    }

    private static func now() -> Int { Int(Date().timeIntervalSince1970) }
}
