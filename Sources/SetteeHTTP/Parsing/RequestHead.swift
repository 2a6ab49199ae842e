/// How the body of a request is delimited (RFC 9112 §6.3).
enum BodyFraming: Sendable, Equatable {
    /// No body: neither Content-Length nor Transfer-Encoding (RFC 9112 §6.3 rule 7).
    case none
    /// Exactly this many bytes follow the head (RFC 9112 §6.3 rule 6).
    case length(Int)
    /// Chunked transfer coding (RFC 9112 §7.1).
    case chunked
}

/// The request line and header section of one request, with the framing and
/// connection decisions already made, as `RequestParser` produced them.
struct RequestHead: Sendable {
    var method: String
    var target: String
    var version: HTTPVersion
    var headers: HTTPHeaders
    var framing: BodyFraming
    /// Whether the connection may carry another request after this one (RFC 9112 §9.3).
    var isKeepAlive: Bool
    /// The client sent `Expect: 100-continue` (RFC 9110 §10.1.1), HTTP/1.1 only.
    var expectsContinue: Bool
}
