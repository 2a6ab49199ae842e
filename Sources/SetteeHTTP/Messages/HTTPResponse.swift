/// A response to send. `status` is the numeric code; the reason phrase comes from `HTTPStatus`.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: ResponseBody
    /// Appended to the server's access-log line for this request (who asked, the request
    /// id); the responder's business, and never credentials.
    public var logNote: String?

    public init(status: Int, headers: HTTPHeaders = [:], body: ResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// What follows the headers of a response.
///
/// - `bytes`: sent with `Content-Length`.
/// - `stream`: the closure writes the body piece by piece; sent chunked
///   (RFC 9112 §7.1) unless the response sets `Content-Length`, in which case
///   exactly that many bytes must be written. The closure's writes suspend
///   while the socket is full, and throw once the client has gone.
public enum ResponseBody: Sendable {
    case empty
    case bytes([UInt8])
    case stream(@Sendable (any ResponseBodyWriter) async throws -> Void)
}

/// Where a streamed response body goes.
public protocol ResponseBodyWriter: Sendable {
    /// Sends `bytes` (as one chunk when chunked). Throws `HTTPError.connectionClosed` once the peer is gone.
    func write(_ bytes: [UInt8]) async throws

    /// True once the client has closed its side of the connection, so an idle
    /// stream (a `_changes` feed between heartbeats) can stop without writing.
    var isPeerClosed: Bool { get }
}

extension ResponseBodyWriter {
    /// Writers that cannot tell (test doubles) report an open peer.
    public var isPeerClosed: Bool { false }
}

/// Reason phrases for the status codes Settee sends (RFC 9110 §15).
public enum HTTPStatus {
    public static func reasonPhrase(_ code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 206: "Partial Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Object Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Request Entity Too Large"
        case 415: "Unsupported Media Type"
        case 416: "Requested Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }
}
