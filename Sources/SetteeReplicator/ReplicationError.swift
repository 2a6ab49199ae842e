internal import Glibc

/// Why a replication stopped or a step of it failed. The server maps these to
/// CouchDB's `_replicate` errors; the CLI prints them.
public enum ReplicationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A peer's database does not exist (and `create_target` was not asked for).
    case databaseNotFound(String)
    /// A source or target that is neither a URL nor a database name.
    case invalidEndpoint(String)
    /// An option this replicator does not support (yet), or a bad value.
    case invalidOption(String)
    /// A replication without a `source` or `target`.
    case missingEndpoint(String)
    /// The source listed a revision and then could not serve it: retried, never skipped.
    case revisionMissing(String, String)
    /// A peer answered with an HTTP error the replicator cannot go on from.
    case peerError(peer: String, status: Int, error: String, reason: String)
    /// A peer answered something that is not what CouchDB's protocol says.
    case malformedAnswer(peer: String, what: String)
    /// The network failed (after retries).
    case unreachable(peer: String, cause: String)
    /// A pinned peer presented another certificate: never retried, never trusted.
    case certificateMismatch(peer: String, expected: String, presented: String)
    /// The source has no such filter function (`filter: "ddoc/name"`).
    case filterNotFound(peer: String, name: String, reason: String)
    /// A `file://` endpoint's data directory is held by another process (`DataDirectoryLock`):
    /// a running `settee serve` or a program embedding Settee.
    case directoryInUse(String)
    /// A `file://` endpoint where they are not allowed (a non-admin's `_replicate`, a
    /// `_replicator` document): it would open a directory of the server's machine.
    case fileEndpointRefused(String)
    case cancelled
    /// A spool file (attachment bytes on their way, `SpoolFile`) could not be made,
    /// written or read: `errno` says why (`ENOSPC`: the disk is full).
    case spoolFailed(operation: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .databaseNotFound(let name): "database \(name) does not exist"
        case .invalidEndpoint(let text): "not a database name or URL: \(text)"
        case .invalidOption(let why): why
        case .missingEndpoint(let name): "a replication needs a \(name)"
        case .revisionMissing(let id, let rev): "the source could not serve \(id) \(rev)"
        case .peerError(let peer, let status, let error, let reason): "\(peer) answered \(status) \(error): \(reason)"
        case .malformedAnswer(let peer, let what): "\(peer) sent a malformed \(what)"
        case .unreachable(let peer, let cause): "\(peer) is unreachable: \(cause)"
        case .certificateMismatch(let peer, let expected, let presented):
            "\(peer) presented a TLS certificate with SHA-256 fingerprint \(presented), not the pinned \(expected)"
        case .filterNotFound(let peer, let name, let reason):
            "Couldn't parse filter code from \(name) on `\(peer)`: \(reason)"
        case .directoryInUse(let path):
            "the data directory \(path) is in use by another process (settee serve or a program embedding Settee): "
                + "stop it, or replicate through its URL"
        case .fileEndpointRefused(let url): "file:// endpoints are for the command line and server admins only: \(url)"
        case .cancelled: "cancelled"
        case .spoolFailed(let operation, let path, let code):
            "could not \(operation) a spool file in \(path): \(String(cString: strerror(code)))"
        }
    }

    /// Whether trying again later may succeed (network, 5xx, a revision in flux).
    public var isTransient: Bool {
        switch self {
        case .unreachable, .revisionMissing, .malformedAnswer: true
        case .peerError(_, let status, _, _): status >= 500 || status == 408 || status == 429
        default: false
        }
    }
}
