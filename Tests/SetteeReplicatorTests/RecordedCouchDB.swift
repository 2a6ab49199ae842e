import Crypto
import Foundation
import Logging
import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import Synchronization

/*
 A stand-in for Apache CouchDB 3.4.3 as a replication peer, for CI, where no CouchDB
 can run. It answers with the shapes recorded from a real CouchDB 3.4.3 in
 ../shared/spec/transcripts/ (the recorded bodies are cut at 3,000 bytes and show
 binary bytes as '.', so they cannot be replayed byte for byte; what they show is
 copied here):

 - `POST /_session` with a form body answers `{"ok":true,"name":..,"roles":[..]}` and
   an `AuthSession` cookie, which every later request must carry (or Basic);
 - `GET /{db}/` has a string `update_seq`, `purge_seq` and `instance_start_time`, and
   `cluster` {q, n, w, r}; sequences are opaque strings `N-g1AAAA…`;
 - `_changes` rows list each document once, at its last sequence, every leaf in
   `changes` (style=all_docs);
 - `_bulk_get` answers `{"results":[{"id","docs":[{"ok":{…,"_revisions"}}]}]}`, with
   attachment stubs (`attachments=false`), `encoding`/`encoded_length` for gzip'd ones;
 - `GET {doc}?open_revs=[..]` with `Accept: multipart/mixed` answers a quoted boundary,
   an `application/json` part per revision without attachments, or a nested
   `multipart/related` one (JSON with `"follows":true`, then each attachment with
   `Content-Disposition`, `Content-Length`, and `Content-Encoding: gzip` when stored
   gzip'd);
 - as a target: `_revs_diff`, `_bulk_docs` (`new_edits:false`, 201 `[]`),
   `PUT {doc}?new_edits=false` as JSON or `multipart/related`, `_ensure_full_commit`
   (201 with `instance_start_time`), `_local` documents with rev `0-N` (N + 1 for a
   `PUT` naming `0-N`, as CouchDB 3 answers; `checksLocalRevisions` answers a `PUT`
   naming another rev than the stored one 409, as PouchDB Server and CouchDB 1 do).

 Revision trees are kept as leaves with their histories; enough for a replicator.
 */
final class RecordedCouchDB: HTTPResponder, @unchecked Sendable {  // `server`, `base`: set once in start()
    struct Attachment: Equatable {
        var contentType: String
        /// Identity bytes.
        var data: [UInt8]
        /// Stored (and served in multipart) gzip'd, as CouchDB keeps compressible types.
        var gzipped: [UInt8]?
        var revpos: Int
    }

    struct Revision {
        /// Revision ids, newest first; the generation of `history[0]` is `start`.
        var start: Int
        var history: [String]
        var body: JSONObject
        var deleted: Bool
        var attachments: [String: Attachment]
        var rev: String { "\(start)-\(history[0])" }
        /// Every revision named in the history, `N-id`.
        var lineage: [String] { history.enumerated().map { "\(start - $0.offset)-\($0.element)" } }
    }

    struct Database {
        var leaves: [String: [Revision]] = [:]
        var lastSeq: [String: Int] = [:]
        var seq = 0
        var locals: [String: JSONObject] = [:]
        var localRevs: [String: String] = [:]
    }

    struct State {
        var databases: [String: Database] = [:]
        /// `METHOD target` (path and query) of every request, in order, and the multipart uploads' content types.
        var log: [String] = []
        var uploadTypes: [String] = []
        var cookieRequests = 0
    }

    static let admin = (name: "admin", password: "couchpass")
    static let cookie = "AuthSession=YWRtaW46NjkyNDRGNjA6KSWQfFNfXMgeSnLAwbAyUBtvwK8"
    let uuid = "d7fdbb0913ff8f8750ce814d059a6510"
    /// False: `_bulk_get` answers 404, as CouchDB before 2.2 did.
    let hasBulkGet: Bool
    /// True: a `_local` document's `PUT` must name its current rev (none when missing).
    let checksLocalRevisions: Bool
    private let state = Mutex(State())
    private var server: HTTPServer?
    private(set) var base = ""

