internal import SetteeStore
internal import SetteeDocuments

/// One database of a ``DataDirectory``: documents with revision histories, queries,
/// changes, replication. The same database `settee serve` serves at `/{name}`.
///
/// Every write is made as the directory's ``Identity`` (``DataDirectory/Options/identity``),
/// commits before the call returns (it survives `kill -9` and power loss), and wakes
/// ``changes(since:continuous:)`` feeds and ``liveQuery(_:_:)`` observers.
public final class Database: Sendable {
    /// The database's name.
    public let name: String
    let store: SetteeStore.Database
    let data: DataDirectory

    init(_ store: SetteeStore.Database, in data: DataDirectory) {
        self.name = store.name
        self.store = store
        self.data = data
    }

    /// Document counts and the update sequence.
    public func info() async throws(SetteeError) -> DatabaseInfo {
        try data.checkOpen()
        do {
            let info = try await store.info()
            return DatabaseInfo(name: name, documentCount: info.docCount, deletedDocumentCount: info.deletedDocCount,
                                updateSequence: info.updateSeq)
        } catch {
            throw SetteeError.from(error)
        }
    }

    /// Runs store work, mapping its errors; `id` names the document they are about.
    func run<T: Sendable>(id: String = "", _ body: () async throws -> T) async throws(SetteeError) -> T {
        try data.checkOpen()
        do {
            return try await body()
        } catch {
            throw SetteeError.from(error, id: id, maxDocumentSize: data.options.maxDocumentSize)
        }
    }

    /// Writes `updates` as the directory's identity, in one transaction.
    func write(_ updates: [DocumentUpdate]) async throws -> [Result<RevisionID, StoreError>] {
        let store = self.store
        return try await data.options.identity.perform { try await store.update(updates, newEdits: true) }
    }

    /// The error for a refused write of `id`: a conflict names the current winner.
    func failure(_ error: StoreError, id: String) async -> SetteeError {
        guard error == .conflict else {
            return SetteeError.from(store: error, id: id, maxDocumentSize: data.options.maxDocumentSize)
        }
        let winner = try? await store.winner(id: id)
        let current = winner.flatMap { $0.isDeleted ? nil : $0.rev.description }
        return .conflict(id: id, currentRevision: current)
    }

    static func revision(_ text: String?) throws(SetteeError) -> RevisionID? {
        guard let text else { return nil }
        guard let rev = RevisionID(text) else { throw .invalidRevision(text) }
        return rev
    }
}
