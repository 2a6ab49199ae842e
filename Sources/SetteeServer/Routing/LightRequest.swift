/// Which requests `CouchRouter` lets the HTTP server answer on its event-loop thread
/// (`HTTPResponder.isLight`): those whose handler does a few microseconds of work of its
/// own and waits for the store's reader threads for the rest, with an answer of bounded
/// size. A document `GET` is one (its SQLite read runs on a reader, never on the loop;
/// its body is at most `max_document_size`); so are `GET /_up` and `GET /`.
///
/// A document read with a query string is left to the pool: `?attachments=true`,
/// `?revs_info`, `?open_revs=all` and the like can read and render much more. So is every
/// other path whose first or second segment starts with `_` (`_all_docs`, `_changes`,
/// `_design/…`, `_local/…`, the `_users` database, `/_session`, …): feeds may take long.
///
/// The exception is a view query, `GET /{db}/_design/{ddoc}/_view/{view}?…` outside the
/// system databases: it starts on the loop, and its handler decides from the view and the
/// query what runs there (`LightViewQuery`), moving the rest to the pool (`offLoop`).
enum LightRequest {
    static func isLight(method: String, target: String) -> Bool {
        guard method == "GET" || method == "HEAD" else { return false }
        if target == "/" || target == "/_up" { return true }
        return isDocumentPath(target.utf8) || isViewPath(target.utf8)
    }

    /// `/{db}/_design/{ddoc}/_view/{view}`, with or without a query: five non-empty
    /// segments, the database's not starting with `_`. One pass, no allocation (the
    /// server asks this of every request that is not a document read).
    static func isViewPath(_ target: String.UTF8View) -> Bool {
        let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?")
        var segment = -1  // before the first slash
        var length = 0
        for byte in target {
            if byte == question { break }
            if byte == slash {
                guard segment < 0 || isComplete(segment, length: length), segment < 4 else { return false }
                segment += 1
                length = 0
                continue
            }
            guard segment >= 0, fits(byte, at: length, of: segment) else { return false }
            length += 1
        }
        return segment == 4 && length > 0
    }

    private static let design = Array("_design".utf8), view = Array("_view".utf8)

    /// Whether `byte` may be byte `offset` of segment `segment` of a view path.
    private static func fits(_ byte: UInt8, at offset: Int, of segment: Int) -> Bool {
        switch segment {
        case 0: return offset > 0 || byte != UInt8(ascii: "_")
        case 1: return offset < design.count && design[offset] == byte
        case 3: return offset < view.count && view[offset] == byte
        default: return true
        }
    }

    private static func isComplete(_ segment: Int, length: Int) -> Bool {
        switch segment {
        case 1: return length == design.count
        case 3: return length == view.count
        default: return length > 0
        }
    }

    /// Runs `work` on the cooperative pool when `isOnLoop` (the request was dispatched to
    /// the event loop's thread, which must never block nor run long), or where it is
    /// otherwise; back where it was after.
    static func offLoop<T>(_ isOnLoop: Bool, _ work: () async throws -> T) async throws -> T {
        guard isOnLoop else { return try await work() }
        return try await withTaskExecutorPreference(globalConcurrentExecutor, operation: work)
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
