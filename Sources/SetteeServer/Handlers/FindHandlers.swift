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

    /// CouchDB 3.4.3's `_explain` (mango_cursor:explain/1, mango_cursor_view:explain/1),
    /// member for member: the normalized selector, `fields` `[]` when absent, `mrargs` with
    /// `include_docs` unless the index covers the query, `end_key` closed by `"<MAX>"` and the
    /// two keys swapped when descending. A sort no index can give is 200 with `index: null`
    /// there (no `mrargs`, no `covering`), where `_find` answers 400 `no_usable_index`.
    static func explain(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let request = try await parse(context, database)
        let indexes = try await MangoIndexes.all(database)
        let normalized = SelectorNormalizer.normalize(request.selectorJSON)
        var explanation: JSONObject = [
            "dbname": .string(database.name), "index": .null, "partitioned": false,
            "selector": normalized, "opts": request.optionsJSON,
            "limit": .int(request.limit), "skip": .int(request.skip),
            "fields": .array((request.fields ?? []).map { .string($0) }),
        ]
        let plan: QueryPlan
        do {
            plan = try QueryPlanner.plan(request, indexes: indexes)
        } catch {
            guard error == .noUsableIndex else { throw error }
            let candidates = QueryPlanner.candidates(request, indexes: indexes)
            explanation["index_candidates"] = candidatesJSON(candidates, request, winner: nil, excludedByUser: false)
            explanation["selector_hints"] = hints(normalized)
            return JSONResponse.ok(.object(explanation))
        }
        explanation["index"] = plan.index.json
        explanation["index_candidates"] = candidatesJSON(plan.candidates.filter { $0.index.name != plan.index.name
            || $0.index.ddoc != plan.index.ddoc }, request, winner: plan.index, excludedByUser: !request.useIndex.isEmpty
            && !plan.warnings.contains { $0.contains("was not used because") })
        explanation["selector_hints"] = hints(normalized)
        let covers = covering(plan.index, request) == true
        explanation["mrargs"] = mrargs(plan, request, includeDocs: !covers)
        explanation["covering"] = .bool(covers)
        return JSONResponse.ok(.object(explanation))
    }

    /// The indexes not chosen, as CouchDB 3.4.3 lists them: in the reverse of the order they
    /// were considered, usable ones ranked 1, 2... by preference, unusable ones one after those,
    /// each with its first reason only; usable ones passed over for `use_index`'s `excluded_by_user`.
    private static func candidatesJSON(_ candidates: [QueryPlan.Candidate], _ request: FindRequest,
                                       winner: MangoIndex?, excludedByUser: Bool) -> JSONValue {
        let preferred = QueryPlanner.preferred(candidates.filter(\.isUsable).map(\.index), request.selector)
        return .array(candidates.reversed().map { candidate in
            let rank = preferred.firstIndex { $0.ddoc == candidate.index.ddoc && $0.name == candidate.index.name }
            let reason = !candidate.isUsable ? candidate.reasons.first ?? "field_mismatch"
                : excludedByUser ? "excluded_by_user" : candidate.index.isSpecial ? "unfavored_type"
                : passedOverReason(candidate.index, winner: winner, request.selector)
            let reasons: [JSONValue] = [["name": .string(reason)]]
            return ["index": candidate.index.json,
                    "analysis": ["usable": .bool(candidate.isUsable), "reasons": .array(reasons),
                                 "ranking": .int(candidate.isUsable ? (rank ?? 0) + 1 : preferred.count + 1),
                                 "covering": covering(candidate.index, request)]]
        })
    }

    /// Why a usable json index lost to `winner` (mango_cursor:extract_candidate_indexes/1):
    /// it leaves out some of the selector's indexable fields, else it has more columns than
    /// the winner, else only the (ddoc, name) order put it after.
    private static func passedOverReason(_ index: MangoIndex, winner: MangoIndex?, _ selector: Selector) -> String {
        if QueryPlanner.prefixDistance(index, selector) > 0 { return "less_overlap" }
        let winnerWidth = winner.map { $0.isSpecial ? 1 : $0.columns.count } ?? 0
        return index.columns.count > winnerWidth ? "too_many_fields" : "alphabetically_comes_after"
    }

    /// `selector_hints` (mango_cursor:extract_selector_hints/1): json indexes only, as a
    /// CouchDB without search or nouveau answers.
    private static func hints(_ normalizedSelector: JSONValue) -> JSONValue {
        let hints = SelectorHints(normalized: normalizedSelector)
        return [["type": "json", "indexable_fields": .array(hints.indexableFields.map { .string($0) }),
                 "unindexable_fields": .array(hints.unindexableFields.map { .string($0) })]]
    }

    /// The view arguments CouchDB would read the index with (couch_mrview's #mrargs).
    private static func mrargs(_ plan: QueryPlan, _ request: FindRequest, includeDocs: Bool) -> JSONValue {
        var start: JSONValue, end: JSONValue
        if plan.index.isSpecial {
            (start, end) = (plan.startKey.first ?? .null, plan.endKey.first ?? "<MAX>")
        } else {
            // mango_idx_view:end_key/1 closes every end with "<MAX>" (an open end is one already).
            let closed = plan.endKey.last == "<MAX>" ? plan.endKey : plan.endKey + ["<MAX>"]
            (start, end) = (.array(plan.startKey), .array(closed))
            if plan.isDescending { swap(&start, &end) }
        }
        return [
            "include_docs": .bool(includeDocs), "view_type": "map", "reduce": false, "partition": .null,
            "start_key": start, "end_key": end,
            "direction": .string(plan.isDescending ? "rev" : "fwd"), "stable": .bool(request.stable),
            "update": .bool(request.update), "conflicts": request.conflicts ? true : "undefined",
        ]
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
