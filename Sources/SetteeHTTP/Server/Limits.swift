/// Size limits, answered with RFC 6585/9110 statuses.
public struct Limits: Sendable {
    /// Request line plus headers (431 past it). CouchDB's mochiweb: 64 KiB.
    public var maxHeaderBytes: Int = 64 * 1024
    /// Bodies (413 past it): CouchDB's `[chttpd] max_http_request_size`, 4 GiB.
    public var maxBodyBytes: Int = 4 * 1024 * 1024 * 1024
    /// Header fields in one request.
    public var maxHeaderCount: Int = 100

    public init() {}
}
