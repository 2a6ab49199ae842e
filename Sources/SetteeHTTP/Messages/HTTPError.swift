internal import Glibc

/// Errors of the HTTP layer. The server answers the framing errors itself
/// (400/413/431/501/505) and closes the connection; handlers see them when reading a body.
public enum HTTPError: Error, Sendable, Equatable {
    /// The request line or headers are malformed (RFC 9112 §2.2, §5).
    case malformedRequest(String)
    /// A transfer coding other than chunked, before the final chunked (RFC 9112 §6.1: 501).
    case unsupportedTransferCoding(String)
    /// An HTTP major version other than 1 (RFC 9110 §15.6.6: 505).
    case versionNotSupported(String)
    /// The request line and headers exceed the limit (RFC 6585 §5: 431).
    case headersTooLarge(limit: Int)
    /// The body exceeds the limit (RFC 9110 §15.5.14: 413).
    case bodyTooLarge(limit: Int)
    /// The body ended before its declared length or its last chunk.
    case truncatedBody
    /// Bad chunked framing (RFC 9112 §7.1).
    case malformedChunk(String)
    /// The peer closed the connection or reset it.
    case connectionClosed
    /// No complete request or body arrived in time.
    case timedOut
    /// A socket call failed.
    case socket(call: String, errno: Int32)
}

extension HTTPError: CustomStringConvertible {
    /// What a person reads when the server cannot start (a port in use) or a request fails.
    public var description: String {
        switch self {
        case .malformedRequest(let why): "malformed request: \(why)"
        case .unsupportedTransferCoding(let coding): "unsupported transfer coding \(coding)"
        case .versionNotSupported(let version): "HTTP version \(version) not supported"
        case .headersTooLarge(let limit): "request head over \(limit) bytes"
        case .bodyTooLarge(let limit): "request body over \(limit) bytes"
        case .truncatedBody: "request body ended early"
        case .malformedChunk(let why): "malformed chunk: \(why)"
        case .connectionClosed: "connection closed"
        case .timedOut: "timed out"
        case .socket(let call, let number): "\(call): \(String(cString: strerror(number))) (errno \(number))"
        }
    }
}
