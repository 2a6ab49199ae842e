import SetteeDocuments
import SetteeHTTP
import SetteeJSON
import SetteeStore

/// The parameters of a `_changes` request, validated as CouchDB validates them
/// (`chttpd_changes:parse_changes_query`): a bad value is a 400 before any output.
struct ChangesQuery: Sendable {
    var feed = ChangesFeedKind.normal
    /// Nil for `since=now`.
    var since: Int64? = 0
    var limit: Int?
    var descending = false
    var includeDocs = false
    var conflicts = false
    /// With `include_docs`: inline attachment data / show encoding info.
    var attachments = false
    var attEncodingInfo = false
    var allDocsStyle = false
    var docIDs: Set<String>?
    var filter = ChangesFilter.none
    /// `heartbeat` in ms (`true` = the default 60 s); nil when absent.
    var heartbeat: Int?
    /// `timeout` in ms as given; nil when absent.
    var timeout: Int?
    /// CouchDB's `[chttpd] changes_timeout`: the longest a feed without a heartbeat waits.
    static let maxTimeout = 60_000

    /// When an idle feed ends. A heartbeat keeps a feed open until the client goes,
    /// unless a `timeout` was also given (COUCHDB-2961: heartbeats until the timeout);
    /// without a heartbeat the timeout is capped at `changes_timeout`.
    var idleLimit: Duration? {
        if heartbeat != nil { return timeout.map { .milliseconds($0) } }
        return .milliseconds(min(timeout ?? Self.maxTimeout, Self.maxTimeout))
    }

    /// Everything besides `since` and `limit` that shapes a continuous or eventsource
    /// feed's lines, so that feeds with equal formats can share the bytes. Nil when
    /// lines are not shared: other feeds, `descending`, and filters whose identity
    /// is not a plain value (`_doc_ids`, `_selector`).
    var sharedLineFormat: ChangesLineFormat? {
        guard feed.isLineByLine, !descending, docIDs == nil else { return nil }
        let designFilter: Bool
        switch filter {
        case .none: designFilter = false
        case .design: designFilter = true
        case .selector, .javascript: return nil
        }
        return ChangesLineFormat(feed: feed, designFilter: designFilter, includeDocs: includeDocs,
                                 conflicts: conflicts, attachments: attachments, attEncodingInfo: attEncodingInfo,
                                 allDocsStyle: allDocsStyle)
    }

    init(_ context: RequestContext) async throws {
        // chttpd_db:parse_changes_query/1 lowercases every parameter name (`?LIMIT=1` is a limit).
        let q = QueryOptions(items: context.query.items.map { (name: $0.name.lowercased(), value: $0.value) })
        feed = try ChangesFeedKind(parameter: q["feed"])
        since = try Self.parseSince(Self.sinceText(q, feed: feed, header: context.headers["Last-Event-ID"]))
        // 0 means no rows, as CouchDB 3's clustered feed answers: its collector drops
        // every row once its limit is 0 and counts it as pending (fabric_view_changes.erl,
        // `handle_message({change, _}, _, #collector{limit = 0})`). CouchDB 1.x and
        // PouchDB answered one row instead.
        // Any integer, as `list_to_integer` takes it; a negative one never counts down
        // to 0 in CouchDB's collector, so it means no limit.
        limit = try q.int("limit").flatMap { $0 < 0 ? nil : $0 }
        // Only exactly `true` turns these on; anything else is off, not an error
        // (chttpd_db:parse_changes_query/1 matches the string "true").
        descending = q.flag("descending")
        includeDocs = q.flag("include_docs")
        conflicts = q.flag("conflicts")
        attachments = q.flag("attachments")
        attEncodingInfo = q.flag("att_encoding_info")
        switch q["style"] ?? "main_only" {
        case "main_only": allDocsStyle = false
        case "all_docs": allDocsStyle = true
        default: throw CouchError.badRequest("Supported `style` values: main_only, all_docs")
        }
        if let text = q["heartbeat"] {
            heartbeat = text == "true" ? Self.maxTimeout : min(try Self.heartbeatMilliseconds(text), Self.maxTimeout)
        }
        timeout = try q["timeout"].map(Self.timeoutMilliseconds)
        if let text = q["seq_interval"] {
            guard let interval = Int(text), interval > 0 else { throw CouchError.badRequest("invalid_seq_interval") }
        }
        let body = context.request.method == "POST" ? try await Self.postBody(context) : .null
        try await parseFilter(context, body: body)
    }

    /// A POST's body, checked as chttpd_db checks it before reading the feed: JSON
    /// (415 otherwise), present, parseable, an object (400 otherwise). A declared empty
    /// body (`Content-Length: 0`) is `{}`, as CouchDB reads it; no body at all is missing.
    private static func postBody(_ context: RequestContext) async throws -> JSONValue {
        try MaintenanceHandlers.requireJSONContentType(context)
        let bytes = try await context.request.body.collect(upTo: context.node.configuration.http.limits.maxBodyBytes)
        if bytes.isEmpty {
            let declared = context.headers["Content-Length"] != nil || context.headers["Transfer-Encoding"] != nil
            guard declared else { throw CouchError.badRequest("Missing request body") }
            return .object([:])
        }
        let body = try JSONValueBody(bytes: bytes, maxDepth: context.node.configuration.maxJSONDepth).value
        guard case .object = body else { throw CouchError.badRequest("Request body must be a JSON object") }
        return body
    }

