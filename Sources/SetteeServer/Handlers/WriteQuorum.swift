import SetteeJSON

/// A write's quorum, `w`, on one node. CouchDB writes each document to `n` copies and
/// answers 201 once `w` of them are written, 202 Accepted when fewer were (fabric's
/// `accepted`; `"accepted": true` on each such `_bulk_docs` row). A single node keeps
/// one copy (n = 1, as CouchDB's `single_node` with `[cluster] n = 1`), so a client that
/// asks for more than one gets 202 — the write is as durable as ever.
enum WriteQuorum {
    /// The copies one node keeps.
    static let copies = 1

    /// Whether the request's `w` (query string; for `_bulk_docs` an integer `w` in `body`
    /// too) asks for more copies than there are. A `w` that is not an integer asks nothing.
    static func isUnmet(_ context: RequestContext, body: JSONValue? = nil) -> Bool {
        let asked = context.query["w"].flatMap { Int($0) } ?? body?["w"]?.intValue
        return (asked ?? copies) > copies
    }

    /// `status`, or 202 when the quorum is unmet.
    static func status(_ status: Int, _ context: RequestContext, body: JSONValue? = nil) -> Int {
        isUnmet(context, body: body) ? 202 : status
    }
}
