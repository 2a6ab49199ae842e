public import SetteeStore

/// Turns a replication's `source` or `target` into a peer: an http(s) URL is a
/// remote database, anything else names a database of the local store.
public struct PeerEndpoints: Sendable {
    /// The local store, when there is one (the server, or `settee replicate --data-dir`).
    public let directory: DatabaseDirectory?
    /// The local server's uuid: half of a local peer's identity.
    public let serverUUID: String
    public let session: CurlSession
    public let maxDocumentSize: Int
    /// Runs the filter functions of local sources (`filter` replications).
    public let filters: (any FilterFunctionRunner)?

    public init(directory: DatabaseDirectory?, serverUUID: String, session: CurlSession,
                maxDocumentSize: Int = 8_000_000, filters: (any FilterFunctionRunner)? = nil) {
        self.directory = directory
        self.serverUUID = serverUUID
        self.session = session
        self.maxDocumentSize = maxDocumentSize
        self.filters = filters
    }

    /// - Parameters:
    ///   - headers: extra headers for a remote peer (CouchDB's `{"url":..,"headers":{..}}` form).
    ///   - pin: the certificate fingerprint an `https` peer must present.
    /// - Throws: `ReplicationError.invalidEndpoint` for a malformed URL or database name.
    /// Where remote peers' attachment bytes wait: the local store's directory (the disk
    /// they end up on) when there is one, else `TMPDIR`.
    var spool: SpoolDirectory {
        directory.map { SpoolDirectory(path: $0.configuration.path) } ?? .temporary
    }

    public func peer(_ text: String, headers: [(String, String)] = [], pin: String? = nil) throws -> any Peer {
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let pin = lower.hasPrefix("https://") ? pin : nil
            return RemotePeer(endpoint: try RemoteEndpoint(url: text, headers: headers, pin: pin), session: session,
                              spool: spool)
        }
        guard let directory, DatabaseName.isValid(text) else {
            throw ReplicationError.invalidEndpoint(RemoteEndpoint.redacted(text))
        }
        return LocalPeer(directory: directory, name: text, serverUUID: serverUUID, maxDocumentSize: maxDocumentSize,
                         filters: filters)
    }
}
