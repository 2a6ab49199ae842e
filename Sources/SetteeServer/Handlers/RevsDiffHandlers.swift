import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `POST /{db}/_revs_diff` and `POST /{db}/_missing_revs`
/// (CouchDB API Reference › Databases › /{db}/_revs_diff, /{db}/_missing_revs).
enum RevsDiffHandlers {
    static func revsDiff(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        let diffs = try await database.revisionsDiff(try await parseRequest(context))
        return JSONResponse.make(status: 200, bytes: answer(diffs))
    }

    /// The answer's bytes, written straight from the diffs: setting each id on a
    /// `JSONObject` looked the id up among those already set, and with a replicator's
    /// 1,000 ids a request that was a tenth of the target's CPU in a replication
    /// (bench/RESULTS.md, "Replication of 100,000 documents: where the CPU goes").
    /// An id asked twice keeps its first place and its last entry, as the object did.
    static func answer(_ diffs: [RevisionsDiff]) -> [UInt8] {
        var entries: [(id: String, bytes: [UInt8])] = []
        var position: [String: Int] = [:]
        entries.reserveCapacity(diffs.count)
        // Reserved too: growing it rehashed every id, 0.8 % of a replication's target (bench/RESULTS.md, sixth round).
        position.reserveCapacity(diffs.count)
        for diff in diffs {
            var entry: [UInt8] = Array(#"{"missing":"#.utf8)
            writeRevisions(diff.missing, to: &entry)
            if !diff.possibleAncestors.isEmpty {
                entry.append(contentsOf: #","possible_ancestors":"#.utf8)
                writeRevisions(diff.possibleAncestors, to: &entry)
            }
            entry.append(UInt8(ascii: "}"))
            if let index = position[diff.id] {
                entries[index].bytes = entry
            } else {
                position[diff.id] = entries.count
                entries.append((diff.id, entry))
            }
        }
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(entries.count * 64 + 2)
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(entry.id, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: entry.bytes)
        }
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    private static func writeRevisions(_ revisions: [RevisionID], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, rev) in revisions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(rev.description, to: &out)
        }
        out.append(UInt8(ascii: "]"))
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
