import SetteeHTTP
import SetteeJSON
import SetteeStore

extension ViewHandlers {
    /// `POST .../_view/{view}/queries`: `{"queries": [options, ...]}`, answered as
    /// `{"results": [view response, ...]}`.
    static func queries(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let view = try await definition(context, database)
        let list = try AllDocsHandlers.queryList(try await context.jsonBody().object())
        var out = Array(#"{"results":["#.utf8)
        for (offset, item) in list.enumerated() {
            guard case .object(let options) = item else { throw CouchError.badRequest("Each query must be an object.") }
            out.append(contentsOf: offset == 0 ? Array("\r\n".utf8) : Array(",\r\n".utf8))
            out.append(contentsOf: try await run(view, try ViewQuery(baseOptions(context.query, under: options), body: options), database))
        }
        out.append(contentsOf: (list.isEmpty ? "\r\n\r\n]}\n" : "\r\n]}\n").utf8)
        return JSONResponse.make(status: 200, bytes: out)
    }

    /// The query string's options that one of `queries` leaves to it: each query's own win
    /// (chttpd_view:multi_query_view/5 parses the query string, then each query over it;
    /// CouchDB 3.4.3 applies `?limit=1` to every query, where they were ignored).
    static func baseOptions(_ options: QueryOptions, under item: JSONObject) -> QueryOptions {
        let aliases = [["startkey", "start_key"], ["endkey", "end_key"], ["startkey_docid", "start_key_doc_id"],
                       ["endkey_docid", "end_key_doc_id"], ["key", "keys"]]
        func isShadowed(_ name: String) -> Bool {
            item[name] != nil || aliases.contains { $0.contains(name) && $0.contains { item[$0] != nil } }
        }
        return QueryOptions(items: options.items.filter { !isShadowed($0.name) })
    }
}
