/// One HTTP request to a remote peer, as the replicator builds it.
public struct RemoteRequest: Sendable {
    public var method: String
    /// Absolute URL, without userinfo (credentials travel in `headers`).
    public var url: String
    /// Header fields in order; names as written.
    public var headers: [(String, String)]
    public var body: [UInt8]?
    /// The whole exchange must finish within this (a stalled peer is an error).
    public var timeout: Duration
    /// A body read as it is sent (attachments from spool files), in place of `body`.
    var upload: UploadBody?

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                timeout: Duration = .seconds(30)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A remote peer's answer.
public struct RemoteResponse: Sendable {
    public let status: Int
    /// Header fields as received, names lower-cased.
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.0 == lower }?.1
    }
}

/// Why an exchange with a remote peer produced no answer.
public enum RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libcurl failed: connection refused, reset, DNS, TLS... (`CURLcode` and its text).
    case transport(code: Int, message: String)
    /// No complete answer within the request's timeout.
    case timedOut
    /// The caller's task was cancelled, or a streaming consumer stopped the transfer.
    case cancelled
    /// The server's certificate is not the pinned one.
    case certificateMismatch(expected: String, presented: String)

    /// Plain words for logs and `_scheduler` errors (Swift's own rendering of the case
    /// would show the message escaped, `Couldn\'t connect`).
    public var description: String {
        switch self {
        case .transport(let code, let message): "\(message) (libcurl error \(code))"
        case .timedOut: "no answer within the timeout"
        case .cancelled: "cancelled"
        case .certificateMismatch(let expected, let presented):
            "the TLS certificate's SHA-256 fingerprint is \(presented), not the pinned \(expected)"
        }
    }
}
