public import SetteeJSON
public import SetteeReplicator
public import SetteeStore

/// The filter functions of a local replication source, run as `_changes?filter=`
/// runs them (`ChangesFilterFunction`), `query_params` as `req.query` and the server
/// itself as the user: the replicator cannot import the JavaScript engine's users, so
/// the server hands it this.
public struct ReplicationFilters: FilterFunctionRunner {
    let service: JavaScriptService

    /// Filters run on a JavaScript service of their own (`settee replicate`, no node).
    public init() { service = JavaScriptService() }

    init(service: JavaScriptService) { self.service = service }

    public func test(_ name: String, query: JSONObject,
                     in database: Database) async throws -> @Sendable (String) async throws -> Bool {
        let function = try await ChangesFilterFunction.replication(name, query: query, database: database,
                                                                          service: service)
        return { id in try await function.accepts(id, in: database) }
    }
}
