import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/_revs_diff` and `POST /{db}/_missing_revs`
/// (CouchDB API Reference › Databases › /{db}/_revs_diff, /{db}/_missing_revs).
enum RevsDiffHandlers {
    static func revsDiff(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let diffs = try await database.revisionsDiff(try await parseRequest(context))
        var result = JSONObject()
        for diff in diffs {
            var entry: JSONObject = ["missing": .array(diff.missing.map { .string($0.description) })]
            if !diff.possibleAncestors.isEmpty {
                entry["possible_ancestors"] = .array(diff.possibleAncestors.map { .string($0.description) })
            }
            result[diff.id] = .object(entry)
        }
        return JSONResponse.ok(.object(result))
    }

    static func missingRevs(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let diffs = try await database.revisionsDiff(try await parseRequest(context))
        var result = JSONObject()
        for diff in diffs { result[diff.id] = .array(diff.missing.map { .string($0.description) }) }
        return JSONResponse.ok(["missing_revs": .object(result)])
    }

    /// `{"docid": ["rev", ...], ...}`; a malformed rev is a 400 for the whole request.
    private static func parseRequest(_ context: RequestContext) async throws -> [(id: String, revs: [RevisionID])] {
        let body = try await context.jsonBody().object()
        return try body.map { member in
            guard let list = member.value.arrayValue else {
                throw CouchError.badRequest("Expected a list of revs for document \(member.key)")
            }
            return (id: member.key, revs: try list.map(DocumentParser.revision))
        }
    }
}
