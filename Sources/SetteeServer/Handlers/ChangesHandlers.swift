import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `GET`/`POST /{db}/_changes` in every feed mode
/// (CouchDB API Reference › Databases › /{db}/_changes). The normal feed streams
/// page by page (`NormalChangesFeed`; descending is answered whole), the others
/// stream as changes arrive (`ChangesFeed`).
enum ChangesHandlers {
    static func changes(_ context: RequestContext, _ database: Database) async throws -> HTTPResponse {
        try UsersDatabaseReadRule.requireListing(context, database)
        try ReplicatorReadRule.requireListing(context, database)
        let query = try await ChangesQuery(context)
        switch query.feed {
        case .continuous, .eventsource, .longpoll:
            return ChangesFeed(database: database, query: query, hub: context.node.changesHub).response()
        case .normal:
            let tag = try await entityTag(context, database)
            // RFC 9110 §13.1.2: If-None-Match answers 304 to GET and HEAD only.
            if context.request.method != "POST", let notModified = EntityTag.notModified(context, tag) {
                return notModified
            }
            var response = try await normalFeed(database, query)
            response.headers.add("ETag", tag)
            return response
        }
    }

    private static func normalFeed(_ database: Database, _ query: ChangesQuery) async throws -> HTTPResponse {
        // Descending reads newest first without a `since` to page from; it stays whole, and
        // so does a JavaScript filter's, whose throw must still be able to answer 500.
        guard query.descending || query.filter.isJavaScript else { return NormalChangesFeed(database: database, query: query).response() }
        let updateSeq = try await database.updateSequence()
        let since = query.since ?? updateSeq
        let batch = try await ChangesBatch.read(database, query: query, since: since, limit: query.limit)
        return JSONResponse.make(status: 200, bytes: try await batch.normalBody(query: query, updateSeq: updateSeq))
    }

    /// A normal feed's `ETag`, as CouchDB tags it from the database's info
    /// (chttpd_db:handle_changes_req1/2): it changes with every write and purge, and
    /// here also with the query and who asks (what the answer depends on besides).
    static func entityTag(_ context: RequestContext, _ database: Database) async throws -> String {
        let info = try await database.info()
        return EntityTag.make([
            database.name, String(ObjectIdentifier(database).hashValue), String(info.updateSeq), String(info.purgeSeq),
            String(info.docCount), String(info.deletedDocCount), String(context.request.rawQuery ?? ""),
            context.user.name ?? "", context.user.roles.joined(separator: ","),
        ])
    }
}

/// One read of the changes after `since`, filtered as the query asks.
struct ChangesBatch {
    var changes: [Change]
    /// The seq scanned up to (filters may hide changes, so not always the last row's).
    var scannedTo: Int64
    var limited: Bool
    let database: Database
    let since: Int64

    static func read(_ database: Database, query: ChangesQuery, since: Int64, limit: Int?) async throws -> ChangesBatch {
        var rows = try await database.changes(since: since, limit: query.filter.needsDocuments ? nil : limit,
                                              descending: query.descending, docIDs: query.docIDs)
        let scannedTo = rows.last?.sequence ?? since
        if query.filter.needsDocuments {
            var kept: [Change] = []
            for change in rows {
                if let limit, kept.count >= limit { break }
                if try await query.filter.accepts(change, database: database) { kept.append(change) }
            }
            rows = kept
        }
        let limited = limit.map { rows.count >= $0 } ?? false
        return ChangesBatch(changes: rows, scannedTo: limited ? (rows.last?.sequence ?? scannedTo) : scannedTo,
                            limited: limited, database: database, since: since)
    }

    /// `{"results":[...],"last_seq":N,"pending":P}` as the normal and longpoll feeds answer.
    func normalBody(query: ChangesQuery, updateSeq: Int64) async throws -> [UInt8] {
        var out: [UInt8] = Array(#"{"results":["#.utf8)
        for (i, change) in changes.enumerated() {
            // Rows joined by `,\r\n`, as CouchDB 3 writes them (chttpd_db changes_callback).
            out.append(contentsOf: (i == 0 ? "\n" : ",\r\n").utf8)
            try await ChangesBatch.write(change, query: query, database: database, to: &out)
        }
        let end = try await ChangesFeedEnd.of(database, query, since: since, reached: max(updateSeq, scannedTo),
                                              stoppedByLimit: limited, lastSent: changes.last?.sequence,
                                              sent: (changes.count, since))
        out.append(contentsOf: end.afterResults)
        return out
    }

    /// One result: `{"seq":..,"id":..,"changes":[{"rev":..}],"deleted":true,"doc":{..}}`.
    static func write(_ change: Change, query: ChangesQuery, database: Database, to out: inout [UInt8]) async throws {
        out.append(contentsOf: "{\"seq\":".utf8)
        SequenceToken.write(change.sequence, to: &out)
        out.append(contentsOf: ",\"id\":".utf8)
        JSONWriter.writeString(change.id, to: &out)
        out.append(contentsOf: #","changes":["#.utf8)
        let revs = query.allDocsStyle ? change.leaves : Array(change.leaves.prefix(1))
        for (i, rev) in revs.enumerated() {
            out.append(contentsOf: (i == 0 ? #"{"rev":"# : #",{"rev":"#).utf8)
            JSONWriter.writeString(rev.description, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        if change.isDeleted { out.append(contentsOf: #","deleted":true"#.utf8) }
        if query.includeDocs {
            out.append(contentsOf: #","doc":"#.utf8)
            var options = DocumentOptions()
            options.conflicts = query.conflicts
            options.attachments = query.attachments
            options.attEncodingInfo = query.attEncodingInfo
            if let (tree, revision) = try await DocumentReader.winner(database, id: change.id,
                                                                      needsTree: options.needsTree) {
                // `attachments=true` with `include_docs` inlines each attachment's data (JSON feed).
                let forms = query.attachments
                    ? try await AttachmentJSON.inlineForms(database, tree, revision, attsSince: []) : [:]
                RevisionJSON.render(id: change.id, tree: tree, revision, options: options, forms: forms)
                    .write(to: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}
