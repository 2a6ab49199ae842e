import SetteeHTTP

/// Which requests a pairing user (`settee pair`) may make: any member's request on
/// its one database, or with `--write-only` just what a push replication and a
/// plain document upload need — database info, new documents and attachments,
/// `_bulk_docs`, `_revs_diff`, `_missing_revs`, `_ensure_full_commit`, and `_local`
/// checkpoints — but nothing that reads another's documents.
enum PairingAccess {
    /// - Throws: 403 `forbidden` for another database or a read of a write-only pairing.
    static func check(_ grant: PairingGrant, _ context: RequestContext) throws {
        guard context.parameters.db == grant.database else {
            throw CouchError(403, "forbidden", "This pairing is for another database.")
        }
        guard grant.writeOnly, !allowsWriteOnly(context) else { return }
        throw CouchError(403, "forbidden", "This pairing may only write to \(grant.database).")
    }

    private static let writeEndpoints: Set<String> = ["_bulk_docs", "_revs_diff", "_missing_revs", "_ensure_full_commit"]

    static func allowsWriteOnly(_ context: RequestContext) -> Bool {
        let method = context.request.method
        let parameters = context.parameters
        if parameters[.localid] != nil { return true }
        if parameters[.ddoc] != nil { return false }
        if parameters[.docid] != nil { return method == "PUT" }
        // Literal endpoints under the database: the path's second segment.
        let path = context.request.target.prefix { $0 != "?" }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 2 else { return ["GET", "HEAD", "POST"].contains(method) }
        return method == "POST" && writeEndpoints.contains(String(segments[1]))
    }
}