    init(hasBulkGet: Bool = true, checksLocalRevisions: Bool = false) {
        self.hasBulkGet = hasBulkGet
        self.checksLocalRevisions = checksLocalRevisions
    }

    func start() throws {
        var config = ServerConfiguration()
        config.port = 0
        let server = HTTPServer(configuration: config, responder: self, logger: Logger(label: "couchdb-stand-in"))
        base = "http://127.0.0.1:\(try server.start()[0])"
        self.server = server
    }

    func stop() async { await server?.shutdown() }

    /// `http://admin:couchpass@127.0.0.1:PORT/db`.
    func url(_ db: String) -> String {
        base.replacingOccurrences(of: "http://", with: "http://\(Self.admin.name):\(Self.admin.password)@") + "/" + db
    }

    var log: [String] { state.withLock { $0.log } }
    var uploadTypes: [String] { state.withLock { $0.uploadTypes } }
    var cookieRequests: Int { state.withLock { $0.cookieRequests } }

    func database(_ name: String) -> Database? { state.withLock { $0.databases[name] } }

    /// Adds `revision` to `db` (created if needed) as a replicated write does: it
    /// replaces the leaf it descends from, or becomes a new leaf (a conflict).
    func put(_ db: String, id: String, _ revision: Revision) {
        state.withLock { Self.store(&$0.databases[db, default: Database()], id: id, revision) }
    }

    private static func store(_ database: inout Database, id: String, _ revision: Revision) {
        var leaves = database.leaves[id] ?? []
        if leaves.contains(where: { $0.rev == revision.rev }) { return }
        leaves.removeAll { revision.lineage.contains($0.rev) }
        leaves.append(revision)
        database.leaves[id] = leaves
        database.seq += 1
        database.lastSeq[id] = database.seq
    }

    /// CouchDB's winner: not deleted first, then the highest generation, then the highest id.
    static func winner(_ leaves: [Revision]) -> Revision? {
        leaves.max { a, b in
            a.deleted != b.deleted ? a.deleted : (a.start, a.history[0]) < (b.start, b.history[0])
        }
    }

    /// CouchDB 3's opaque sequence, `N-g1AAAA…` (the tail encodes shard ranges there).
    static func sequence(_ n: Int) -> String {
        n == 0 ? "0" : "\(n)-g1AAAACbeJzLYWBgYMpgTmEQTM4vTc5ISXIwNDLXMwBCwxyQVCJDUv3_" + Data(String(n).utf8).base64EncodedString()
    }

    static func sequenceNumber(_ text: String) -> Int { Int(text.split(separator: "-").first ?? "0") ?? 0 }

