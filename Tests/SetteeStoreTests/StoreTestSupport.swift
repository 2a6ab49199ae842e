internal import Foundation
@testable import SetteeStore
internal import Logging

/// A fresh directory of databases in a temporary folder, removed by `remove()`.
struct TestStore {
    let path: String
    let directory: DatabaseDirectory

    /// - Parameter inlineAttachmentLimit: nil for the store's default; 0 keeps every attachment a file.
    /// - Parameter maxOpenDatabases: the cap on open user databases (`[couchdb] max_dbs_open`).
    init(revsLimit: Int = 1000, inlineAttachmentLimit: Int? = nil, maxOpenDatabases: Int = 500) throws {
        path = NSTemporaryDirectory() + "settee-store-tests-" + UUID().uuidString
        var configuration = StoreConfiguration(path: path)
        configuration.defaultRevsLimit = revsLimit
        if let inlineAttachmentLimit { configuration.inlineAttachmentLimit = inlineAttachmentLimit }
        configuration.readerCount = 2
        configuration.maxOpenDatabases = maxOpenDatabases
        directory = try DatabaseDirectory(configuration: configuration, logger: Logger(label: "test"))
    }

    func reopen() throws -> DatabaseDirectory {
        var configuration = directory.configuration
        configuration.path = path
        return try DatabaseDirectory(configuration: configuration, logger: Logger(label: "test"))
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Runs `body` as one write job on `db`'s writer, then adds the job's changes to the
/// document totals; returns what `body` returned and the SQL it issued, in order.
func tracedJob(_ db: Database,
               _ body: @escaping @Sendable (Connection, inout Inserter.Job) throws -> [Result<RevisionID, StoreError>])
    async throws -> (results: [Result<RevisionID, StoreError>], sql: [String]) {
    try await db.writer.write { connection in
        let log = ResultBox<[String]>()
        log.value = []
        connection.statementObserver = { log.value?.append($0) }
        defer { connection.statementObserver = nil }
        var job = try Inserter.Job(connection)
        let results = try body(connection, &job)
        try DocumentCounts.add(connection, job.counts)
        return (results, log.value ?? [])
    }
}

func rev(_ text: String) -> RevisionID {
    guard let rev = RevisionID(text) else { preconditionFailure("bad test rev \(text)") }
    return rev
}

extension Database {
    /// Writes one new-edits update and returns its result: as the writer the test
    /// declared, else as the node itself (`.system`; an undeclared writer is anonymous).
    func put(_ id: String, _ body: String = "{}", base: RevisionID? = nil,
             deleted: Bool = false) async throws -> Result<RevisionID, StoreError> {
        let results = try await WriteContext.$writer.withValue(WriteContext.writer ?? .system) { try await update([DocumentUpdate(id: id, body: bytes(body), isDeleted: deleted,
                                                       baseRevision: base)], newEdits: true) }
        return results[0]
    }

    /// Writes one replicated (new_edits=false) revision with its history, newest first.
    func force(_ id: String, _ history: [String], _ body: String = "{}",
               deleted: Bool = false) async throws -> Result<RevisionID, StoreError> {
        let results = try await WriteContext.$writer.withValue(WriteContext.writer ?? .system) {
            try await update([DocumentUpdate(id: id, body: bytes(body), isDeleted: deleted,
                                             history: history.map(rev))], newEdits: false)
        }
        return results[0]
    }
}
