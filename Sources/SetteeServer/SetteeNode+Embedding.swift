package import SetteeStore
package import SetteeHTTP
package import SetteeJSON
package import Logging

/// What the `Settee` library (a program embedding Settee) reaches of a node: the same
/// store, router, discovery and Mango code `settee serve` runs, at `package` access so
/// none of it becomes public API.
extension SetteeNode {
    /// The node's databases: the one `DatabaseDirectory` of its data directory.
    package var databaseDirectory: DatabaseDirectory { directory }

    /// An HTTP server answering with this node's CouchDB API (the router `settee serve`
    /// listens with); the caller starts and shuts it down.
    package func makeListener(_ http: ServerConfiguration, logger: Logger) -> HTTPServer {
        HTTPServer(configuration: http, responder: router, logger: logger, connectionCount: router.state.connections)
    }

    /// Publishes the node on DNS-SD (`[discovery]` of its configuration) for `ports`, and
    /// `tlsPorts` with the TLS profile (`tls=1` and the certificate's fingerprint), as
    /// `settee serve` publishes its `[ssl]` port.
    /// - Returns: false when the configuration has discovery off.
    package func startDiscovery(ports: [Int], tlsPorts: [Int] = [], tlsFingerprint: String? = nil) -> Bool {
        guard let discovery else { return false }
        discovery.start(ports: ports, tlsPorts: tlsPorts, tlsFingerprint: tlsFingerprint)
        return true
    }

    package func stopDiscovery() { discovery?.stop() }

    /// Withdraws the DNS-SD services of `ports` (one listener stopped); discovery stops with the last.
    package func withdrawDiscovery(ports: [Int]) { discovery?.withdraw(ports: ports) }

    /// Creates database `name` as `PUT /{db}` does (with the configured default `_security`).
    package func createDatabase(_ name: String) async throws -> Database {
        try await DatabaseHandlers.create(name, directory: directory, configuration: configuration)
    }
}

/// `_find` and `POST _index` without HTTP, for the embedding API: the handlers' own code.
package enum EmbeddedMango {
    /// One page of a query's results.
    package struct Page: Sendable {
        /// Each document's JSON, with `_id` and `_rev`.
        package var docs: [[UInt8]]
        /// Where the next page starts (CouchDB's `bookmark`).
        package var bookmark: String
        package var warnings: [String]
    }

    /// Runs `request` on `database` as `POST /{db}/_find` does.
    /// - Throws: `MangoError` for a query no index can answer or a bad bookmark; the store's errors.
    package static func find(_ request: FindRequest, in database: Database) async throws -> Page {
        let plan = try QueryPlanner.plan(request, indexes: try await MangoIndexes.all(database))
        let result = try await MangoFind(request: request, plan: plan, database: database).run()
        return Page(docs: result.docs, bookmark: result.bookmark, warnings: result.warnings)
    }

    /// Creates a json index as `POST /{db}/_index` does; `body` is that request's body.
    package static func createIndex(_ body: JSONObject, in database: Database) async throws
        -> (isNew: Bool, id: String, name: String) {
        do {
            return try await IndexHandlers.createIndex(body, in: database)
        } catch let error as CouchError {
            // "text" and "nouveau" indexes: a service Settee does not run.
            throw MangoError(error.status, error.error, error.reason)
        }
    }
}
