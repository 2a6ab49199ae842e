internal import SetteeJSON
internal import SetteeReplicator

/// A `_replicate` body (or, later, a `_replicator` document) read as CouchDB
/// reads it (`couch_replicator_parse`): `source`/`target` as a URL or
/// `{"url", "headers"}`, and the options, each type-checked with CouchDB's message.
struct ReplicationRequest {
    var source = ""
    var target = ""
    var sourceHeaders: [(String, String)] = []
    var targetHeaders: [(String, String)] = []
    var options = ReplicationOptions()
    var cancel = false

    init(_ body: JSONObject) throws {
        (source, sourceHeaders) = try Self.endpoint(body["source"], "source")
        (target, targetHeaders) = try Self.endpoint(body["target"], "target")
        options.continuous = try Self.bool(body, "continuous")
        options.createTarget = try Self.bool(body, "create_target")
        cancel = try Self.bool(body, "cancel")
        options.useCheckpoints = try body["use_checkpoints"] == nil ? true : Self.bool(body, "use_checkpoints")
        if let ids = body["doc_ids"], !ids.isNull {
            guard let list = ids.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw CouchError.badRequest("parameter `doc_ids` must be an array of strings")
            }
            options.docIDs = list.compactMap(\.stringValue)
        }
        if let since = body["since_seq"], !since.isNull {
            options.sinceSeq = since.stringValue ?? String(decoding: JSONWriter.serialize(since), as: UTF8.self)
        }
        if let size = body["worker_batch_size"] {
            guard let n = size.intValue, n > 0 else {
                throw CouchError.badRequest("parameter `worker_batch_size` must be a positive integer")
            }
            options.batchSize = n
        }
        // Filters run JavaScript (or views, or selectors), which Settee does not have yet: refuse
        // rather than replicate more than was asked.
        for name in ["filter", "selector"] where body[name] != nil && body[name]?.isNull == false {
            throw CouchError.badRequest("`\(name)` replications are not supported by this server yet")
        }
    }

    /// CouchDB's job id suffixes: `+continuous`, `+create_target`.
    var idSuffix: String { (options.continuous ? "+continuous" : "") + (options.createTarget ? "+create_target" : "") }

    private static func endpoint(_ value: JSONValue?, _ name: String) throws -> (String, [(String, String)]) {
        if let text = value?.stringValue { return (text, []) }
        if let object = value?.objectValue, let url = object["url"]?.stringValue {
            let headers = (object["headers"]?.objectValue ?? JSONObject()).compactMap { member in
                member.value.stringValue.map { (member.key, $0) }
            }
            return (url, headers)
        }
        // What CouchDB 3.4.3 answers when `source` or `target` is missing.
        throw CouchError(500, "error", "Missing replicator database")
    }

    private static func bool(_ body: JSONObject, _ name: String) throws -> Bool {
        guard let value = body[name], !value.isNull else { return false }
        guard let flag = value.boolValue else { throw CouchError.badRequest("parameter `\(name)` must be a boolean") }
        return flag
    }
}
