import SetteeJSON
import SetteeStore

/// A view request's options (CouchDB API Reference › Design Documents › Views,
/// `GET /{db}/_design/{ddoc}/_view/{view}`), checked as couch_mrview_http checks them.
struct ViewQuery {
    var reduce: Bool?
    var group = false
    var groupLevel: Int?
    var keys: [JSONValue]?
    /// `keys` came from `keys` (rows of several ranges), not from `key`.
    var isMultiKey = false
    var startKey: JSONValue?
    var startDocID: String?
    var endKey: JSONValue?
    var endDocID: String?
    var inclusiveEnd = true
    var descending = false
    var limit = Int.max
    var skip = 0
    var includeDocs = false
    var conflicts = false
    /// `include_docs`' documents with their attachments inline, and with their encodings.
    var attachments = false
    var attEncodingInfo = false
    /// "true", "false" or "lazy".
    var update = "true"
    var updateSeq = false
    var sorted = true

    init(_ q: QueryOptions, body: JSONObject?) throws {
        // The body is read first and the query string over it (couch_mrview_http:parse_body_and_query/3).
        func json(_ names: String...) throws -> JSONValue? {
            for name in names {
                if let value = try q.json(name) { return value }
            }
            return names.lazy.compactMap { body?[$0] }.first
        }
        func bool(_ name: String) throws -> Bool? {
            if !q.contains(name), let value = body?[name] { return try DecodedParameter.bool(value) }
            return q.contains(name) ? try q.bool(name) : nil
        }
        reduce = try bool("reduce")
        let explicitGroup = try bool("group")
        group = explicitGroup ?? false
        if let level = try q.int("group_level") ?? body?["group_level"].map(DecodedParameter.nonNegativeInt) {
            guard level >= 0 else { throw CouchError.queryParseError("Invalid value for positive integer: \"\(level)\"") }
            groupLevel = level
        }
        // couch_mrview_util:determine_group_level/1
        if explicitGroup == false, let level = groupLevel, level > 0 {
            throw CouchError.queryParseError("Can't specify group=false and group_level>0 at the same time")
        }
        // Document ids are raw strings in a query string, not JSON.
        startDocID = body?["startkey_docid"]?.stringValue ?? body?["start_key_doc_id"]?.stringValue
            ?? q["startkey_docid"] ?? q["start_key_doc_id"]
        endDocID = body?["endkey_docid"]?.stringValue ?? body?["end_key_doc_id"]?.stringValue
            ?? q["endkey_docid"] ?? q["end_key_doc_id"]
        inclusiveEnd = try bool("inclusive_end") ?? true
        descending = try bool("descending") ?? false
        try applyKeyBounds(q, body: body)
        if let value = try body?["limit"].map(DecodedParameter.nonNegativeInt) ?? q.nonNegativeInt("limit") {
            guard value >= 0 else { throw CouchError.queryParseError("Invalid value for positive integer: \"\(value)\"") }
            limit = value
        }
        if let value = try body?["skip"].map(DecodedParameter.nonNegativeInt) ?? q.nonNegativeInt("skip") { skip = max(0, value) }
        includeDocs = try bool("include_docs") ?? false
        conflicts = try bool("conflicts") ?? false
        attachments = try bool("attachments") ?? false
        attEncodingInfo = try bool("att_encoding_info") ?? false
        if let value = body?["update"]?.stringValue ?? body?["update"].map({ JSONWriter.string($0) }) ?? q["update"] {
            guard ["true", "false", "lazy"].contains(value) else {
                throw CouchError.queryParseError("Invalid value for `update`.")
            }
            update = value
        }
        if let stale = q["stale"] ?? body?["stale"].map({ $0.stringValue ?? JSONWriter.string($0) }) {
            switch stale {
            case "ok": update = "false"
            case "update_after": update = "lazy"
            default: throw CouchError.queryParseError("Invalid value for `stale`.")
            }
        }
        updateSeq = try bool("update_seq") ?? false
        // `sorted=false` merges shards as they answer in CouchDB, which then sends no
        // `total_rows` or `offset`; one node has no shards to pin (`stable`).
        sorted = try bool("sorted") ?? true
        if let stable = body?["stable"].map({ JSONWriter.string($0) }) ?? q["stable"], !["true", "false"].contains(stable) {
            throw CouchError.queryParseError("Invalid value for `stable`.")
        }
    }

    /// The key ranges to read, in order: one per key of `keys`, else the start/end range,
    /// in the view's `collation`.
    func ranges(collation: KeyCollation = .unicode) throws -> [KeyRange] {
        if let keys {
            return keys.map { key in
                // `inclusive_end=false` leaves each key's range empty, as in CouchDB.
                let encoded = IndexKeyEncoding.encode(key, collation: collation)
                return KeyRange(lower: encoded, upper: inclusiveEnd ? IndexKeyEncoding.upperBound(encoded) : encoded)
            }
        }
        let (low, lowID, high, highID) = descending ? (endKey, endDocID, startKey, startDocID)
                                                    : (startKey, startDocID, endKey, endDocID)
        // The low end is inclusive, except a descending read's end with inclusive_end=false.
        let lowInclusive = descending ? inclusiveEnd : true
        let highInclusive = descending ? true : inclusiveEnd
        var range = KeyRange()
        if let low {
            var bound = IndexKeyEncoding.encode(low, collation: collation)
            if let lowID { IndexKeyEncoding.appendDocumentID(lowID, to: &bound) }
            range.lower = lowInclusive ? bound : IndexKeyEncoding.upperBound(bound)
        }
        if let high {
            var bound = IndexKeyEncoding.encode(high, collation: collation)
            if let highID { IndexKeyEncoding.appendDocumentID(highID, to: &bound) }
            range.upper = highInclusive ? IndexKeyEncoding.upperBound(bound) : bound
        }
        if let startKey, let endKey {
            let order = JSONCollation.compare(startKey, endKey, collation: collation)
            if descending ? order < 0 : order > 0 {
                throw CouchError.queryParseError(
                    "No rows can match your key range, reverse your start_key and end_key or set descending="
                        + (descending ? "false" : "true"))
            }
        }
        return [range]
    }
}
