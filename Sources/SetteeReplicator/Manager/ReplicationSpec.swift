public import SetteeJSON

/// What a `_replicate` body or a `_replicator` document asks for, read as CouchDB
/// reads them (`couch_replicator_parse`): `source`/`target` as a URL or a name, or
/// `{"url", "headers"}`; options type-checked with CouchDB's messages.
public struct ReplicationSpec: Sendable, Equatable {
    public var source: String
    public var target: String
    public var sourceHeaders: [String: String] = [:]
    public var targetHeaders: [String: String] = [:]
    /// `tls_fingerprint`, top level or in an endpoint object: the certificate an https peer must present.
    public var sourcePin: String?
    public var targetPin: String?
    public var options = ReplicationOptions()
    /// `_replicate` only: stop the continuous replication this body names.
    public var cancel = false

    /// - Throws: `ReplicationError.missingEndpoint` without a source or target,
    ///   `.invalidOption` with CouchDB's reason for a value of the wrong type.
    public init(_ body: JSONObject) throws {
        (source, sourceHeaders, sourcePin) = try Self.endpoint(body["source"], "source")
        (target, targetHeaders, targetPin) = try Self.endpoint(body["target"], "target")
        if let pin = body["tls_fingerprint"], !pin.isNull {
            guard let text = pin.stringValue else {
                throw ReplicationError.invalidOption("parameter `tls_fingerprint` must be a string")
            }
            sourcePin = sourcePin ?? text
            targetPin = targetPin ?? text
        }
        options.continuous = try Self.bool(body, "continuous")
        options.createTarget = try Self.bool(body, "create_target")
        cancel = try Self.bool(body, "cancel")
        options.useCheckpoints = body["use_checkpoints"] == nil ? true : try Self.bool(body, "use_checkpoints")
        if let ids = body["doc_ids"], !ids.isNull {
            guard let list = ids.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw ReplicationError.invalidOption("parameter `doc_ids` must be an array of strings")
            }
            options.docIDs = list.compactMap(\.stringValue)
        }
        if let since = body["since_seq"], !since.isNull {
            options.sinceSeq = since.stringValue ?? String(decoding: JSONWriter.serialize(since), as: UTF8.self)
        }
        if let parameters = body["create_target_params"], !parameters.isNull {
            guard let object = parameters.objectValue else {
                throw ReplicationError.invalidOption("parameter `create_target_params` must be a JSON object")
            }
            for member in object {
                options.createTargetParameters[member.key] = member.value.stringValue
                    ?? String(decoding: JSONWriter.serialize(member.value), as: UTF8.self)
            }
        }
        if let workers = body["worker_processes"] {
            guard let n = workers.intValue, n > 0 else {
                throw ReplicationError.invalidOption("parameter `worker_processes` must be a positive integer")
            }
            options.workers = n
        }
        if let size = body["worker_batch_size"] {
            guard let n = size.intValue, n > 0 else {
                throw ReplicationError.invalidOption("parameter `worker_batch_size` must be a positive integer")
            }
            options.batchSize = n
        }
        if let interval = body["checkpoint_interval"], !interval.isNull {
            options.checkpointInterval = try Self.checkpointInterval(interval)
        }
        if let selector = body["selector"], !selector.isNull {
            guard selector.objectValue != nil else {
                throw ReplicationError.invalidOption("`selector` must be a JSON object")
            }
            options.selector = selector
        }
        // A design document's filter function, run by the source (CouchDB's rule: `ddoc/name`).
        if let filter = body["filter"], !filter.isNull {
            guard let name = filter.stringValue, name.split(separator: "/", omittingEmptySubsequences: false).count == 2,
                  !name.hasPrefix("/"), !name.hasSuffix("/") else {
                throw ReplicationError.invalidOption("Invalid filter. Must match `ddocname/filtername`.")
            }
            options.filterFunction = name
            if let parameters = body["query_params"], !parameters.isNull {
                guard let object = parameters.objectValue else {
                    throw ReplicationError.invalidOption("parameter `query_params` must be an object")
                }
                options.queryParameters = object
            }
        }
    }

    /// CouchDB's job id suffixes: `+continuous`, `+create_target`.
    public var idSuffix: String {
        (options.continuous ? "+continuous" : "") + (options.createTarget ? "+create_target" : "")
    }

    /// The peers this spec names.
    public func peers(_ endpoints: PeerEndpoints) throws -> (source: any Peer, target: any Peer) {
        (try endpoints.peer(source, headers: sourceHeaders.sorted { $0.key < $1.key }, pin: sourcePin),
         try endpoints.peer(target, headers: targetHeaders.sorted { $0.key < $1.key }, pin: targetPin,
                            mayCreate: options.createTarget))
    }

    private static func endpoint(_ value: JSONValue?, _ name: String) throws -> (String, [String: String], String?) {
        if let text = value?.stringValue { return (text, [:], nil) }
        if let object = value?.objectValue, let url = object["url"]?.stringValue {
            var headers: [String: String] = [:]
            for member in object["headers"]?.objectValue ?? JSONObject() {
                if let text = member.value.stringValue { headers[member.key] = text }
            }
            return (url, headers, object["tls_fingerprint"]?.stringValue)
        }
        throw ReplicationError.missingEndpoint(name)
    }

    /// `checkpoint_interval`: milliseconds between checkpoints, an integer or a string of
    /// one, as CouchDB reads it (`couch_replicator_parse:convert_options`,
    /// `couch_util:to_integer`; its default is `[replicator] checkpoint_interval` = 30000).
    private static func checkpointInterval(_ value: JSONValue) throws -> Duration {
        guard let milliseconds = value.intValue ?? value.stringValue.flatMap({ Int($0) }), milliseconds >= 0 else {
            throw ReplicationError.invalidOption("parameter `checkpoint_interval` must be a non-negative integer")
        }
        return .milliseconds(milliseconds)
    }

    private static func bool(_ body: JSONObject, _ name: String) throws -> Bool {
        guard let value = body[name], !value.isNull else { return false }
        guard let flag = value.boolValue else {
            throw ReplicationError.invalidOption("parameter `\(name)` must be a boolean")
        }
        return flag
    }
}

extension ReplicationOptions: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.continuous == rhs.continuous && lhs.createTarget == rhs.createTarget && lhs.docIDs == rhs.docIDs
            && lhs.batchSize == rhs.batchSize && lhs.useCheckpoints == rhs.useCheckpoints && lhs.sinceSeq == rhs.sinceSeq
            && lhs.selector == rhs.selector && lhs.workers == rhs.workers
            && lhs.createTargetParameters == rhs.createTargetParameters
            && lhs.checkpointInterval == rhs.checkpointInterval
    }
}
