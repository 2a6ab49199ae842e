import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/_all_docs/queries` and `/{db}/_design_docs/queries` (API Reference ›
/// Databases › /db/_all_docs/queries): `{"queries": [options, ...]}`, each answered as
/// its own request would be, with the query string's options over each one's
/// (chttpd_db:multi_all_docs_view), framed as CouchDB frames them.
extension AllDocsHandlers {
    static func allDocsQueries(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try UsersDatabaseReadRule.requireListing(context, database)
        try ReplicatorReadRule.requireListing(context, database)
        return try await queries(context, database, designOnly: false)
    }

    static func designDocsQueries(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try await queries(context, database, designOnly: true)
    }

    private static func queries(_ context: RequestContext, _ database: Database, designOnly: Bool) async throws -> HTTPResponse {
        let list = try AllDocsHandlers.queryList(try await context.jsonBody().object())
        var out = Array(#"{"results":["#.utf8)
        for (offset, item) in list.enumerated() {
            guard case .object(let options) = item else { throw CouchError.badRequest("Each query must be an object.") }
            var query = try query(context.query, over: options, isQueriesItem: true)
            var hidesDocs = false
            if designOnly {
                query = designQuery(query)
                hidesDocs = try await hidesDesignDocs(query, context, database)
            }
            out.append(contentsOf: (offset == 0 ? "\r\n" : ",\r\n").utf8)
            out.append(contentsOf: try await answer(database, query: query, hidingDocs: hidesDocs))
        }
        out.append(contentsOf: "\r\n]}\n".utf8)
        return JSONResponse.make(status: 200, bytes: out)
    }
}
