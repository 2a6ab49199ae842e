import SetteeHTTP
import SetteeJSON
import SetteeStore

/// `GET /{db}/{docid}?open_revs=all|[..]`: several revisions at once, as
/// CouchDB's replicator fetches them. With `Accept: application/json` a JSON
/// array of `{"ok":doc}` / `{"missing":rev}`; otherwise `multipart/mixed`
/// with one part per found revision (spec/couchdb.md "Checked on CouchDB 3.4.3").
enum OpenRevsHandler {
    static func get(_ context: RequestContext, _ database: Database, id: String) async throws -> HTTPResponse {
        let entries = try await revisions(context, database, id: id)
        var options = DocumentOptions(query: context.query)
        options.revs = context.query.flag("revs")
        let accept = context.headers["Accept"] ?? "*/*"
        if accept.contains("application/json") && !accept.contains("multipart/mixed") {
            return JSONResponse.make(status: 200, bytes: jsonArray(entries, options: options))
        }
        return multipartMixed(entries, options: options)
    }

    enum Entry {
        case found(StoredDocument, StoredRevision)
        case missing(String)
    }

    /// The requested revisions, `latest` applied, in request order (all leaves for `all`).
    static func revisions(_ context: RequestContext, _ database: Database, id: String) async throws -> [Entry] {
        let openRevs = context.query["open_revs"] ?? ""
        let latest = try context.query.bool("latest")
        if openRevs == "all" {
            guard let document = try await database.document(id: id, revisions: .allLeaves) else {
                throw CouchError.notFound("missing")
            }
            return document.revisions.map { .found(document, $0) }
        }
        guard let list = try context.query.json("open_revs")?.arrayValue else {
            throw CouchError.badRequest("Invalid open_revs")
        }
        let texts = try list.map { value -> String in
            guard let text = value.stringValue else { throw CouchError.badRequest("Invalid rev format") }
            return text
        }
        let revs = texts.compactMap(RevisionID.init)
        guard revs.count == texts.count else { throw CouchError.badRequest("Invalid rev format") }
        guard let tree = try await database.document(id: id, revisions: .none)?.tree else {
            return texts.map { .missing($0) }
        }
        var wanted: [RevisionID] = []
        for rev in revs {
            let chosen = latest ? tree.latest(from: rev) : [rev]
            for r in (chosen.isEmpty ? [rev] : chosen) where !wanted.contains(r) { wanted.append(r) }
        }
        guard let document = try await database.document(id: id, revs: wanted) else {
            return texts.map { .missing($0) }
        }
        return wanted.map { rev in
            document.revisions.first { $0.rev == rev && $0.body != nil }.map { .found(document, $0) } ?? .missing(rev.description)
        }
    }

    static func jsonArray(_ entries: [Entry], options: DocumentOptions) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (i, entry) in entries.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            switch entry {
            case .found(let document, let revision):
                out.append(contentsOf: #"{"ok":"#.utf8)
                DocumentHandlers.render(document, revision, options: options).write(to: &out)
                out.append(UInt8(ascii: "}"))
            case .missing(let rev):
                out.append(contentsOf: #"{"missing":"#.utf8)
                JSONWriter.writeString(rev, to: &out)
                out.append(UInt8(ascii: "}"))
            }
        }
        out.append(contentsOf: "]\n".utf8)
        return out
    }

    static func multipartMixed(_ entries: [Entry], options: DocumentOptions) -> HTTPResponse {
        let boundary = UUIDs.random()
        var out: [UInt8] = []
        for entry in entries {
            out.append(contentsOf: "--\(boundary)\r\n".utf8)
            switch entry {
            case .found(let document, let revision):
                out.append(contentsOf: "Content-Type: application/json\r\n\r\n".utf8)
                DocumentHandlers.render(document, revision, options: options).write(to: &out)
            case .missing(let rev):
                out.append(contentsOf: "Content-Type: application/json; error=\"true\"\r\n\r\n".utf8)
                out.append(contentsOf: JSONWriter.serialize(["missing": .string(rev)]))
            }
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: "--\(boundary)--".utf8)
        return HTTPResponse(status: 200, headers: ["Content-Type": "multipart/mixed; boundary=\"\(boundary)\""],
                            body: .bytes(out))
    }
}