    /// `filter=_selector`'s selector as couch_changes:get_selector_and_fields/1 checks it: POST
    /// only, an object, its `fields` a list of strings; a mango refusal is 400 in mango's
    /// words, without a prefix (CouchDB 3.4.3 answers so; changes_test.exs neighbourhood).
    private static func selector(_ context: RequestContext, body: JSONValue) throws -> Selector {
        guard context.request.method == "POST" else {
            throw CouchError.badRequest("Selector must be specified in POST payload")
        }
        guard let json = body["selector"], json.objectValue != nil else {
            throw CouchError.badRequest("Selector error: expected a JSON object")
        }
        if let fields = body["fields"] {
            guard let list = fields.arrayValue else { throw CouchError.badRequest("Selector error: fields must be JSON array") }
            if let bad = list.first(where: { $0.stringValue == nil }) {
                throw CouchError.badRequest("Invalid JSON for field spec: \(ErlangTerm.print(bad, printable: .ascii))")
            }
        }
        do { return try Selector(json) } catch { throw CouchError.badRequest(error.reason) }
    }

    private mutating func parseFilter(_ context: RequestContext, body: JSONValue) async throws {
        guard let name = context.query["filter"] else { return }
        switch name {
        case "_doc_ids":
            var list = try context.query.json("doc_ids")
            if list == nil { list = body["doc_ids"] }
            guard let ids = list?.arrayValue, ids.allSatisfy({ $0.stringValue != nil }) else {
                throw CouchError.badRequest("`doc_ids` filter parameter is not a list of doc ids.")
            }
            docIDs = Set(ids.compactMap(\.stringValue))
        case "_selector":
            filter = .selector(try Self.selector(context, body: body))
        case "_design":
            filter = .design
        case "_view":
            guard let viewName = context.query["view"] else {
                throw CouchError.badRequest("`view` filter parameter is not provided.")
            }
            filter = .javascript(try await ChangesFilterFunction.view(viewName, context))
        default:
            filter = .javascript(try await ChangesFilterFunction.filter(name, context))
        }
    }

    /// `heartbeat`: a positive integer, with chttpd_db `parse_changes_query`'s two messages.
    static func heartbeatMilliseconds(_ text: String) throws -> Int {
        guard let value = QueryOptions.erlangInteger(text) else {
            throw CouchError.badRequest("Invalid heartbeat value. Expecting a positive integer value (in milliseconds).")
        }
        guard value > 0 else {
            throw CouchError.badRequest("The heartbeat value should be a positive integer (in milliseconds).")
        }
        return value
    }

    /// `timeout`: any integer, as CouchDB takes it; 0 or less ends an idle feed at
    /// once. CouchDB answers a non-integer with a 500 (`badarg`); Settee with a 400.
    static func timeoutMilliseconds(_ text: String) throws -> Int {
        guard let value = QueryOptions.erlangInteger(text) else {
            throw CouchError.badRequest("The `timeout` value should be an integer (in milliseconds).")
        }
        return max(0, value)
    }

    /// Where the feed starts, as chttpd_db:parse_changes_query/1 reads it: the query's
    /// `since` or `last-event-id` (the same thing to CouchDB; it folds the parameters in
    /// order, so the later one wins; aiocouch's `changes(last_event_id=...)` sends the
    /// latter), and for `eventsource` only, a `Last-Event-ID` header over both (a browser
    /// reconnecting). Other feeds ignore the header.
    static func sinceText(_ q: QueryOptions, feed: ChangesFeedKind, header: String?) -> String? {
        if feed == .eventsource, let header { return header }
        return q.items.last { $0.name == "since" || $0.name == "last-event-id" }?.value
    }

    /// `since`: `now` (nil), a sequence token or a plain integer.
    static func parseSince(_ text: String?) throws -> Int64? {
        guard let text else { return 0 }
        if text == "now" { return nil }
        guard let seq = SequenceToken.parse(text) else {
            throw CouchError.badRequest("Malformed sequence supplied in 'since' parameter.")
        }
        return seq
    }
}

/// Filters that need the document itself (`_doc_ids` is applied by the store).
extension ChangesQuery {
    /// Whether CouchDB answers this feed by reading documents rather than walking the
    /// changes (`filter=_doc_ids`, `filter=_design`), which shows in its `pending`.
    var readsByDocument: Bool {
        if docIDs != nil { return true }
        if case .design = filter { return true }
        return false
    }
}

enum ChangesFilter: Sendable {
    case none
    case design
    case selector(Selector)
    /// A design document's filter function, or `_view`'s map function.
    case javascript(ChangesFilterFunction)

    var needsDocuments: Bool {
        if case .none = self { return false }
        return true
    }

    var isJavaScript: Bool {
        if case .javascript = self { return true }
        return false
    }

    func accepts(_ change: Change, database: Database) async throws -> Bool {
        switch self {
        case .none: return true
        case .design: return change.id.hasPrefix("_design/")
        case .selector(let selector): return try await selector.matchesWinner(of: change.id, in: database)
        case .javascript(let function): return try await function.accepts(change.id, in: database)
        }
    }
}