    // MARK: Answers

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let path = String(request.rawPath)
        let query = Dictionary((request.queryItems ?? []).map { ($0.name, $0.value) }) { a, _ in a }
        let body = (try? await request.body.collect(upTo: 64 << 20)) ?? []
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map {
            $0.removingPercentEncoding ?? String($0)
        }
        state.withLock { $0.log.append("\(request.method) \(request.target)") }
        if path == "/_session" && request.method == "POST" { return session(body) }
        guard authorized(request) else {
            return Self.json(401, ["error": "unauthorized", "reason": "You are not authorized to access this db."])
        }
        if segments.isEmpty {
            return Self.json(200, ["couchdb": "Welcome", "version": "3.4.3", "git_sha": "9a856b4", "uuid": .string(uuid),
                                   "features": ["access-ready", "partitioned", "pluggable-storage-engines", "reshard", "scheduler"],
                                   "vendor": ["name": "The Apache Software Foundation"]])
        }
        let db = segments[0]
        if segments.count == 1 { return databaseRequest(request.method, db) }
        guard state.withLock({ $0.databases[db] != nil }) else {
            return Self.json(404, ["error": "not_found", "reason": "Database does not exist."])
        }
        let rest = Array(segments.dropFirst())
        switch (request.method, rest[0]) {
        case (_, "_local") where rest.count == 2: return local(request.method, db, rest[1], body)
        case (_, "_changes"): return changes(db, query)
        case ("POST", "_bulk_get"):
            guard hasBulkGet else { return Self.json(404, ["error": "not_found", "reason": "missing"]) }
            return bulkGet(db, body)
        case ("POST", "_revs_diff"): return revsDiff(db, body)
        case ("POST", "_bulk_docs"): return bulkDocs(db, body)
        case ("POST", "_ensure_full_commit"): return Self.json(201, ["ok": true, "instance_start_time": "1795366222"])
        default: break
        }
        let id = rest[0] == "_design" && rest.count >= 2 ? "_design/" + rest[1] : rest[0]
        let afterID = Array(rest.dropFirst(rest[0] == "_design" ? 2 : 1))
        switch (request.method, afterID.count) {
        case ("GET", 0): return openRevs(db, id, query)
        case ("GET", _): return attachment(db, id, afterID.joined(separator: "/"), query, request.headers)
        case ("PUT", 0): return putDocument(db, id, body, contentType: request.headers["Content-Type"] ?? "")
        default: return Self.json(405, ["error": "method_not_allowed", "reason": "Only GET,PUT allowed"])
        }
    }

    private func session(_ body: [UInt8]) -> HTTPResponse {
        let form = Dictionary(String(decoding: body, as: UTF8.self).split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }) { a, _ in a }
        guard form["name"] == Self.admin.name, form["password"] == Self.admin.password else {
            return Self.json(401, ["error": "unauthorized", "reason": "Name or password is incorrect."])
        }
        var response = Self.json(200, ["ok": true, "name": "admin", "roles": ["_admin"]])
        response.headers.add("Set-Cookie", Self.cookie + "; Version=1; Path=/; HttpOnly")
        return response
    }

    private func authorized(_ request: HTTPRequest) -> Bool {
        if let cookie = request.headers["Cookie"], cookie.contains(Self.cookie) {
            state.withLock { $0.cookieRequests += 1 }
            return true
        }
        let basic = "Basic " + Data("\(Self.admin.name):\(Self.admin.password)".utf8).base64EncodedString()
        return request.headers["Authorization"] == basic
    }

    private func databaseRequest(_ method: String, _ db: String) -> HTTPResponse {
        switch method {
        case "PUT":
            let created = state.withLock { s -> Bool in
                guard s.databases[db] == nil else { return false }
                s.databases[db] = Database()
                return true
            }
            return created ? Self.json(201, ["ok": true])
                : Self.json(412, ["error": "file_exists", "reason": "The database could not be created, the file already exists."])
        case "GET", "HEAD":
            guard let database = state.withLock({ $0.databases[db] }) else {
                return Self.json(404, ["error": "not_found", "reason": "Database does not exist."])
            }
            let live = database.leaves.values.filter { Self.winner($0)?.deleted == false }.count
            return Self.json(200, [
                "instance_start_time": "1795366192", "db_name": .string(db),
                "purge_seq": "0-g1AAAABXeJzLYWBgYMpgTmEQTM4vTc5ISXIwNDLXMwBCwxyQVB4LkGRoAFL_gSArkQGP2kSGpHqIoiwAtOgYRA",
                "update_seq": .string(Self.sequence(database.seq)),
                "sizes": ["file": 57755, "external": 4528, "active": 13029], "props": [:],
                "doc_del_count": .int(database.leaves.count - live), "doc_count": .int(live),
                "disk_format_version": 8, "compact_running": false, "cluster": ["q": 2, "n": 1, "w": 1, "r": 1],
            ])
        default:
            return Self.json(405, ["error": "method_not_allowed", "reason": "Only DELETE,GET,HEAD,POST,PUT allowed"])
        }
    }

    private func local(_ method: String, _ db: String, _ id: String, _ body: [UInt8]) -> HTTPResponse {
        if method == "PUT" {
            guard var object = (try? JSONReader.parse(body))?.objectValue else {
                return Self.json(400, ["error": "bad_request", "reason": "invalid UTF-8 JSON"])
            }
            let named = object["_rev"]?.stringValue
            object.removeAll { $0.key == "_rev" || $0.key == "_id" }
            let rev: String? = state.withLock { state in
                if checksLocalRevisions && named != state.databases[db]?.localRevs[id] { return nil }
                let rev = "0-\((named.flatMap { Int($0.dropFirst(2)) } ?? 0) + 1)"
                state.databases[db]?.locals[id] = object
                state.databases[db]?.localRevs[id] = rev
                return rev
            }
            guard let rev else { return Self.json(409, ["error": "conflict", "reason": "Document update conflict."]) }
            return Self.json(201, ["ok": true, "id": .string("_local/" + id), "rev": .string(rev)])
        }
        guard let (stored, rev) = state.withLock({ state in
            state.databases[db].flatMap { db in db.locals[id].map { ($0, db.localRevs[id] ?? "0-1") } }
        }) else {
            return Self.json(404, ["error": "not_found", "reason": "missing"])
        }
        return Self.json(200, .object(JSONObject([("_id", .string("_local/" + id)), ("_rev", .string(rev))]
                                                 + stored.map { ($0.key, $0.value) })))
    }

    private func changes(_ db: String, _ query: [String: String]) -> HTTPResponse {
        guard let database = state.withLock({ $0.databases[db] }) else { return Self.json(404, [:]) }
        let since = Self.sequenceNumber(query["since"] ?? "0")
        let limit = query["limit"].flatMap(Int.init) ?? Int.max
        let pending = database.lastSeq.filter { $0.value > since }.sorted { $0.value < $1.value }
        var rows: [JSONValue] = []
        for (id, seq) in pending.prefix(limit) {
            let leaves = database.leaves[id] ?? []
            var row: JSONObject = ["seq": .string(Self.sequence(seq)), "id": .string(id),
                                   "changes": .array(leaves.map { ["rev": .string($0.rev)] })]
            if Self.winner(leaves)?.deleted == true { row.append("deleted", true) }
            rows.append(.object(row))
        }
        let last = rows.isEmpty ? max(since, database.seq) : pending[rows.count - 1].value
        return Self.json(200, ["results": .array(rows), "last_seq": .string(Self.sequence(last)),
                               "pending": .int(max(0, pending.count - rows.count))])
    }

    /// A revision's JSON as CouchDB sends it, with `_revisions` and attachment entries
    /// (stubs, or `follows` for those listed in `following`).
    static func render(_ id: String, _ revision: Revision, following: Set<String>) -> JSONObject {
        var object: JSONObject = ["_id": .string(id), "_rev": .string(revision.rev)]
        if revision.deleted { object.append("_deleted", true) }
        for member in revision.body { object.append(member.key, member.value) }
        if !revision.attachments.isEmpty {
            var entries = JSONObject()
            for (name, attachment) in revision.attachments.sorted(by: { $0.key < $1.key }) {
                let stored = attachment.gzipped ?? attachment.data
                var entry: JSONObject = ["content_type": .string(attachment.contentType), "revpos": .int(attachment.revpos),
                                         "digest": .string("md5-" + Data(Insecure.MD5.hash(data: stored)).base64EncodedString()),
                                         "length": .int(attachment.data.count)]
                entry.append(following.contains(name) ? "follows" : "stub", true)
                if let gzipped = attachment.gzipped {
                    entry.append("encoding", "gzip")
                    entry.append("encoded_length", .int(gzipped.count))
                }
                entries.append(name, .object(entry))
            }
            object.append("_attachments", .object(entries))
        }
        object.append("_revisions", ["start": .int(revision.start), "ids": .array(revision.history.map { .string($0) })])
        return object
    }

    private func bulkGet(_ db: String, _ body: [UInt8]) -> HTTPResponse {
        let requested = (try? JSONReader.parse(body))?["docs"]?.arrayValue ?? []
        let database = state.withLock { $0.databases[db] } ?? Database()
        let results: [JSONValue] = requested.map { entry in
            let id = entry["id"]?.stringValue ?? ""
            let rev = entry["rev"]?.stringValue ?? ""
            guard let revision = database.leaves[id]?.first(where: { $0.rev == rev || $0.lineage.contains(rev) }) else {
                return ["id": .string(id), "docs": [["error": ["id": .string(id), "rev": .string(rev), "error": "not_found",
                                                                 "reason": "missing"]]]]
            }
            return ["id": .string(id), "docs": [["ok": .object(Self.render(id, revision, following: []))]]]
        }
        return Self.json(200, ["results": .array(results)])
    }

    /// `open_revs` as `multipart/mixed`, framed as CouchDB 3.4.3 frames it.
    private func openRevs(_ db: String, _ id: String, _ query: [String: String]) -> HTTPResponse {
        guard let text = query["open_revs"], let wanted = (try? JSONReader.parse(Array(text.utf8)))?.arrayValue else {
            return Self.json(400, ["error": "bad_request", "reason": "this stand-in serves open_revs only"])
        }
        let attsSince = Set((query["atts_since"].flatMap { try? JSONReader.parse(Array($0.utf8)) }?.arrayValue ?? [])
            .compactMap(\.stringValue))
        let leaves = state.withLock { $0.databases[db]?.leaves[id] } ?? []
        let outer = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var out: [UInt8] = []
        for rev in wanted.compactMap(\.stringValue) {
            out += Array("--\(outer)\r\n".utf8)
            guard let revision = leaves.first(where: { $0.rev == rev || $0.lineage.contains(rev) }) else {
                out += Array("Content-Type: application/json; error=\"true\"\r\n\r\n{\"missing\":\"\(rev)\"}\r\n".utf8)
                continue
            }
            let since = revision.lineage.first { attsSince.contains($0) }.map(Self.sequenceNumber) ?? 0
            let following = Set(revision.attachments.filter { $0.value.revpos > since }.map(\.key))
            let json = JSONWriter.serialize(.object(Self.render(id, revision, following: following)))
            if following.isEmpty {
                out += Array("Content-Type: application/json\r\n\r\n".utf8) + json + Array("\r\n".utf8)
                continue
            }
            let inner = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            out += Array("Content-Type: multipart/related; boundary=\"\(inner)\"\r\n\r\n".utf8)
            out += Array("--\(inner)\r\nContent-Type: application/json\r\n\r\n".utf8) + json
            for name in following.sorted() {
                let attachment = revision.attachments[name]!
                let bytes = attachment.gzipped ?? attachment.data
                out += Array("\r\n--\(inner)\r\nContent-Disposition: attachment; filename=\"\(name)\"\r\nContent-Type: \(attachment.contentType)\r\nContent-Length: \(bytes.count)\r\n".utf8)
                if attachment.gzipped != nil { out += Array("Content-Encoding: gzip\r\n".utf8) }
                out += Array("\r\n".utf8) + bytes
            }
            out += Array("\r\n--\(inner)--\r\n".utf8)
        }
        out += Array("--\(outer)--".utf8)
        return HTTPResponse(status: 200, headers: ["Content-Type": "multipart/mixed; boundary=\"\(outer)\""], body: .bytes(out))
    }

    private func attachment(_ db: String, _ id: String, _ name: String, _ query: [String: String],
                            _ headers: HTTPHeaders) -> HTTPResponse {
        let leaves = state.withLock { $0.databases[db]?.leaves[id] } ?? []
        let revision = query["rev"].flatMap { rev in leaves.first { $0.rev == rev } } ?? Self.winner(leaves)
        guard let attachment = revision?.attachments[name] else {
            return Self.json(404, ["error": "not_found", "reason": "Document is missing attachment"])
        }
        if let gzipped = attachment.gzipped, headers["Accept-Encoding"]?.contains("gzip") == true {
            return HTTPResponse(status: 200, headers: ["Content-Type": attachment.contentType, "Content-Encoding": "gzip"],
                                body: .bytes(gzipped))
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": attachment.contentType], body: .bytes(attachment.data))
    }

    private func revsDiff(_ db: String, _ body: [UInt8]) -> HTTPResponse {
        let asked = (try? JSONReader.parse(body))?.objectValue ?? JSONObject()
        let database = state.withLock { $0.databases[db] } ?? Database()
        var answer = JSONObject()
        for member in asked {
            let known = Set((database.leaves[member.key] ?? []).flatMap(\.lineage))
            let missing = (member.value.arrayValue ?? []).compactMap(\.stringValue).filter { !known.contains($0) }
            if !missing.isEmpty { answer.append(member.key, ["missing": .array(missing.map { .string($0) })]) }
        }
        return Self.json(200, .object(answer))
    }

    /// A replicated document (`new_edits:false`) into a `Revision`; attachments from
    /// inline `data`, from `following` parts, or kept from the leaf it descends from.
    private func revision(_ json: JSONObject, following: [String: [UInt8]], db: String) -> (String, Revision)? {
        guard let id = json["_id"]?.stringValue, let start = json["_revisions"]?["start"]?.intValue,
              let history = json["_revisions"]?["ids"]?.arrayValue?.compactMap(\.stringValue), !history.isEmpty else { return nil }
        var body = JSONObject()
        for member in json where !member.key.hasPrefix("_") { body.append(member.key, member.value) }
        let lineage = history.enumerated().map { "\(start - $0.offset)-\($0.element)" }
        let parent = state.withLock { $0.databases[db]?.leaves[id] }?.first { lineage.contains($0.rev) }
        var attachments: [String: Attachment] = [:]
        for member in json["_attachments"]?.objectValue ?? JSONObject() {
            let type = member.value["content_type"]?.stringValue ?? "application/octet-stream"
            let revpos = member.value["revpos"]?.intValue ?? start
            if let data = member.value["data"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) {
                attachments[member.key] = Attachment(contentType: type, data: Array(data), revpos: revpos)
            } else if let bytes = following[member.key] {
                attachments[member.key] = Attachment(contentType: type, data: bytes, revpos: revpos)
            } else if let kept = parent?.attachments[member.key] ?? state.withLock({ s in
                s.databases[db]?.leaves[id]?.compactMap { $0.attachments[member.key] }.first }) {
                attachments[member.key] = kept
            } else {
                return nil
            }
        }
        return (id, Revision(start: start, history: history, body: body, deleted: json["_deleted"] == true,
                             attachments: attachments))
    }

    private func bulkDocs(_ db: String, _ body: [UInt8]) -> HTTPResponse {
        let request = try? JSONReader.parse(body)
        guard request?["new_edits"] == false else {
            return Self.json(400, ["error": "bad_request", "reason": "this stand-in takes replicated writes only"])
        }
        for doc in request?["docs"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
            if let (id, revision) = revision(doc, following: [:], db: db) { put(db, id: id, revision) }
        }
        return Self.json(201, [])
    }

    private func putDocument(_ db: String, _ id: String, _ body: [UInt8], contentType: String) -> HTTPResponse {
        var json: JSONObject?
        var following: [String: [UInt8]] = [:]
        if contentType.lowercased().hasPrefix("multipart/related"), let boundary = MultipartReader.boundary(fromContentType: contentType) {
            state.withLock { $0.uploadTypes.append(contentType) }
            var reader = MultipartReader(boundary: boundary)
            var parts: [(MultipartHeaders, [UInt8])] = []
            for event in (try? reader.feed(body)) ?? [] {
                switch event {
                case .headers(let headers): parts.append((headers, []))
                case .body(let bytes): parts[parts.count - 1].1 += bytes
                case .partEnd, .end: break
                }
            }
            json = parts.first.flatMap { try? JSONReader.parse($0.1).objectValue }
            let names = (json?["_attachments"]?.objectValue ?? JSONObject()).filter { $0.value["follows"] == true }.map(\.key)
            for (name, part) in zip(names, parts.dropFirst()) { following[name] = part.1 }
        } else {
            json = (try? JSONReader.parse(body))?.objectValue
        }
        guard let json, json["_id"]?.stringValue ?? id == id, let (docID, revision) = revision(json, following: following, db: db) else {
            return Self.json(400, ["error": "bad_request", "reason": "not a replicated write this stand-in understands"])
        }
        put(db, id: docID, revision)
        return Self.json(201, ["ok": true, "id": .string(docID), "rev": .string(revision.rev)])
    }

    static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json", "Cache-Control": "must-revalidate"],
                     body: .bytes(JSONWriter.serialize(value) + [0x0A]))
    }
}
