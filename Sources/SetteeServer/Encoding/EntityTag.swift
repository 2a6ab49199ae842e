import Crypto
import SetteeHTTP
import SetteeJSON

/// `ETag`s where CouchDB sends them beyond documents and attachments (`_changes`,
/// `_all_dbs`, `_dbs_info`, `_local` documents), and the `If-None-Match` check that
/// answers 304 with no content (chttpd:etag_respond/3). CouchDB's tags are a quoted
/// MD5 of an Erlang term in base 36 (`couch_httpd:make_etag/1`); clients treat them as
/// opaque, so these are the same form over what the answer depends on.
enum EntityTag {
    /// A quoted tag for `parts`: the first 128 bits of their SHA-256, in base 36 upper case.
    static func make(_ parts: [String]) -> String {
        var hash = SHA256()
        for part in parts {
            hash.update(data: Array(part.utf8))
            hash.update(data: [0])
        }
        return make(digest: Array(hash.finalize()))
    }

    /// A quoted tag for a response's whole content.
    static func make(bytes: [UInt8]) -> String { make(digest: Array(SHA256.hash(data: bytes))) }

    private static func make(digest: [UInt8]) -> String {
        var value = digest.prefix(16).reduce(into: [UInt8]()) { $0.append($1) }  // big-endian 128-bit number
        var digits: [UInt8] = []
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        while value.contains(where: { $0 != 0 }) {
            var remainder = 0
            for index in value.indices {  // long division by 36
                let current = remainder * 256 + Int(value[index])
                value[index] = UInt8(current / 36)
                remainder = current % 36
            }
            digits.append(alphabet[remainder])
        }
        return "\"" + String(decoding: digits.isEmpty ? [alphabet[0]] : digits.reversed(), as: UTF8.self) + "\""
    }

    /// Whether `If-None-Match` names `tag`, as CouchDB reads it (couch_httpd:etag_match/2):
    /// the header split on commas and spaces, each token's weak `W/` prefix dropped, then an
    /// exact match. No `*`: CouchDB 3.4.3 answers `If-None-Match: *` with the full 200.
    static func matches(_ context: RequestContext, _ tag: String) -> Bool {
        guard let header = context.headers["If-None-Match"] else { return false }
        return header.split(whereSeparator: { $0 == "," || $0 == " " }).contains { token in
            (token.hasPrefix("W/") ? token.dropFirst(2) : token) == tag
        }
    }

    /// 304 with the tag when the client has it, else nil.
    static func notModified(_ context: RequestContext, _ tag: String) -> HTTPResponse? {
        matches(context, tag) ? HTTPResponse(status: 304, headers: ["ETag": tag]) : nil
    }

    /// A JSON answer of `bytes` tagged with their hash, or 304 when the client has them.
    static func respond(_ context: RequestContext, bytes: [UInt8]) -> HTTPResponse {
        let tag = make(bytes: bytes)
        return notModified(context, tag) ?? JSONResponse.make(status: 200, bytes: bytes, headers: ["ETag": tag])
    }

    /// The same for a JSON value, serialized as `JSONResponse` writes it.
    static func respond(_ context: RequestContext, _ value: JSONValue) -> HTTPResponse {
        respond(context, bytes: JSONWriter.serialize(value) + [0x0A])
    }
}
