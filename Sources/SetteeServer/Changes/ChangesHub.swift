internal import Synchronization
import SetteeStore

/// The node's shared encodings of `_changes` feed lines, one `SharedAtSequence`
/// per open database: after a write, the feeds parked at one sequence with one
/// line format send one encoding instead of each reading and serializing the
/// change. It lives in the server because the bytes are HTTP's business; the
/// store only says at which sequence a database is (`ChangesNotifier`).
final class ChangesHub: Sendable {
    /// One database's shared encodings.
    typealias Encodings = SharedAtSequence<ChangesLinesKey, EncodedChanges>

    private final class Entry: Sendable {
        weak let database: Database?
        let encodings = Encodings(maxKept: 64, keeps: { $0.bytes.count <= EncodedChanges.maxKeptBytes })
        init(_ database: Database) { self.database = database }
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
    private let feedCount = Atomic<Int>(0)

    /// Longpoll, continuous and eventsource feeds streaming now: CouchDB's
    /// `couchdb.httpd.clients_requesting_changes` (chttpd_db counts every feed but normal).
    var feeds: Int { feedCount.load(ordering: .relaxed) }

    /// Runs `feed`, counted in `feeds` while it runs.
    func counting<T>(_ feed: () async throws -> T) async rethrows -> T {
        feedCount.add(1, ordering: .relaxed)
        defer { feedCount.subtract(1, ordering: .relaxed) }
        return try await feed()
    }

    /// The lines `key` names for `database`, encoded once for every caller asking
    /// the same at the same sequence (`SharedAtSequence` has the rules that make
    /// this safe: a caller that starts after a write never gets bytes from before it).
    func lines(_ database: Database, _ key: ChangesLinesKey,
               encode: @escaping @Sendable () async throws -> EncodedChanges) async throws -> EncodedChanges {
        try await encodings(of: database).value(for: key, at: database.changesNotifier.sequence, work: encode)
    }

    /// The shared encodings of `database`, for a feed to keep while it runs.
    func encodings(of database: Database) -> Encodings { entry(for: database).encodings }

    /// The entry of `database`; a deleted and recreated database is a new object, so
    /// it never meets its predecessor's bytes. Entries of closed databases are dropped.
    private func entry(for database: Database) -> Entry {
        entries.withLock { entries in
            let id = ObjectIdentifier(database)
            if let entry = entries[id], entry.database === database { return entry }
            entries = entries.filter { $0.value.database != nil }
            let entry = Entry(database)
            entries[id] = entry
            return entry
        }
    }
}
