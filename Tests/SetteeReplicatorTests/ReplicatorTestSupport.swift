import Foundation
import Logging
import SetteeJSON
@testable import SetteeReplicator
import SetteeStore

/// Two or more databases in a temporary store, and what a replication test compares.
struct ReplicatorStore {
    let path: String
    let directory: DatabaseDirectory
    let uuid = UUID().uuidString.lowercased()

    init() throws {
        path = NSTemporaryDirectory() + "settee-replicator-tests-" + UUID().uuidString
        var configuration = StoreConfiguration(path: path)
        configuration.readerCount = 2
        directory = try DatabaseDirectory(configuration: configuration, logger: Logger(label: "test"))
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    func peer(_ name: String) -> LocalPeer { LocalPeer(directory: directory, name: name, serverUUID: uuid) }

    func database(_ name: String) throws -> Database {
        if let database = try directory.database(named: name) { return database }
        return try directory.create(name)
    }

    func replicate(_ source: String, _ target: String, configure: (inout ReplicationOptions) -> Void = { _ in })
        async throws -> Replication.Outcome {
        var options = ReplicationOptions()
        configure(&options)
        // The test owns the store: its local writes are the node's own.
        return try await WriteContext.$writer.withValue(.system) {
            try await Replication(source: peer(source), target: peer(target), options: options,
                                  logger: Logger(label: "test")).run()
        }
    }
}

/// A document as replication must carry it: every leaf's full history, deleted
/// flags, the winner, and each leaf's attachments with their digests.
struct DocumentPicture: Equatable, CustomStringConvertible {
    let winner: String
    let leaves: [String]

    init?(_ database: Database, id: String) async throws {
        guard let document = try await database.document(id: id, revisions: .allLeaves) else { return nil }
        winner = document.tree.winner?.rev.description ?? ""
        var leaves: [String] = []
        for leaf in document.tree.leaves {
            let history = document.tree.history(of: leaf.rev).map(\.description).joined(separator: "<")
            let revision = document.revisions.first { $0.rev == leaf.rev }
            let attachments = (revision?.attachments ?? []).map { "\($0.name)=\($0.digest)/\($0.revpos)" }.sorted()
            leaves.append("\(history)\(leaf.isDeleted ? " deleted" : "") [\(attachments.joined(separator: ","))]")
        }
        self.leaves = leaves.sorted()
    }

    var description: String { "winner \(winner): \(leaves)" }
}

/// Every document id in `database` (deleted ones too), through `_changes`.
func allIDs(_ database: Database) async throws -> [String] {
    try await database.changes(since: 0, limit: nil, descending: false).map(\.id).sorted()
}

extension Database {
    @discardableResult
    func put(_ id: String, _ body: String = "{}", base: String? = nil, deleted: Bool = false) async throws -> String {
        // As the test declared, else as the node itself (an undeclared writer is anonymous).
        let result = try await WriteContext.$writer.withValue(WriteContext.writer ?? .system) {
            try await update([DocumentUpdate(id: id, body: Array(body.utf8), isDeleted: deleted,
                                             baseRevision: base.flatMap(RevisionID.init))], newEdits: true)
        }
        return try result[0].get().description
    }
}
