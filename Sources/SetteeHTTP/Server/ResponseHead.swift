/// The serialized status line and header section of a response, plus how its
/// body is framed. The HTTP layer adds only framing and connection headers;
/// everything else (Server, Date, Content-Type) is the responder's.
struct ResponseHead: Sendable {
    enum BodyMode: Sendable, Equatable {
        /// No body bytes follow (HEAD, 1xx/204/304, or an empty body).
        case none
        /// These bytes follow, as declared in Content-Length.
        case fixed([UInt8])
        /// A stream framed as chunks (RFC 9112 §7.1).
        case chunked
        /// A stream of exactly this many bytes, declared by the handler.
        case length(Int)
        /// A stream delimited by closing the connection (HTTP/1.0 clients, RFC 9112 §6.3 rule 8).
        case untilClose
    }

    let bytes: [UInt8]
    let mode: BodyMode
    /// Whether the connection closes after this response.
    let closing: Bool

    var fixedBody: [UInt8] { if case .fixed(let b) = mode { b } else { [] } }

    init(response: HTTPResponse, requestMethod: String, version: HTTPVersion, closing: Bool) {
        let headers = response.headers
        let status = response.status
        // RFC 9110 §6.4.1: 1xx, 204 and 304 responses have no content; RFC 9110 §9.3.2:
        // HEAD gets the headers a GET would get, without the content.
        let hasNoContent = (100..<200).contains(status) || status == 204 || status == 304
        let isHead = requestMethod == "HEAD"
        var closing = closing
        // The framing fields this layer writes itself, replacing the handler's.
        var contentLength: Int?
        var keepsDeclaredLength = false
        var isChunked = false
        var mode: BodyMode
        switch response.body {
        case .empty, .bytes:
            var payload: [UInt8] = []
            if case .bytes(let b) = response.body { payload = b }
            if hasNoContent {
                // RFC 9110 §8.6: no Content-Length in 1xx/204.
            } else if isHead && payload.isEmpty && headers.contains("Content-Length") {
                keepsDeclaredLength = true  // a HEAD handler that declared the GET's length
            } else {
                contentLength = payload.count
            }
            mode = isHead || hasNoContent || payload.isEmpty ? .none : .fixed(payload)
        case .stream:
            if let declared = headers["Content-Length"].flatMap(RequestParser.parseLength) {
                mode = .length(declared)
                keepsDeclaredLength = true
            } else if version == .http11 {
                isChunked = true
                mode = .chunked
            } else {
                mode = .untilClose
                closing = true
            }
            if isHead || hasNoContent { mode = .none }
        }
        var framing: [(name: String, value: String)] = []
        if let contentLength { framing.append(("Content-Length", String(contentLength))) }
        if isChunked { framing.append(("Transfer-Encoding", "chunked")) }
        if closing {
            framing.append(("Connection", "close"))
        } else if version == .http10 {
            framing.append(("Connection", "keep-alive"))  // RFC 9112 §9.3: 1.0 persistence is opt-in
        }
        self.mode = mode
        self.closing = closing
        self.bytes = Self.serialize(status: status, headers: headers, keepingContentLength: keepsDeclaredLength,
                                    framing: framing)
    }

    /// Always `HTTP/1.1` (RFC 9110 §2.5: a server sends its highest conformant version).
    /// Written into one buffer: this runs for every response. The handler's
    /// `Transfer-Encoding` and `Connection`, and its `Content-Length` unless
    /// `keepingContentLength`, give way to `framing`, which follows them.
    static func serialize(status: Int, headers: HTTPHeaders, keepingContentLength: Bool = true,
                          framing: [(name: String, value: String)] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes.append(utf8: "HTTP/1.1 ")
        bytes.append(utf8: String(status))
        bytes.append(0x20)
        bytes.append(utf8: HTTPStatus.reasonPhrase(status))
        bytes.append(utf8: "\r\n")
        for (name, value) in headers where !isFraming(name, keepingContentLength: keepingContentLength) {
            append(name, value, to: &bytes)
        }
        for (name, value) in framing { append(name, value, to: &bytes) }
        bytes.append(utf8: "\r\n")
        return bytes
    }

    private static func isFraming(_ name: String, keepingContentLength: Bool) -> Bool {
        switch name.utf8.count {
        case 10: name.caseInsensitiveEquals("Connection")
        case 14: !keepingContentLength && name.caseInsensitiveEquals("Content-Length")
        case 17: name.caseInsensitiveEquals("Transfer-Encoding")
        default: false
        }
    }

    private static func append(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        bytes.append(utf8: name)
        bytes.append(utf8: ": ")
        // A CR or LF from a handler would split the response (RFC 9110 §5.5): each becomes
        // a space. Copied whole, then checked in place: values almost never have one.
        let start = bytes.count
        bytes.append(utf8: value)
        for index in start..<bytes.count where bytes[index] == 0x0D || bytes[index] == 0x0A { bytes[index] = 0x20 }
        bytes.append(utf8: "\r\n")
    }
}
