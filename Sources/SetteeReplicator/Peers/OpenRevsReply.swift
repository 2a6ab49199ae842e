internal import FoundationEssentials
internal import SetteeDocuments
internal import SetteeJSON
internal import SetteeStore

/// CouchDB's answer to `GET /{db}/{doc}?open_revs=[..]` with `Accept: multipart/mixed`
/// (the replicator's way to fetch a revision where `_bulk_get` is missing): one part
/// per revision, either `application/json` (no attachment bodies) or a nested
/// `multipart/related` — the revision's JSON, then one part per `"follows": true`
/// attachment, named by `Content-Disposition` and, when CouchDB stored it gzip'd,
/// still encoded (`Content-Encoding: gzip`), as recorded from CouchDB 3.4.3 in
/// ../shared/spec/transcripts/couchdb-replicator-pull-from-source.jsonl.
enum OpenRevsReply {
    /// One revision found: its JSON and the identity bytes of its following attachments.
    struct Found {
        var json: JSONObject
        var attachments: [String: [UInt8]]
    }

    /// One revision listed but not there (`{"missing": rev}`).
    struct Missing: Error {}

    /// Malformed framing or JSON.
    struct Malformed: Error {
        let what: String
    }

    /// Parses a whole `multipart/mixed` body.
    /// - Parameter maxAttachmentBytes: the largest identity size a gzip'd part may expand to.
    static func parse(_ body: [UInt8], contentType: String, maxAttachmentBytes: Int) throws -> [Found] {
        guard let boundary = MultipartReader.boundary(fromContentType: contentType) else {
            throw Malformed(what: "multipart/mixed without a boundary")
        }
        var found: [Found] = []
        for part in try parts(body, boundary: boundary) {
            let type = part.headers["Content-Type"] ?? "application/json"
            if type.lowercased().hasPrefix("multipart/related") {
                guard let inner = MultipartReader.boundary(fromContentType: type) else {
                    throw Malformed(what: "multipart/related without a boundary")
                }
                found.append(try related(parts(part.body, boundary: inner), maxAttachmentBytes: maxAttachmentBytes))
            } else {
                let json = try object(part.body)
                // `{"missing": rev}` comes as an `error="true"` part; a document may have a
                // field of that name.
                if type.lowercased().contains("error=\"true\"") || (json.count == 1 && json["missing"] != nil) {
                    throw Missing()
                }
                found.append(Found(json: json, attachments: [:]))
            }
        }
        return found
    }

    /// The revision's JSON part, then its attachments: by file name, else in the
    /// order of the `follows` entries.
    private static func related(_ parts: [(headers: MultipartHeaders, body: [UInt8])],
                                maxAttachmentBytes: Int) throws -> Found {
        guard let first = parts.first else { throw Malformed(what: "empty multipart/related part") }
        let json = try object(first.body)
        let entries = json["_attachments"]?.objectValue ?? JSONObject()
        var following = entries.filter { $0.value["follows"]?.boolValue == true }.map(\.key)
        var attachments: [String: [UInt8]] = [:]
        for part in parts.dropFirst() {
            let name = part.headers["Content-Disposition"].flatMap(fileName) ?? following.first
            guard let name, let index = following.firstIndex(of: name) else {
                throw Malformed(what: "attachment part with no following entry")
            }
            following.remove(at: index)
            let encoded = part.headers["Content-Encoding"]?.lowercased() == "gzip"
            attachments[name] = encoded ? try GzipCoding.decode(part.body, limit: maxAttachmentBytes) : part.body
        }
        guard following.isEmpty else { throw Malformed(what: "multipart/related without every following attachment") }
        return Found(json: json, attachments: attachments)
    }

    /// `filename="x"` of a Content-Disposition value.
    static func fileName(_ disposition: String) -> String? {
        guard let range = disposition.firstRange(of: "filename=") else { return nil }
        var value = disposition[range.upperBound...].prefix { $0 != ";" }
        if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = value.dropFirst().dropLast() }
        return String(value)
    }

    private static func object(_ bytes: [UInt8]) throws -> JSONObject {
        guard let object = try? JSONReader.parse(bytes).objectValue else { throw Malformed(what: "JSON part") }
        return object
    }

    private static func parts(_ body: [UInt8], boundary: String) throws -> [(headers: MultipartHeaders, body: [UInt8])] {
        var reader = MultipartReader(boundary: boundary)
        var parts: [(headers: MultipartHeaders, body: [UInt8])] = []
        do {
            for event in try reader.feed(body) {
                switch event {
                case .headers(let headers): parts.append((headers, []))
                case .body(let bytes): parts[parts.count - 1].body += bytes
                case .partEnd, .end: break
                }
            }
            try reader.finish()
        } catch {
            throw Malformed(what: "multipart framing (\(error))")
        }
        return parts
    }
}
