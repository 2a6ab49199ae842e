internal import Logging
public import SetteeStore

/// Turns a replication's `source` or `target` into a peer: an http(s) URL is a
/// remote database, a `file://` URL a database of a data directory on this machine
/// (`FileEndpoint`, when `allowsFiles`), anything else names a database of the local store.
public struct PeerEndpoints: Sendable {
    /// The local store, when there is one (the server, or `settee replicate --data-dir`).
    public let directory: DatabaseDirectory?
    /// The local server's uuid: half of a local peer's identity.
    public let serverUUID: String
    public let session: CurlSession
    public let maxDocumentSize: Int
    /// Runs the filter functions of local sources (`filter` replications).
    public let filters: (any FilterFunctionRunner)?
    /// Whether `file://` endpoints may be named: they open any directory this process can
    /// write, so only whoever runs the process (the command line, a server admin) may.
    public let allowsFiles: Bool
    /// Holds the local store's data directory while the endpoints are in use (the command
    /// line's `--data-dir`); nil where the owner holds it (the server).
    public let directoryLock: DataDirectoryLock?

    public init(directory: DatabaseDirectory?, serverUUID: String, session: CurlSession,
                maxDocumentSize: Int = 8_000_000, filters: (any FilterFunctionRunner)? = nil,
                allowsFiles: Bool = false, directoryLock: DataDirectoryLock? = nil) {
        self.allowsFiles = allowsFiles
        self.directoryLock = directoryLock
        self.directory = directory
        self.serverUUID = serverUUID
        self.session = session
        self.maxDocumentSize = maxDocumentSize
        self.filters = filters
    }

    /// Where remote peers' attachment bytes wait: the local store's directory (the disk
    /// they end up on) when there is one, else `TMPDIR`.
    var spool: SpoolDirectory {
        directory.map { SpoolDirectory(path: $0.configuration.path) } ?? .temporary
    }

    /// - Parameters:
    ///   - headers: extra headers for a remote peer (CouchDB's `{"url":..,"headers":{..}}` form).
    ///   - pin: the certificate fingerprint an `https` peer must present.
    ///   - mayCreate: a `file://` directory that does not exist is made (a target with
    ///     `create_target`); otherwise it is a database that does not exist, and nothing is
    ///     left behind (a mistyped path, a stick not mounted).
    /// - Throws: `ReplicationError.invalidEndpoint` for a malformed URL or database name;
    ///   for a `file://` URL, `.fileEndpointRefused` (not `allowsFiles`), `.directoryInUse`
    ///   (a running server has it) or `.unreachable` (it cannot be made or read).
    public func peer(_ text: String, headers: [(String, String)] = [], pin: String? = nil,
                     mayCreate: Bool = false) throws -> any Peer {
        let lower = text.lowercased()
        if FileEndpoint.isFileURL(text) {
            guard allowsFiles else { throw ReplicationError.fileEndpointRefused(text) }
            let endpoint = try FileEndpoint(url: text)
            if let own = directory?.configuration.path, FileDirectory.isSame(own, endpoint.directory) {
                throw ReplicationError.invalidOption("\(text) is in this node's own data directory: name the database without file://")
            }
            guard mayCreate || FileDirectory.exists(endpoint.directory) else { throw ReplicationError.databaseNotFound(text) }
            let opened = try FileDirectory.open(endpoint.directory, logger: Logger(label: "settee.replicator.file"))
            return LocalPeer(file: endpoint, in: opened, maxDocumentSize: maxDocumentSize, filters: filters)
        }
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
