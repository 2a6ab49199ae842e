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

    /// The head, then the body when it is `.fixed`: what the connection sends first,
    /// built in one allocation.
    let wire: [UInt8]
    /// How many bytes at the start of `wire` are the head.
    let headCount: Int
    let mode: BodyMode
    /// Whether the connection closes after this response.
    let closing: Bool

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
                // RFC 9110 §8.6: no Content-Length in 1xx/204; a 304 may carry the handler's.
                keepsDeclaredLength = status == 304 && headers.contains("Content-Length")
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
        var body: [UInt8] = []
        if case .fixed(let fixed) = mode { body = fixed }
        (wire, headCount) = Self.serialize(status: status, headers: headers, keepingContentLength: keepsDeclaredLength,
                                           framing: framing, body: body)
    }

    /// Always `HTTP/1.1` (RFC 9110 §2.5: a server sends its highest conformant version).
    /// The handler's `Transfer-Encoding` and `Connection`, and its `Content-Length`
    /// unless `keepingContentLength`, give way to `framing`, which follows them.
    /// - Returns: the head followed by `body`, and the head's length.
    ///
    /// This runs for every response, so the size is counted first and the bytes are
    /// copied once into an array of exactly that size. The body goes into the same
    /// array: joining head and body afterwards copied every fixed body again (a whole
    /// `_all_docs` page, say).
    static func serialize(status: Int, headers: HTTPHeaders, keepingContentLength: Bool = true,
                          framing: [(name: String, value: String)] = [], body: [UInt8] = []) -> ([UInt8], Int) {
        let code = String(status), reason = HTTPStatus.reasonPhrase(status)
        var headCount = 9 + code.utf8.count + 1 + reason.utf8.count + 2 + 2  // "HTTP/1.1 " code SP reason CRLF ... CRLF
        for (name, value) in headers where !isFraming(name, keepingContentLength: keepingContentLength) {
            headCount += name.utf8.count + 2 + value.utf8.count + 2
        }
        for (name, value) in framing { headCount += name.utf8.count + 2 + value.utf8.count + 2 }
        let wire = [UInt8](unsafeUninitializedCapacity: headCount + body.count) { buffer, initialized in
            var out = ByteCursor(buffer: buffer)
            out.put("HTTP/1.1 ")
            out.put(code)
            out.put(" ")
            out.put(reason)
            out.put("\r\n")
            for (name, value) in headers where !isFraming(name, keepingContentLength: keepingContentLength) {
                out.putField(name, value)
            }
            for (name, value) in framing { out.putField(name, value) }
            out.put("\r\n")
            body.withUnsafeBufferPointer { out.put($0) }
            initialized = out.position
        }
        return (wire, headCount)
    }

    private static func isFraming(_ name: String, keepingContentLength: Bool) -> Bool {
        switch name.utf8.count {
        case 10: name.caseInsensitiveEquals("Connection")
        case 14: !keepingContentLength && name.caseInsensitiveEquals("Content-Length")
        case 17: name.caseInsensitiveEquals("Transfer-Encoding")
        default: false
        }
    }
}

/// Writes into a buffer sized beforehand (`ResponseHead.serialize` counts first).
private struct ByteCursor {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var position = 0

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        precondition(position + bytes.count <= buffer.count, "response head larger than counted")
        (buffer.baseAddress! + position).update(from: source, count: bytes.count)
        position += bytes.count
    }

    mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { put($0) }
    }

    /// `name: value` CRLF. A CR or LF from a handler would split the response
    /// (RFC 9110 §5.5): each becomes a space. Checked after the copy, in place.
    mutating func putField(_ name: String, _ value: String) {
        put(name)
        put(": ")
        let start = position
        put(value)
        for index in start..<position where buffer[index] == 0x0D || buffer[index] == 0x0A { buffer[index] = 0x20 }
        put("\r\n")
    }
}
