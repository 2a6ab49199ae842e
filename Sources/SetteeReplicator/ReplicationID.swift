internal import Crypto
internal import FoundationEssentials
internal import SetteeJSON

/// The id a replication's checkpoints are stored under (`_local/<id>`). CouchDB
/// hashes the peers' URLs, so a peer that comes back on another address or port
/// starts over; Settee hashes each peer's server `uuid` and database name instead,
/// with the options that change what is replicated (CouchDB's rule: not
/// `continuous`, `create_target` or batch sizes).
public enum ReplicationID {
    /// Version of this recipe, recorded in checkpoints as `replication_id_version`.
    public static let version = 1

    /// - Parameter filterCode: the source of the filter function, when there is one (CouchDB
    ///   keys on it too: an edited filter starts over).
    public static func make(source: PeerIdentity, target: PeerIdentity, options: ReplicationOptions,
                            filterCode: String? = nil) -> String {
        var key: JSONObject = [
            "v": .int(version),
            "source": .string(source.serverUUID + "/" + source.database),
            "target": .string(target.serverUUID + "/" + target.database),
        ]
        if let ids = options.docIDs { key.append("doc_ids", .array(ids.sorted().map { .string($0) })) }
        if let selector = options.selector { key.append("selector", selector) }
        if let since = options.sinceSeq { key.append("since_seq", .string(since)) }
        if let name = options.filterFunction {
            key.append("filter", .string(name))
            key.append("filter_code", .string(filterCode ?? ""))
            key.append("query_params", .object(options.queryParameters))
        }
        let digest = Insecure.MD5.hash(data: JSONWriter.serialize(.object(key)))
        return URLText.hex(digest)
    }
}
