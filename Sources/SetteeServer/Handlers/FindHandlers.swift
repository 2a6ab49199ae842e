import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/_find` and `POST /{db}/_explain` (CouchDB API Reference ›
/// Databases › /{db}/_find, /{db}/_explain; mango_httpd.erl).
enum FindHandlers {
    static func find(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let request = try await parse(context, database)
        let plan = try QueryPlanner.plan(request, indexes: try await MangoIndexes.all(database))
        let result = try await MangoFind(request: request, plan: plan, database: database).run()
        return JSONResponse.make(status: 200, bytes: body(result, request))
    }

    static func explain(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let request = try await parse(context, database)
        let plan = try QueryPlanner.plan(request, indexes: try await MangoIndexes.all(database))
        let candidates: [JSONValue] = plan.candidates.filter { $0.index.name != plan.index.name
            || $0.index.ddoc != plan.index.ddoc }.map { candidate in
            let reasons: [JSONValue] = candidate.isUsable
                ? (candidate.index.isSpecial ? [["name": "unfavored_type"]] : [["name": "less_overlap"]])
                : candidate.reasons.map { ["name": .string($0)] }
            return ["index": candidate.index.json,
                    "analysis": ["usable": .bool(candidate.isUsable), "reasons": .array(reasons),
                                 "ranking": .int(candidate.isUsable ? 1 : 2), "covering": covering(candidate.index, request)]]
        }
        let indexable = request.selector.indexableFieldNames
        let mrargs: JSONValue = [
            "include_docs": .bool(plan.index.isSpecial), "view_type": "map", "reduce": false, "partition": .null,
            "start_key": plan.index.isSpecial ? (plan.startKey.first ?? .null) : .array(plan.startKey),
            "end_key": plan.index.isSpecial ? (plan.endKey.first ?? "<MAX>") : .array(plan.endKey),
            "direction": .string(plan.isDescending ? "rev" : "fwd"), "stable": .bool(request.stable),
            "update": .bool(request.update), "conflicts": request.conflicts ? true : "undefined",
        ]
        let explanation: JSONValue = [
            "dbname": .string(database.name), "index": plan.index.json, "partitioned": false,
            "selector": request.selectorJSON, "opts": request.optionsJSON,
            "limit": .int(request.limit), "skip": .int(request.skip),
            "fields": request.fields.map { .array($0.map { .string($0) }) } ?? "all_fields",
            "index_candidates": .array(candidates),
            "selector_hints": [["type": "json", "indexable_fields": .array(indexable.map { .string($0) }),
                                "unindexable_fields": []]],
            "mrargs": mrargs, "covering": covering(plan.index, request),
        ]
        return JSONResponse.ok(explanation)
    }

    /// `_find`'s body, laid out as CouchDB's mango_httpd writes it (one document per line).
    static func body(_ result: MangoFind.Result, _ request: FindRequest) -> [UInt8] {
        var out = Array(#"{"docs":["#.utf8)
        for (offset, doc) in result.docs.enumerated() {
            out.append(contentsOf: offset == 0 ? Array("\r\n".utf8) : Array(",\r\n".utf8))
            out.append(contentsOf: doc)
        }
        out.append(contentsOf: Array("\r\n],\r\n\"bookmark\": ".utf8))
        JSONWriter.writeString(result.bookmark, to: &out)
        if request.executionStats {
            out.append(contentsOf: Array(",\r\n\"execution_stats\": ".utf8))
            JSONWriter.write(["total_keys_examined": .int(result.keysExamined),
                              "total_docs_examined": .int(result.docsExamined),
                              "total_quorum_docs_examined": 0, "results_returned": .int(result.docs.count),
                              "execution_time_ms": .number(JSONNumber(result.milliseconds))], to: &out)
        }
        if !result.warnings.isEmpty {
            out.append(contentsOf: Array(",\r\n\"warning\": ".utf8))
            JSONWriter.writeString(result.warnings.joined(separator: "\n"), to: &out)
        }
        out.append(contentsOf: Array("}\r\n".utf8))
        return out
    }

    /// Whether the index alone holds every requested field (mango_idx_view:covers/2);
    /// null for `_all_docs`, as CouchDB shows it.
    private static func covering(_ index: MangoIndex, _ request: FindRequest) -> JSONValue {
        guard !index.isSpecial else { return .null }
        guard let fields = request.fields else { return false }
        return .bool(Set(fields).isSubset(of: Set(["_id"] + index.columns)))
    }

    /// The body, once the requester may query `database`. In `_users` a user finds only
    /// its own document, as CouchDB 3.4.3 answers (its `after_doc_read` drops the others:
    /// checked on 3.4.3 with an empty `_users` `_security`), so the selector is narrowed to
    /// that id before anything is matched: no other user's field can even be tested.
    /// In `_replicator`, whose documents others see only stripped, server admins only (403).
    private static func parse(_ context: RequestContext, _ database: Database) async throws -> FindRequest {
        if !context.user.isAdmin, ReplicatorReadRule.isReplicatorDatabase(database) {
            throw CouchError(403, "forbidden", "You are not allowed to access this db.")
        }
        var body = try await context.jsonBody().value
        if UsersDatabaseReadRule.isUsersDatabase(database, context), try await !UsersDatabaseReadRule.isAdmin(context, database),
           case .object(var object) = body, let selector = object["selector"], selector.objectValue != nil {
            let own: JSONValue = context.user.name.map { .string("org.couchdb.user:" + $0) } ?? ["$in": []]
            object["selector"] = ["$and": [selector, ["_id": own]]]
            body = .object(object)
        }
        return try FindRequest(parsing: body)
    }
}
