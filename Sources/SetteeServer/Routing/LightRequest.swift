/// Which requests `CouchRouter` lets the HTTP server answer on its event-loop thread
/// (`HTTPResponder.isLight`): those whose handler does a few microseconds of work of its
/// own and waits for the store's reader threads for the rest, with an answer of bounded
/// size. A document `GET` is one (its SQLite read runs on a reader, never on the loop;
/// its body is at most `max_document_size`); so are `GET /_up` and `GET /`.
///
/// Anything with a query string is left to the pool: `?attachments=true`, `?revs_info`,
/// `?open_revs=all` and the like can read and render much more. So is every path whose
/// first or second segment starts with `_` (`_all_docs`, `_changes`, `_design/…`,
/// `_local/…`, the `_users` database, `/_session`, …): views and feeds may take long.
enum LightRequest {
    static func isLight(method: String, target: String) -> Bool {
        guard method == "GET" || method == "HEAD" else { return false }
        if target == "/" || target == "/_up" { return true }
        return isDocumentPath(target.utf8)
    }

    /// `/{db}/{docid}` with two non-empty segments, neither starting with `_`, and no query.
    static func isDocumentPath(_ target: String.UTF8View) -> Bool {
        let slash = UInt8(ascii: "/"), underscore = UInt8(ascii: "_"), question = UInt8(ascii: "?")
        var slashes = 0
        var previous: UInt8 = 0
        for byte in target {
            if byte == question { return false }
            if previous == slash && (byte == slash || byte == underscore) { return false }
            if byte == slash {
                slashes += 1
                if slashes > 2 { return false }
            } else if slashes == 0 {
                return false  // not origin-form (RFC 9112 §3.2.1)
            }
            previous = byte
        }
        return slashes == 2 && previous != slash
    }
}
